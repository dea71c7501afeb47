#include "log_scan.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <skillrt/sdk.hpp>
#include <unordered_map>

#include "codes.hpp"
#include "detail/log_place.hpp"
#include "detail/text.hpp"
#include "dynamo_log.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::npu_graph {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr size_t kChunk = 1 << 20;
constexpr size_t kMaxLine = 64 * 1024;  // longer lines are cut; their tail is skipped
constexpr size_t kMaxCodes = 1000;
constexpr size_t kSniff = 64 * 1024;  // bytes looked at to tell a binary file from a log

bool is_digit(char c) { return c >= '0' && c <= '9'; }

enum class Level { kOther, kWarning, kError };

// Cheap checks first: most lines of a big log are INFO/DEBUG and must cost a few finds.
Level classify(std::string_view line) {
  if (line.find("ERROR") != std::string_view::npos) return Level::kError;
  if (line.find("Traceback (most recent call last)") != std::string_view::npos) {
    return Level::kError;
  }
  if (line.find("Error") != std::string_view::npos) {
    // "RuntimeError: ..." and friends at the start of a line are exceptions; "Error" inside
    // an INFO line (e.g. "ErrorCount=0") is not.
    size_t colon = line.find(": ");
    if (colon != std::string_view::npos && colon < 80 &&
        line.substr(0, colon).find("Error") != std::string_view::npos &&
        line.substr(0, colon).find(' ') == std::string_view::npos) {
      return Level::kError;
    }
  }
  if (line.find("error code is") != std::string_view::npos) return Level::kError;
  if (line.find("WARN") != std::string_view::npos) return Level::kWarning;
  return Level::kOther;
}

const char* level_name(Level l) {
  return l == Level::kError ? "error" : l == Level::kWarning ? "warning" : "other";
}

using Where = detail::LogPlace;

struct PatternStat {
  size_t count = 0;
  Level level = Level::kOther;
  Where first;
  size_t order = 0;
};

struct CodeStat {
  size_t count = 0;
  Where first;
  size_t order = 0;
  size_t file_index = 0;
  std::set<int> ranks;
};

struct FileStat {
  std::string path;
  int rank = -1;
  uint64_t bytes = 0;
  size_t lines = 0;
  size_t errors = 0;
  size_t warnings = 0;
  // What the lines looked like, to say what kind of log this is (or is not).
  size_t plog_lines = 0;
  size_t torch_npu_lines = 0;
  size_t pip_lines = 0;
  size_t build_lines = 0;
  size_t dynamo_messages = 0;
  bool binary = false;
  bool has_first = false;
  Where first_error;
  std::string first_error_pattern;
  std::set<std::string> codes;
  std::string last_timestamp;  // lines without a time inherit the last one seen
};

std::string file_kind(const FileStat& f);

// A total order (std::sort needs one): timestamped before untimestamped, then time, then
// input order of the files, then line.
bool earlier(const Where& a, size_t a_file, const Where& b, size_t b_file) {
  const bool at = !a.timestamp.empty();
  const bool bt = !b.timestamp.empty();
  if (at != bt) return at;
  if (at && a.timestamp != b.timestamp) return a.timestamp < b.timestamp;
  if (a_file != b_file) return a_file < b_file;
  return a.line < b.line;
}

class Scanner {
 public:
  explicit Scanner(const LogScanOptions& options) : options_(options) {}

  // Reads chunks from `read` (returns 0 at the end) as the lines of one log named `path`, whose
  // size is about `size_hint` bytes: a short log (a pasted traceback) gets a buffer its size,
  // not a megabyte to allocate and clear.
  void scan(const std::string& path, size_t file_index, uint64_t* done, uint64_t total,
            uint64_t size_hint, const std::function<size_t(char*, size_t)>& read) {
    FileStat stat;
    stat.path = path;
    stat.rank = rank_from_path(path);
    dynamo_.begin_file(path, stat.rank);
    const size_t chunk_size =
        static_cast<size_t>(std::clamp<uint64_t>(size_hint + 1, 4096, kChunk));
    std::string buffer(chunk_size, '\0');
    std::string carry;
    size_t n;
    bool first_chunk = true;
    while ((n = read(buffer.data(), chunk_size)) > 0) {
      if (options_.cancelled && options_.cancelled()) {
        throw skillrt::SkillError(SKILLRT_CANCELLED,
                                  "npu-graph-logs: cancelled while reading '" + path + "'");
      }
      stat.bytes += n;
      *done += n;
      if (options_.progress)
        options_.progress(static_cast<double>(*done), static_cast<double>(total));
      std::string_view chunk(buffer.data(), n);
      if (first_chunk) {
        first_chunk = false;
        // A NUL byte never occurs in a text log; reading a binary file line by line would
        // only produce noise patterns.
        if (chunk.substr(0, kSniff).find('\0') != std::string_view::npos) {
          stat.binary = true;
          break;
        }
      }
      size_t start = 0;
      while (true) {
        const size_t nl = chunk.find('\n', start);
        if (nl == std::string_view::npos) {
          if (carry.size() < kMaxLine) carry.append(chunk.substr(start, kMaxLine - carry.size()));
          break;
        }
        if (!carry.empty()) {
          if (carry.size() < kMaxLine)
            carry.append(chunk.substr(start, std::min(nl - start, kMaxLine - carry.size())));
          on_line(carry, &stat, file_index);
          carry.clear();
        } else {
          on_line(chunk.substr(start, std::min(nl - start, kMaxLine)), &stat, file_index);
        }
        start = nl + 1;
      }
    }
    if (!carry.empty() && !stat.binary) on_line(carry, &stat, file_index);
    dynamo_.end_file();
    stat.dynamo_messages = dynamo_.file_messages();
    files_.push_back(std::move(stat));
  }

  void scan_file(const std::string& path, size_t file_index, uint64_t* done, uint64_t total) {
    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) {
      throw skillrt::invalid_argument("npu-graph-logs: cannot open '" + path +
                                      "': check the path and its permissions");
    }
    std::error_code ec;
    const uint64_t file_bytes = std::filesystem::file_size(path, ec);
    scan(path, file_index, done, total, ec ? kChunk : file_bytes,
         [&f](char* buf, size_t size) { return std::fread(buf, 1, size, f.get()); });
  }

  void scan_text(const std::string& name, std::string_view text, size_t file_index, uint64_t* done,
                 uint64_t total) {
    size_t offset = 0;
    scan(name, file_index, done, total, text.size(), [&](char* buf, size_t size) {
      const size_t n = std::min(size, text.size() - offset);
      std::copy_n(text.data() + offset, n, buf);
      offset += n;
      return n;
    });
  }

  json result() const;

 private:
  void on_line(std::string_view line, FileStat* stat, size_t file_index) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++stat->lines;
    ++total_lines_;
    note_kind(line, stat);
    // The traceback dynamo prints with a graph break is not an error of the run.
    const bool handled = dynamo_.on_line(line, stat->lines, stat->last_timestamp);
    Level level = classify(line);
    if (handled && level == Level::kError) level = Level::kOther;
    std::string timestamp;
    if (level != Level::kOther) {
      timestamp = extract_timestamp(line);
      if (timestamp.empty()) {
        timestamp = stat->last_timestamp;
      } else {
        stat->last_timestamp = timestamp;
      }
    }
    if (level == Level::kError) {
      ++stat->errors;
      if (stat->rank < 0) stat->rank = rank_from_line(line);
      if (!stat->has_first) {
        stat->has_first = true;
        stat->first_error =
            Where{stat->path, stat->rank, stat->lines, timestamp, detail::clip(line)};
        stat->first_error_pattern = detail::normalize_pattern(line, 200);
      }
      tokens_.clear();
      CodeTable::builtin().scan(line, &tokens_);
      for (const CodeToken& t : tokens_) {
        std::string code(t.text);
        stat->codes.insert(code);
        auto it = codes_.find(code);
        if (it == codes_.end()) {
          if (codes_.size() >= kMaxCodes) continue;
          CodeStat cs;
          cs.first = Where{stat->path, stat->rank, stat->lines, timestamp, detail::clip(line)};
          cs.order = next_order_++;
          cs.file_index = file_index;
          it = codes_.emplace(code, std::move(cs)).first;
        }
        ++it->second.count;
        it->second.ranks.insert(stat->rank);
      }
    } else if (level == Level::kWarning) {
      ++stat->warnings;
    }
    // Only error and warning lines are collapsed into patterns: INFO/DEBUG repetition is the
    // normal state of a plog and would crowd out what matters.
    if (level == Level::kOther) return;
    pattern_key_ = detail::normalize_pattern(line, 200);
    auto it = patterns_.find(pattern_key_);
    if (it == patterns_.end()) {
      if (patterns_.size() >= options_.max_patterns) {
        ++untracked_;
        return;
      }
      PatternStat ps;
      ps.level = level;
      ps.first = Where{stat->path, stat->rank, stat->lines, timestamp, detail::clip(line)};
      ps.order = next_order_++;
      it = patterns_.emplace(pattern_key_, std::move(ps)).first;
    }
    ++it->second.count;
  }

  // Counts the line towards the log families it belongs to (a few cheap checks).
  static void note_kind(std::string_view line, FileStat* stat) {
    if (line.size() > 8 && line[0] == '[') {
      // plog: "[ERROR] RUNTIME(4101,python3):2024-..." - a level, a module and its pid.
      const size_t close = line.find("] ");
      if (close != std::string_view::npos && close < 10 &&
          line.substr(close + 2, 40).find('(') != std::string_view::npos) {
        ++stat->plog_lines;
        return;
      }
    }
    static const char* const kPip[] = {"Collecting ",
                                       "Requirement already satisfied",
                                       "Successfully installed",
                                       "Downloading ",
                                       "Installing collected packages",
                                       "Looking in indexes",
                                       "Building wheel",
                                       "Using cached "};
    static const char* const kBuild[] = {"-- ", "[ ", "make[", "CMake ", "ninja: ", "gcc ", "g++ "};
    const std::string_view t = ops::trim_view(line);
    for (const char* p : kPip) {
      if (detail::starts_with(t, p)) {
        ++stat->pip_lines;
        return;
      }
    }
    for (const char* p : kBuild) {
      if (detail::starts_with(line, p)) {
        ++stat->build_lines;
        return;
      }
    }
    if (line.find("ERR0") != std::string_view::npos ||
        line.find("ERR9") != std::string_view::npos ||
        line.find("NPU function error") != std::string_view::npos ||
        line.find("torch_npu") != std::string_view::npos) {
      ++stat->torch_npu_lines;
      return;
    }
  }

  static int rank_from_line(std::string_view line) {
    const size_t p = line.find("RankID:");
    if (p == std::string_view::npos) return -1;
    size_t i = p + 7;
    if (i < line.size() && line[i] == '-') return -1;
    int v = 0;
    bool any = false;
    while (i < line.size() && is_digit(line[i]) && v < 100000) {
      v = v * 10 + (line[i] - '0');
      any = true;
      ++i;
    }
    return any ? v : -1;
  }

  const LogScanOptions& options_;
  DynamoLogReader dynamo_;
  std::vector<FileStat> files_;
  std::unordered_map<std::string, PatternStat> patterns_;
  std::unordered_map<std::string, CodeStat> codes_;
  std::vector<CodeToken> tokens_;
  std::string pattern_key_;
  size_t next_order_ = 0;
  size_t untracked_ = 0;
  size_t total_lines_ = 0;
};

json Scanner::result() const {
  json files = json::array();
  uint64_t bytes = 0;
  size_t first_file = files_.size();
  for (size_t i = 0; i < files_.size(); ++i) {
    const FileStat& f = files_[i];
    bytes += f.bytes;
    json j{{"path", f.path},     {"bytes", f.bytes},       {"lines", f.lines},
           {"errors", f.errors}, {"warnings", f.warnings}, {"kind", file_kind(f)}};
    j["rank"] = f.rank < 0 ? json(nullptr) : json(f.rank);
    j["first_error"] = f.has_first ? f.first_error.to_json() : json(nullptr);
    files.push_back(j);
    if (!f.has_first) continue;
    if (first_file == files_.size() ||
        earlier(f.first_error, i, files_[first_file].first_error, first_file)) {
      first_file = i;
    }
  }

  std::vector<std::pair<std::string, const CodeStat*>> codes;
  for (const auto& kv : codes_) codes.emplace_back(kv.first, &kv.second);
  std::sort(codes.begin(), codes.end(), [](const auto& a, const auto& b) {
    if (earlier(a.second->first, a.second->file_index, b.second->first, b.second->file_index)) {
      return true;
    }
    if (earlier(b.second->first, b.second->file_index, a.second->first, a.second->file_index)) {
      return false;
    }
    return a.second->order < b.second->order;
  });
  json timeline = json::array();
  for (const auto& [code, stat] : codes) {
    json j{{"code", code}, {"count", stat->count}, {"first", stat->first.to_json()}};
    if (const auto d = CodeTable::builtin().decode(code)) {
      j["kind"] = code_kind_name(d->kind);
      j["meaning"] = d->meaning;
      j["layer"] = d->layer;
    }
    json ranks = json::array();
    for (int r : stat->ranks) ranks.push_back(r < 0 ? json(nullptr) : json(r));
    j["ranks"] = ranks;
    timeline.push_back(j);
  }

  std::vector<std::pair<const std::string*, const PatternStat*>> pats;
  for (const auto& kv : patterns_) {
    if (kv.second.count > 1) pats.emplace_back(&kv.first, &kv.second);
  }
  std::sort(pats.begin(), pats.end(), [](const auto& a, const auto& b) {
    if (a.second->count != b.second->count) return a.second->count > b.second->count;
    return a.second->order < b.second->order;
  });
  json patterns = json::array();
  for (size_t i = 0; i < pats.size() && i < options_.top_patterns; ++i) {
    patterns.push_back({{"pattern", *pats[i].first},
                        {"count", pats[i].second->count},
                        {"level", level_name(pats[i].second->level)},
                        {"first", pats[i].second->first.to_json()}});
  }

  // Ranks: files with the same rank are merged; the earliest failing rank is the culprit
  // candidate, the others usually show consequences (timeouts).
  std::map<int, std::vector<size_t>> by_rank;
  for (size_t i = 0; i < files_.size(); ++i) {
    if (files_[i].rank >= 0) by_rank[files_[i].rank].push_back(i);
  }
  json per_rank = nullptr;
  if (by_rank.size() > 1) {
    json ranks = json::array();
    std::map<std::string, std::vector<int>> code_ranks;
    std::map<std::string, std::vector<int>> first_pattern_ranks;
    std::vector<int> clean;
    int earliest_rank = -1;
    size_t earliest_file = 0;
    for (const auto& [rank, idx] : by_rank) {
      size_t errors = 0;
      std::set<std::string> rank_codes;
      const FileStat* first = nullptr;
      size_t first_index = 0;
      for (size_t i : idx) {
        errors += files_[i].errors;
        rank_codes.insert(files_[i].codes.begin(), files_[i].codes.end());
        if (files_[i].has_first &&
            (!first || earlier(files_[i].first_error, i, first->first_error, first_index))) {
          first = &files_[i];
          first_index = i;
        }
      }
      for (const auto& c : rank_codes) code_ranks[c].push_back(rank);
      if (first) {
        first_pattern_ranks[first->first_error_pattern].push_back(rank);
        if (earliest_rank < 0 || earlier(first->first_error, first_index,
                                         files_[earliest_file].first_error, earliest_file)) {
          earliest_rank = rank;
          earliest_file = first_index;
        }
      } else {
        clean.push_back(rank);
      }
      ranks.push_back({{"rank", rank},
                       {"files", idx.size()},
                       {"errors", errors},
                       {"codes", rank_codes},
                       {"first_error", first ? first->first_error.to_json() : json(nullptr)}});
    }
    json differences = json::array();
    for (const auto& [code, rs] : code_ranks) {
      if (rs.size() == by_rank.size()) continue;
      differences.push_back({{"what", "code " + code + " appears on some ranks only"},
                             {"code", code},
                             {"ranks", rs}});
    }
    if (first_pattern_ranks.size() > 1) {
      for (const auto& [pattern, rs] : first_pattern_ranks) {
        differences.push_back(
            {{"what", "first error differs: " + pattern}, {"pattern", pattern}, {"ranks", rs}});
      }
    }
    if (!clean.empty() && clean.size() < by_rank.size()) {
      differences.push_back({{"what", "ranks without any error line"}, {"ranks", clean}});
    }
    per_rank = {{"ranks", ranks},
                {"differences", differences},
                {"earliest_failing_rank", earliest_rank < 0 ? json(nullptr) : json(earliest_rank)},
                {"earliest_first_error",
                 earliest_rank < 0 ? json(nullptr) : files_[earliest_file].first_error.to_json()}};
  }

  json notes = json::array();
  size_t recognised = 0;
  for (const FileStat& f : files_) {
    const std::string kind = file_kind(f);
    if (kind == "binary") {
      notes.push_back("'" + f.path +
                      "' is a binary file (NUL bytes in its first 64 KiB), not a text log: it "
                      "was skipped; pass the plog files or the run's stdout/stderr instead");
    } else if (kind == "empty") {
      notes.push_back("'" + f.path +
                      "' is empty: check that the run wrote its log there (plog goes to "
                      "$ASCEND_PROCESS_LOG_PATH or ~/ascend/log, TORCH_LOGS output to stderr)");
    } else if (kind == "pip" || kind == "build") {
      notes.push_back("'" + f.path + "' looks like a " +
                      (kind == "pip" ? std::string("pip install") : std::string("build")) +
                      " log and has no plog, torch_npu, dynamo, inductor or torchair lines: "
                      "nothing graph-mode specific to report; pass the log of the failing run");
    } else if (kind == "text") {
      notes.push_back("'" + f.path +
                      "' has no plog, torch_npu, dynamo, inductor or torchair lines; it was "
                      "read as plain text (error/warning lines only)");
    } else {
      ++recognised;
    }
  }
  if (!files_.empty() && recognised == 0) {
    notes.push_back(
        "nothing recognised in any file: npu-graph-logs reads CANN plog, torch_npu error "
        "output, and dynamo/inductor/torchair logs (TORCH_LOGS=graph_breaks,recompiles,"
        "perf_hints)");
  }
  for (std::string& n : dynamo_.notes()) notes.push_back(std::move(n));
  if (untracked_ > 0) {
    notes.push_back(std::to_string(untracked_) + " error/warning lines had patterns beyond the " +
                    std::to_string(options_.max_patterns) + " tracked and were only counted");
  }
  if (by_rank.size() <= 1 && files_.size() > 1) {
    notes.push_back(
        "rank of the files unknown or identical: name them rank_<n>/device-<n> or rely on "
        "RankID in torch_npu error lines for per-rank comparison");
  }
  return json{
      {"files", files},
      {"total_bytes", bytes},
      {"total_lines", total_lines_},
      {"first_error",
       first_file == files_.size() ? json(nullptr) : files_[first_file].first_error.to_json()},
      {"timeline", timeline},
      {"patterns", patterns},
      {"per_rank", per_rank},
      {"dynamo", dynamo_.result(options_.top_dynamo)},
      {"notes", notes}};
}

std::string file_kind(const FileStat& f) {
  if (f.binary) return "binary";
  if (f.lines == 0) return "empty";
  std::vector<const char*> families;
  if (f.plog_lines > 0) families.push_back("plog");
  if (f.torch_npu_lines > 0) families.push_back("torch_npu");
  if (f.dynamo_messages > 0) families.push_back("dynamo");
  if (families.size() > 1) return "mixed";
  if (families.size() == 1) return families.front();
  // Another tool's log: most of its lines carry that tool's marks.
  if (f.pip_lines >= 2 && f.pip_lines * 4 >= f.lines) return "pip";
  if (f.build_lines >= 2 && f.build_lines * 4 >= f.lines) return "build";
  return "text";
}

}  // namespace

int rank_from_path(const std::string& path) {
  static const std::regex kRank(R"((?:rank|device|worker|node)[_-]?(\d{1,5}))", std::regex::icase);
  int rank = -1;
  for (auto it = std::sregex_iterator(path.begin(), path.end(), kRank);
       it != std::sregex_iterator(); ++it) {
    rank = std::stoi((*it)[1].str());
  }
  return rank;
}

std::string extract_timestamp(std::string_view line) {
  // YYYY-MM-DD then '-', ' ' or 'T', then HH:MM:SS, then optional .fff[.uuu] or ,fff
  for (size_t i = 0; i + 19 <= line.size(); ++i) {
    if (!is_digit(line[i]) || (i > 0 && is_digit(line[i - 1]))) continue;
    const std::string_view s = line.substr(i);
    auto d = [&](size_t k) { return k < s.size() && is_digit(s[k]); };
    if (!(d(0) && d(1) && d(2) && d(3) && s[4] == '-' && d(5) && d(6) && s[7] == '-' && d(8) &&
          d(9) && (s[10] == '-' || s[10] == ' ' || s[10] == 'T') && d(11) && d(12) &&
          s[13] == ':' && d(14) && d(15) && s[16] == ':' && d(17) && d(18))) {
      continue;
    }
    std::string out(s.substr(0, 10));
    out += ' ';
    out.append(s.substr(11, 8));
    size_t k = 19;
    std::string frac;
    while (k < s.size() && (s[k] == '.' || s[k] == ',') && d(k + 1) && frac.size() < 6) {
      ++k;
      while (d(k)) frac.push_back(s[k++]);
    }
    // A fixed-width fraction keeps string comparison equal to time comparison.
    frac.resize(6, '0');
    out += "." + frac;
    return out;
  }
  return {};
}

std::vector<std::string> expand_log_paths(const std::vector<std::string>& paths, size_t max_files) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      out.push_back(p);
      continue;
    }
    if (!fs::is_directory(p, ec)) {
      throw skillrt::invalid_argument("npu-graph-logs: 'paths' entry '" + p +
                                      "' is neither a file nor a directory");
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(p, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (!it->is_regular_file(ec)) continue;
      const std::string name = it->path().filename().string();
      const bool log = name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0;
      if (log || detail::starts_with(name, "plog-") || name.find(".log.") != std::string::npos) {
        found.push_back(it->path().string());
      }
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  if (out.size() > max_files) {
    throw skillrt::invalid_argument("npu-graph-logs: " + std::to_string(out.size()) +
                                    " log files found, more than the limit of " +
                                    std::to_string(max_files) + ": pass fewer paths");
  }
  return out;
}

json scan_logs(const std::vector<std::string>& files, const LogScanOptions& options,
               const std::string* inline_text) {
  uint64_t total = inline_text ? inline_text->size() : 0;
  for (const std::string& f : files) {
    std::error_code ec;
    const uintmax_t size = fs::file_size(f, ec);
    if (!ec) total += size;
  }
  Scanner scanner(options);
  uint64_t done = 0;
  size_t index = 0;
  if (inline_text) scanner.scan_text(kInlineName, *inline_text, index++, &done, total);
  for (const std::string& f : files) scanner.scan_file(f, index++, &done, total);
  return scanner.result();
}

json run_logs(const json& input, const LogScanOptions& base) {
  LogScanOptions options = base;
  if (input.contains("top_patterns")) options.top_patterns = input.at("top_patterns").get<size_t>();
  if (input.contains("top_dynamo")) options.top_dynamo = input.at("top_dynamo").get<size_t>();
  const auto paths = input.value("paths", std::vector<std::string>());
  const bool has_text = input.contains("text");
  if (paths.empty() && !has_text) {
    throw skillrt::invalid_argument(
        "npu-graph-logs: give 'paths' (log files or directories) or 'text' (the log pasted "
        "inline)");
  }
  const std::vector<std::string> files = expand_log_paths(paths, options.max_files);
  if (files.empty() && !has_text) {
    throw skillrt::invalid_argument(
        "npu-graph-logs: no log files under 'paths' (looked for *.log and plog-*): name the "
        "files directly");
  }
  if (!has_text) return scan_logs(files, options);
  const std::string text = input.at("text").get<std::string>();
  return scan_logs(files, options, &text);
}

}  // namespace skillrt::npu_graph
