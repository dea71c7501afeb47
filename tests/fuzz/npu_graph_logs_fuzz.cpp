// Fuzz target of npu-graph's log readers, the input being a log as a user pastes or points at
// it. The first byte picks the reader (its value modulo 3), the rest is the log:
//   0: the dynamo/inductor/torchair reader (dynamo_log.cpp) fed line by line, as the log scan
//      feeds it, with limits high enough that every message is tracked;
//   1: npu-graph-logs (run_logs, log_scan.cpp, which streams the log through the dynamo reader
//      too), once on the pasted text and once on the same bytes in a temporary file;
//   2: npu-graph-diagnose (run_diagnose, diagnose.cpp) on the log's first 2 KiB as a traceback.
// Besides no crash and ASan/UBSan clean, what the result cites must be the input's:
// - every place (first error, pattern, code, graph-break site, recompile event ...) names a line
//   of the input, and the text it quotes is that line (clipped at 400 bytes with "...");
// - a decoded code or an operator name occurs on the line cited for it;
// - counts add up: the graph-break, recompile, cache-limit, fallback, perf-hint and torchair
//   totals are the sums of the counts of their ranked entries (all entries are returned), the
//   recompile events number the recompiles plus cache-limit hits, a file's lines are the input's
//   lines and its error and warning lines at most that many;
// - the log read from a file gives the result the pasted text gives (the name aside).
// Built as a libFuzzer target by `make fuzz`, and run over its corpus by ctest.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <skillrt/sdk.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "diagnose.hpp"
#include "dynamo_log.hpp"
#include "log_scan.hpp"

namespace {

using nlohmann::json;
namespace ng = skillrt::npu_graph;

constexpr size_t kAll = 1u << 20;  // `top` values that return every entry
constexpr size_t kClip = 400;      // detail::clip's default: quoted lines are cut there
constexpr size_t kMaxLine = 64 * 1024;
constexpr size_t kSniff = 64 * 1024;
constexpr size_t kDiagnoseBytes = 2048;

std::string_view g_input;  // for the failure message

// As the host writes results: bytes that are not UTF-8 replaced, never an exception.
std::string dumped(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

[[noreturn]] void broken(const std::string& what, const json& where = nullptr) {
  const std::string at = where.is_null() ? std::string() : dumped(where).substr(0, 2000);
  std::fprintf(stderr, "npu_graph_logs: %s%s%s\ninput: %.*s\n", what.c_str(),
               at.empty() ? "" : " at ", at.c_str(),
               static_cast<int>(g_input.size() > 2000 ? 2000 : g_input.size()), g_input.data());
  std::abort();
}

size_t as_size(const json& j, const char* field, const json& where) {
  const auto it = j.find(field);
  if (it == j.end() || !it->is_number_unsigned()) {
    broken(std::string("'") + field + "' is not a count", where);
  }
  return it->get<size_t>();
}

// Whether `quoted` is `line` as a result quotes it: whole, or its first bytes and "...".
bool quotes(std::string_view quoted, std::string_view line) {
  if (quoted == line) return true;
  if (line.size() <= kClip || quoted.size() < 3 || quoted.substr(quoted.size() - 3) != "...") {
    return false;
  }
  const std::string_view head = quoted.substr(0, quoted.size() - 3);
  return head.size() <= kClip && line.substr(0, head.size()) == head;
}

// A line cited as {"line": n, "text": ...} (text optional): n is a line of the input and the text
// is that line.
void check_cited(const json& j, const std::vector<std::string_view>& lines, const char* what) {
  if (!j.is_object()) broken(std::string(what) + " is not an object", j);
  const size_t n = as_size(j, "line", j);
  if (n < 1 || n > lines.size()) {
    broken(std::string(what) + " cites line " + std::to_string(n) + " of " +
               std::to_string(lines.size()),
           j);
  }
  const auto text = j.find("text");
  if (text != j.end() && (!text->is_string() || !quotes(text->get<std::string>(), lines[n - 1]))) {
    broken(std::string(what) + " quotes a text that is not its line", j);
  }
}

// A place (detail::LogPlace::to_json): the log's name, a line of it with its text, and a
// timestamp that is empty or "YYYY-MM-DD HH:MM:SS.ffffff".
void check_place(const json& j, const std::vector<std::string_view>& lines, const std::string& path,
                 const char* what) {
  check_cited(j, lines, what);
  if (j.value("path", json()) != path) broken(std::string(what) + " names another file", j);
  const json& ts = j.at("timestamp");
  if (!ts.is_string()) broken(std::string(what) + " has a timestamp that is not a string", j);
  const std::string t = ts.get<std::string>();
  static const std::regex kTime(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6})");
  if (!t.empty() && !std::regex_match(t, kTime)) {
    broken(std::string(what) + " has a malformed timestamp", j);
  }
  const json& rank = j.at("rank");
  if (!rank.is_null() && !(rank.is_number_integer() && rank.get<long long>() >= 0)) {
    broken(std::string(what) + " has a rank that is neither null nor a number", j);
  }
}

// The lines the readers see: split at '\n', cut at 64 KiB, one trailing '\r' dropped; a last
// line without '\n' counts when it is not empty (log_scan.cpp's streaming loop).
std::vector<std::string_view> scanned_lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    const bool last = nl == std::string_view::npos;
    if (last) nl = text.size();
    std::string_view line = text.substr(start, std::min(nl - start, kMaxLine));
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!last || nl > start) out.push_back(line);
    start = nl + 1;
  }
  return out;
}

size_t sum_counts(const json& list, const char* field = "count") {
  size_t sum = 0;
  for (const json& e : list) sum += as_size(e, field, e);
  return sum;
}

// The dynamo reader's result. `complete`: no limit was hit, so the totals are exact sums.
void check_dynamo(const json& d, const std::vector<std::string_view>& lines,
                  const std::string& path, bool complete) {
  const size_t breaks = as_size(d, "graph_break_total", d);
  const size_t recompiles = as_size(d, "recompile_total", d);
  const size_t limits = as_size(d, "cache_limit_hits", d);
  const json& sites = d.at("graph_breaks");
  for (const json& s : sites) {
    check_place(s.at("first"), lines, path, "a graph-break site's first message");
    if (as_size(s, "count", s) == 0) broken("a graph-break site counted 0 times", s);
    if (as_size(s, "suppressed_duplicates", s) > as_size(s, "count", s)) {
      broken("a site has more suppressed duplicates than breaks", s);
    }
    if (s.at("ranks").empty() || s.at("ranks").size() > 64) broken("a site's rank list", s);
  }
  size_t fn_recompiles = 0, fn_limits = 0;
  for (const json& f : d.at("recompiles")) {
    check_place(f.at("first"), lines, path, "a recompiled function's first message");
    fn_recompiles += as_size(f, "recompiles", f);
    fn_limits += as_size(f, "limit_hits", f);
    if (sum_counts(f.at("guards")) > as_size(f, "recompiles", f) + as_size(f, "limit_hits", f)) {
      broken("a function's failing guards outnumber its recompilations", f);
    }
  }
  const json& events = d.at("recompile_events");
  size_t event_recompiles = 0;
  for (const json& e : events) {
    check_place(e.at("where"), lines, path, "a recompile event");
    if (e.at("kind") == "recompile") ++event_recompiles;
  }
  for (const char* list : {"fallbacks", "perf_hints", "skipped_frames", "torchair"}) {
    for (const json& e : d.at(list)) {
      check_place(e.at("first"), lines, path, list);
      if (as_size(e, "count", e) == 0) broken(std::string("an entry of ") + list + " counted 0", e);
    }
  }
  const bool detected = d.at("detected").get<bool>();
  const std::string summary = d.at("summary").get<std::string>();
  static const std::regex kTail(
      R"(; (\d+) inductor fallback\(s\); (\d+) perf hint\(s\); (\d+) torchair/GE message\(s\)$)");
  std::smatch m;
  if (!detected) {
    if (breaks + recompiles + limits != 0 || !sites.empty() || !events.empty() ||
        !d.at("fallbacks").empty() || !d.at("perf_hints").empty() ||
        !d.at("skipped_frames").empty() || !d.at("torchair").empty() ||
        as_size(d, "ge_graph_compiles", d) != 0) {
      broken("'detected' is false but something was counted", d);
    }
    return;
  }
  if (!std::regex_search(summary, m, kTail)) broken("the summary's totals cannot be read", d);
  if (!complete) return;
  if (breaks != sum_counts(sites) || as_size(d, "graph_break_sites", d) != sites.size()) {
    broken("graph_break_total is not the sum of the sites' counts", d);
  }
  if (recompiles != fn_recompiles || limits != fn_limits) {
    broken("recompile_total / cache_limit_hits are not the sums over the functions", d);
  }
  if (events.size() != recompiles + limits || event_recompiles != recompiles) {
    broken("the recompile events are not the recompiles and cache-limit hits", d);
  }
  if (std::stoul(m[1].str()) != sum_counts(d.at("fallbacks")) ||
      std::stoul(m[2].str()) != sum_counts(d.at("perf_hints")) ||
      std::stoul(m[3].str()) != sum_counts(d.at("torchair"))) {
    broken("the summary's fallback / perf-hint / torchair totals are not the sums", d);
  }
}

// Mode 0: the dynamo reader alone, every message tracked.
void run_dynamo(std::string_view text, int rank) {
  ng::DynamoLimits limits;
  limits.max_sites = std::numeric_limits<size_t>::max();
  limits.max_events = std::numeric_limits<size_t>::max();
  limits.max_guards_per_function = std::numeric_limits<size_t>::max();
  ng::DynamoLogReader reader(limits);
  const std::string path = "fuzz.log";
  reader.begin_file(path, rank);
  const std::vector<std::string_view> lines = scanned_lines(text);
  const std::string timestamp;
  for (size_t i = 0; i < lines.size(); ++i) reader.on_line(lines[i], i + 1, timestamp);
  reader.end_file();
  if (!reader.notes().empty()) broken("a limit was hit although none was set", reader.notes());
  check_dynamo(reader.result(kAll), lines, path, true);
}

std::filesystem::path temp_log() {
  return std::filesystem::temp_directory_path() /
         ("npu_graph_logs_fuzz_" + std::to_string(::getpid()) + ".log");
}

void check_logs(const json& r, std::string_view text, const std::string& path) {
  const std::vector<std::string_view> lines = scanned_lines(text);
  const json& files = r.at("files");
  if (files.size() != 1) broken("one log read, another number of files reported", r);
  const json& f = files[0];
  if (f.value("path", json()) != path) broken("the file is reported under another name", f);
  const bool binary = text.substr(0, kSniff).find('\0') != std::string_view::npos;
  if ((f.at("kind") == "binary") != binary) broken("a binary log is a log with a NUL byte", f);
  const size_t n = binary ? 0 : lines.size();
  if (as_size(f, "bytes", f) != text.size() || as_size(r, "total_bytes", r) != text.size()) {
    broken("the bytes read are not the input's", r);
  }
  if (as_size(f, "lines", f) != n || as_size(r, "total_lines", r) != n) {
    broken("the lines read are not the input's", r);
  }
  const size_t errors = as_size(f, "errors", f);
  if (errors + as_size(f, "warnings", f) > n) broken("more error/warning lines than lines", f);
  if (f.at("first_error").is_null() != (errors == 0)) broken("a first error iff errors", f);
  if (!f.at("first_error").is_null()) {
    check_place(f.at("first_error"), lines, path, "the file's first error");
    if (r.at("first_error") != f.at("first_error")) broken("two first errors of one file", r);
  }
  for (const json& c : r.at("timeline")) {
    check_place(c.at("first"), lines, path, "a code's first line");
    const std::string code = c.at("code").get<std::string>();
    if (lines[c.at("first").at("line").get<size_t>() - 1].find(code) == std::string_view::npos) {
      broken("a code that is not on the line cited for it", c);
    }
    if (as_size(c, "count", c) == 0) broken("a code counted 0 times", c);
  }
  size_t previous = std::numeric_limits<size_t>::max();
  for (const json& p : r.at("patterns")) {
    check_place(p.at("first"), lines, path, "a pattern's first line");
    const size_t count = as_size(p, "count", p);
    if (count < 2 || count > previous)
      broken("patterns are repeated lines, most frequent first", p);
    previous = count;
  }
  if (sum_counts(r.at("patterns")) > errors + as_size(f, "warnings", f)) {
    broken("the patterns count more lines than the error and warning lines", r);
  }
  if (!r.at("per_rank").is_null()) broken("one file compared across ranks", r);
  bool complete = true;
  for (const json& note : r.at("notes")) {
    const std::string said = note.get<std::string>();
    complete = complete && said.find("only counted") == std::string::npos &&
               said.find("lists the first") == std::string::npos;
  }
  check_dynamo(r.at("dynamo"), lines, path, complete);
}

// `both`: the log read twice (pasted, then from `path`); `once`: read once, pasted. The second
// file reads like the first, and the dynamo totals and code counts are twice the single ones.
void check_twice(const json& both, const json& once, const std::string& path) {
  const json& files = both.at("files");
  if (files.size() != 2) broken("two logs read, another number of files reported", both);
  json second = files[1];
  if (second.value("path", json()) != path) broken("the file is reported under another name", both);
  second["path"] = ng::kInlineName;
  if (second.contains("first_error") && second["first_error"].is_object()) {
    second["first_error"]["path"] = ng::kInlineName;
  }
  if (second != files[0] || files[0] != once.at("files")[0]) {
    broken("the same log read twice in one call reads differently the second time", both);
  }
  if (as_size(both, "total_lines", both) != 2 * as_size(once, "total_lines", once) ||
      as_size(both, "total_bytes", both) != 2 * as_size(once, "total_bytes", once)) {
    broken("two copies of a log are not twice its lines and bytes", both);
  }
  if (both.at("first_error") != files[0].at("first_error")) {
    broken("the first error of two equal logs is not the first log's", both);
  }
  const json& d2 = both.at("dynamo");
  const json& d1 = once.at("dynamo");
  for (const char* total :
       {"graph_break_total", "recompile_total", "cache_limit_hits", "ge_graph_compiles"}) {
    if (as_size(d2, total, d2) != 2 * as_size(d1, total, d1)) {
      broken(std::string("two copies of a log do not double the dynamo ") + total, both);
    }
  }
  for (const char* list : {"fallbacks", "perf_hints", "skipped_frames", "torchair"}) {
    if (sum_counts(d2.at(list)) != 2 * sum_counts(d1.at(list))) {
      broken(std::string("two copies of a log do not double the dynamo ") + list, both);
    }
  }
  const json& t2 = both.at("timeline");
  const json& t1 = once.at("timeline");
  if (t2.size() != t1.size()) broken("two copies of a log name other codes", both);
  for (const json& c : t1) {
    bool found = false;
    for (const json& c2 : t2) {
      if (c2.at("code") != c.at("code")) continue;
      found = as_size(c2, "count", c2) == 2 * as_size(c, "count", c);
    }
    if (!found) broken("two copies of a log do not double a code's count", c);
  }
}

// Mode 1: npu-graph-logs on the pasted text and on a file with the same bytes.
void run_logs(std::string_view text) {
  const std::string pasted(text);
  const ng::LogScanOptions options;
  const json inline_result =
      ng::run_logs({{"text", pasted}, {"top_patterns", kAll}, {"top_dynamo", kAll}}, options);
  check_logs(inline_result, text, ng::kInlineName);

  const std::filesystem::path file = temp_log();
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) broken("cannot write the temporary log " + file.string());
  }
  json from_file = ng::run_logs(
      {{"paths", json::array({file.string()})}, {"top_patterns", kAll}, {"top_dynamo", kAll}},
      options);
  // The pasted text and the file in one call: two logs read one after the other, each on its
  // own (a message open at the end of the first does not take lines of the second).
  const json both = ng::run_logs({{"text", pasted},
                                  {"paths", json::array({file.string()})},
                                  {"top_patterns", kAll},
                                  {"top_dynamo", kAll}},
                                 options);
  std::filesystem::remove(file);
  check_twice(both, inline_result, file.string());
  // The same log under another name: every mention of the name aside, the same result.
  std::string dump = dumped(from_file);
  const std::string quoted_name = dumped(file.string());
  const std::string inline_name = dumped(ng::kInlineName);
  for (size_t at = dump.find(quoted_name); at != std::string::npos;
       at = dump.find(quoted_name, at + inline_name.size())) {
    dump.replace(at, quoted_name.size(), inline_name);
  }
  const std::string bare_name = "'" + file.string() + "'";
  for (size_t at = dump.find(bare_name); at != std::string::npos; at = dump.find(bare_name, at)) {
    dump.replace(at, bare_name.size(), std::string("'") + ng::kInlineName + "'");
  }
  // An input that quotes the temporary file's own name (the fuzzer learns it from comparisons)
  // cannot be told from the name the result gives the file.
  const bool quotes_name = pasted.find(file.string()) != std::string_view::npos;
  if (!quotes_name && dump != dumped(inline_result)) {
    broken("the log read from a file gives another result than the pasted text: " +
           dump.substr(0, 1500) + "\nvs\n" + dumped(inline_result).substr(0, 1500));
  }
}

// Mode 2: npu-graph-diagnose on the log as a traceback.
void run_diagnose(std::string_view text) {
  const std::string traceback(text);
  bool blank = true;
  for (char c : traceback) blank = blank && std::isspace(static_cast<unsigned char>(c)) != 0;
  json r;
  try {
    r = ng::run_diagnose({{"traceback", traceback}});
  } catch (const skillrt::SkillError&) {
    if (blank) return;  // "give 'log' or 'traceback'": the one refusal of a readable input
    throw;
  }
  if (blank) broken("a blank log was diagnosed", r);
  std::vector<std::string_view> lines;  // ops::split_lines, capped as diagnose caps it
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (end == text.size() && line.empty()) break;
    lines.push_back(line);
    start = end + 1;
  }
  if (lines.size() > 20000) lines.resize(20000);
  if (as_size(r, "lines_read", r) != lines.size()) broken("lines_read is not the input's", r);
  if (!r.at("first_error").is_null()) check_cited(r.at("first_error"), lines, "the first error");
  for (const json& c : r.at("codes")) {
    check_cited(c, lines, "a decoded code");
    if (lines[c.at("line").get<size_t>() - 1].find(c.at("code").get<std::string>()) ==
        std::string_view::npos) {
      broken("a decoded code that is not on its line", c);
    }
  }
  for (const json& layer : r.at("layers")) {
    size_t previous = 0;
    for (const json& e : layer.at("evidence")) {
      check_cited(e, lines, "a layer's evidence");
      if (e.at("line").get<size_t>() <= previous) broken("a layer's evidence out of order", layer);
      previous = e.at("line").get<size_t>();
    }
    if (layer.at("evidence").size() > 5) broken("more than 5 evidence lines for a layer", layer);
  }
  for (const json& g : r.at("graph_events")) check_cited(g, lines, "a graph event");
  for (const json& e : r.at("evidence")) check_cited(e, lines, "the conclusion's evidence");
  if (!r.at("operator").is_null()) {
    const json& op = r.at("operator");
    check_cited(op, lines, "the operator");
    if (lines[op.at("line").get<size_t>() - 1].find(op.at("name").get<std::string>()) ==
        std::string_view::npos) {
      broken("an operator name that is not on its line", op);
    }
  }
  for (const json& s : r.at("secondary")) {
    size_t previous = 0;
    for (const json& l : s.at("lines")) {
      const size_t n = l.get<size_t>();
      if (n <= previous || n > lines.size()) broken("a secondary rule's lines", s);
      previous = n;
    }
  }
  const std::string conclusion = r.at("conclusion").get<std::string>();
  if (conclusion != "undetermined" && ng::kDiagnoseClasses.count(conclusion) == 0) {
    broken("a conclusion outside the classes", r);
  }
  const double confidence = r.at("confidence").get<double>();
  if (!(confidence >= 0.0 && confidence <= 1.0)) broken("a confidence outside [0, 1]", r);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  g_input = text;
  switch (data[0] % 3) {
    case 0:
      run_dynamo(text, data[0] % 2 == 0 ? -1 : 3);
      break;
    case 1:
      run_logs(text);
      break;
    default:
      // diagnose runs its ~360 rule patterns (std::regex) over every line, ~50 ms per KiB under
      // ASan. Its logic is per line (looking a few lines ahead at most): 2 KiB reach all of it
      // and keep the target at a useful speed.
      run_diagnose(text.substr(0, kDiagnoseBytes));
      break;
  }
  return 0;
}
