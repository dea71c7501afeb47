#include "dynamo_log.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "detail/log_place.hpp"
#include "detail/text.hpp"
#include "embedded_data.hpp"
#include "log_scan.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::npu_graph {
namespace {

using nlohmann::json;
using std::string_view;
constexpr size_t npos = string_view::npos;

constexpr size_t kMaxStreams = 256;       // "[rankN]:" prefixes interleaved in one file
constexpr size_t kMaxText = 300;          // reasons, hints, guards are clipped to this
constexpr size_t kMaxHints = 3;           // "Hint:" lines kept per graph-break site
constexpr size_t kMaxRanks = 64;          // ranks listed per site
constexpr size_t kHeaderScan = 256;       // a logging header is looked for this far into a line
constexpr size_t kBareRecordLines = 400;  // an unprefixed message is closed after this many lines

// What torch_npu's inductor logs (torch_npu/_inductor/lowering.py) for an op that
// NPU_INDUCTOR_FALLBACK_LIST sends back to eager.
constexpr const char* kNpuFallback = "[npu|inductor|lowering|fallback] User specified fallback: ";
constexpr string_view kUnsupported = "torch._dynamo.exc.Unsupported: ";

// Reasons written when the log does not carry one; the texts say why.
constexpr const char* kNoReason = "(reason not in the log)";
constexpr const char* kItemInferred =
    "Tensor.item() call with capture_scalar_outputs disabled (inferred from the "
    "capture_scalar_outputs hint; the message's first line is not in the log)";

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool contains(string_view s, string_view needle) { return s.find(needle) != npos; }
using detail::starts_with;

string_view ltrim(string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

std::string clip(string_view s) { return detail::clip(ops::trim_view(s), kMaxText); }

size_t parse_size(string_view s) {
  size_t v = 0;
  for (char c : s) {
    if (!is_digit(c) || v > 100000000) break;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  return v;
}

// "path:123" (the path may hold a drive colon) -> path and line; line 0 when absent.
void split_location(string_view s, std::string* file, size_t* line) {
  s = ops::trim_view(s);
  while (!s.empty() && (s.back() == ')' || s.back() == ',' || s.back() == '.')) s.remove_suffix(1);
  const size_t colon = s.rfind(':');
  if (colon != npos && colon + 1 < s.size() &&
      std::all_of(s.begin() + static_cast<std::ptrdiff_t>(colon) + 1, s.end(), is_digit)) {
    *file = std::string(s.substr(0, colon));
    *line = parse_size(s.substr(colon + 1));
  } else {
    *file = std::string(s);
    *line = 0;
  }
}

// torch, torch_npu and torchair sources: a break reported inside them is charged to the
// innermost user frame instead, which is where the user can change something.
bool is_framework_file(string_view f) {
  static const char* const kMarkers[] = {
      "site-packages/torch/",     "dist-packages/torch/",     "site-packages\\torch\\",
      "dist-packages\\torch\\",   "/pytorch/torch/",          "site-packages/torch_npu/",
      "dist-packages/torch_npu/", "site-packages/torchair/",  "dist-packages/torchair/",
      "/torch/_dynamo/",          "/torch/nn/modules/module", "<frozen "};
  for (const char* m : kMarkers) {
    if (contains(f, m)) return true;
  }
  return starts_with(f, "torch/") || starts_with(f, "torch\\");
}

// The compile id "1/3" (frame 1, its 4th compilation) -> "1".
std::string frame_of(string_view cid) {
  const size_t slash = cid.find('/');
  return std::string(slash == npos ? cid : cid.substr(0, slash));
}

// Guard text as dynamo prints it -> the guard: without "- ", the "1/0: " cache-entry prefix,
// the trailing "# source" comment and dynamo's own advice sentence (returned in `hint`).
std::string clean_guard(string_view g, std::string* hint) {
  g = ops::trim_view(g);
  if (starts_with(g, "- ")) g.remove_prefix(2);
  size_t i = 0;
  while (i < g.size() && (is_digit(g[i]) || g[i] == '/' || g[i] == '_')) ++i;
  if (i > 0 && i + 1 < g.size() && g[i] == ':' && g[i + 1] == ' ' &&
      g.substr(0, i).find('/') != npos) {
    g.remove_prefix(i + 2);
  }
  const size_t comment = g.find("  #");
  if (comment != npos) g = g.substr(0, comment);
  const size_t advice = g.find(". Guard failed on");
  if (advice != npos) {
    if (hint) *hint = clip(g.substr(advice + 2));
    g = g.substr(0, advice);
  }
  return clip(g);
}

// First element of a Python list literal of strings: "['a', 'b']" or "[['a'], ['b']]" -> a.
std::string first_list_item(string_view s) {
  const size_t q = s.find_first_of("'\"");
  if (q == npos) return clip(s);
  const char quote = s[q];
  const size_t end = s.find(quote, q + 1);
  return clip(s.substr(q + 1, end == npos ? npos : end - q - 1));
}

// The first op name in a line: aten.foo.default, npu.npu_bar, torch.ops.x.y -> as written.
std::string op_token(string_view s) {
  static const char* const kPrefixes[] = {"torch.ops.", "aten.", "npu.", "prims.",
                                          "_c10d_functional."};
  for (const char* p : kPrefixes) {
    size_t k = s.find(p);
    while (k != npos && k > 0 &&
           (std::isalnum(static_cast<unsigned char>(s[k - 1])) || s[k - 1] == '_')) {
      k = s.find(p, k + 1);
    }
    if (k == npos) continue;
    size_t e = k;
    while (e < s.size() &&
           (std::isalnum(static_cast<unsigned char>(s[e])) || s[e] == '_' || s[e] == '.')) {
      ++e;
    }
    while (e > k && s[e - 1] == '.') --e;
    return std::string(s.substr(k, e - k));
  }
  return {};
}

// The builtin or function a reason names, for "{name}" in suggestions.
std::string named_callable(string_view r) {
  auto between = [&](string_view open, char close) -> std::string {
    const size_t k = r.find(open);
    if (k == npos) return {};
    const size_t s = k + open.size();
    const size_t e = r.find(close, s);
    if (e == npos || e == s || e - s > 80) return {};
    return std::string(r.substr(s, e - s));
  };
  if (auto n = between("BuiltinVariable(", ')'); !n.empty()) return "`" + n + "`";
  if (auto n = between("builtin: ", ' '); !n.empty()) return "`" + n + "`";
  if (auto n = between("slot wrapper '", '\''); !n.empty()) {
    const std::string owner = between("of '", '\'');
    return "`" + (owner.empty() ? n : owner + "." + n) + "`";
  }
  if (auto n = between("skip function ", ' '); !n.empty()) return "`" + n + "`";
  if (auto n = between("qualname: ", ','); !n.empty()) return "`" + n + "`";
  if (auto n = between("call_function ", ' '); !n.empty()) return "`" + n + "`";
  if (auto n = between("`", '`'); !n.empty()) return "`" + n + "`";
  return "the call";
}

std::string fill_name(const std::string& text, const std::string& name) {
  const size_t k = text.find("{name}");
  if (k == std::string::npos) return text;
  std::string out = text;
  out.replace(k, 6, name);
  return out;
}

struct LineParts {
  int rank = -1;
  string_view key;       // the logging header (+ compile id, artifact) of this record's lines
  string_view cid;       // compile id "1/3", or empty
  string_view artifact;  // "__graph_breaks", "__recompiles", "__perf_hints"... or empty
  string_view body;
  bool has_header = false;
  bool warning = false;   // the header says WARNING/ERROR level
  bool inductor = false;  // the header names torch._inductor
};

bool level_word(string_view s, size_t* len, bool* warning) {
  static const std::pair<const char*, bool> kLevels[] = {
      {"DEBUG", false}, {"INFO", false}, {"WARNING", true}, {"ERROR", true}, {"CRITICAL", true}};
  for (const auto& [word, warn] : kLevels) {
    if (starts_with(s, word)) {
      *len = std::strlen(word);
      *warning = warn;
      return true;
    }
  }
  return false;
}

// Splits the prefixes torch's logging puts on every line of a message:
//   [rank1]:W0906 20:38:55.305000 5696 torch/_dynamo/variables/tensor.py:1047] [7/0] [__x] body
//   [2023-11-06 14:54:08,549] [0/0] torch._dynamo.guards.__recompiles: [DEBUG] body
//   [47/0] [__graph_breaks] body      (pasted with the header cut off)
LineParts split_prefix(string_view line) {
  LineParts p;
  string_view s = line;
  if (starts_with(s, "[rank")) {
    size_t i = 5;
    int r = 0;
    while (i < s.size() && is_digit(s[i]) && r < 1000000) r = r * 10 + (s[i++] - '0');
    if (i > 5 && i + 1 < s.size() && s[i] == ']' && s[i + 1] == ':') {
      p.rank = r;
      s.remove_prefix(i + 2);
    }
  }
  const string_view start = s;
  const bool glog = s.size() > 22 && (s[0] == 'V' || s[0] == 'I' || s[0] == 'W' || s[0] == 'E' ||
                                      s[0] == 'D' || s[0] == 'C');
  if (glog && is_digit(s[1]) && is_digit(s[4]) && s[5] == ' ' && is_digit(s[6]) && s[8] == ':') {
    const size_t close = s.find(']', 14);
    if (close != npos) {
      const string_view src = s.substr(0, close);
      p.inductor = contains(src, "_inductor");
      p.warning = s[0] == 'W' || s[0] == 'E' || s[0] == 'C';
      p.has_header = true;
      s.remove_prefix(close + 1);
      if (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    }
  } else {
    const size_t k = s.substr(0, kHeaderScan).find(": [");
    size_t len = 0;
    bool warning = false;
    if (k != npos && level_word(s.substr(k + 3), &len, &warning) &&
        s.substr(k + 3 + len, 1) == "]") {
      const string_view header = s.substr(0, k);
      const size_t name_start = header.rfind(' ');
      const string_view logger = header.substr(name_start == npos ? 0 : name_start + 1);
      if (starts_with(logger, "torch")) {  // torch._dynamo..., torch._inductor..., torchdynamo
        p.inductor = contains(logger, "_inductor");
        const size_t art = logger.rfind(".__");
        if (art != npos) p.artifact = logger.substr(art + 1);
        const size_t cid_open = header.find(" [");
        if (cid_open != npos && cid_open + 2 < header.size() && is_digit(header[cid_open + 2])) {
          const size_t cid_close = header.find(']', cid_open);
          const string_view cid = cid_close == npos
                                      ? string_view()
                                      : header.substr(cid_open + 2, cid_close - cid_open - 2);
          if (cid.find('/') != npos) p.cid = cid;
        }
        p.warning = warning;
        p.has_header = true;
        s.remove_prefix(k + 4 + len);
        if (!s.empty() && s.front() == ' ') s.remove_prefix(1);
      }
    }
  }
  // Compile id and artifact tags, with or without the header in front of them.
  if (s.size() >= 5 && s[0] == '[' && is_digit(s[1])) {
    const size_t close = s.find(']');
    if (close != npos && close < 24 && s.substr(1, close - 1).find('/') != npos) {
      p.cid = s.substr(1, close - 1);
      p.has_header = true;
      s.remove_prefix(close + 1);
      if (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    }
  }
  if (starts_with(s, "[__")) {
    const size_t close = s.find(']');
    if (close != npos && close < 48) {
      p.artifact = s.substr(1, close - 1);
      p.has_header = true;
      s.remove_prefix(close + 1);
      if (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    }
  }
  p.key = start.substr(0, start.size() - s.size());
  // "...] [7/0]" and "...] [7/0] text" are lines of one message.
  while (!p.key.empty() && p.key.back() == ' ') p.key.remove_suffix(1);
  p.body = s;
  return p;
}

struct Frame {
  std::string file;
  size_t line = 0;
  std::string function;
  std::string code;
  bool valid() const { return !file.empty(); }
};

// `File "x.py", line 12, in fn` -> frame; false if the text is not a frame line.
bool parse_frame(string_view t, Frame* f) {
  t = ltrim(t);
  if (starts_with(t, "File \"")) {
    const size_t q = t.find('"', 6);
    if (q == npos) return false;
    f->file = std::string(t.substr(6, q - 6));
    const size_t l = t.find(", line ", q);
    f->line = l == npos ? 0 : parse_size(t.substr(l + 7));
    const size_t in = t.find(", in ", q);
    f->function = in == npos ? std::string() : clip(t.substr(in + 5));
    f->code.clear();
    return true;
  }
  // str(FrameSummary): <FrameSummary file x.py, line 12 in fn>
  if (starts_with(t, "<FrameSummary file ")) {
    const size_t l = t.find(", line ");
    if (l == npos) return false;
    f->file = std::string(t.substr(19, l - 19));
    f->line = parse_size(t.substr(l + 7));
    const size_t in = t.find(" in ", l);
    string_view fn = in == npos ? string_view() : t.substr(in + 4);
    if (!fn.empty() && fn.back() == '>') fn.remove_suffix(1);
    f->function = clip(fn);
    f->code.clear();
    return true;
  }
  return false;
}

using Place = detail::LogPlace;

json null_if_zero(size_t v) { return v == 0 ? json(nullptr) : json(v); }

}  // namespace

// ---- advice table --------------------------------------------------------------------------

namespace {

std::vector<DynamoAdvice::Entry> parse_entries(const YAML::Node& node, const std::string& where) {
  if (!node || !node.IsSequence() || node.size() == 0) {
    throw std::runtime_error(where + " must be a non-empty list");
  }
  std::vector<DynamoAdvice::Entry> out;
  for (const auto& item : node) {
    DynamoAdvice::Entry e;
    e.id = item["id"].as<std::string>();
    e.title = item["title"].as<std::string>();
    e.suggestion = item["suggestion"].as<std::string>();
    for (const auto& m : item["match"]) e.match.push_back(detail::to_lower(m.as<std::string>()));
    out.push_back(std::move(e));
  }
  if (!out.back().match.empty()) {
    throw std::runtime_error(where +
                             ": the last entry must have an empty 'match' (it catches "
                             "everything the others do not)");
  }
  return out;
}

const DynamoAdvice::Entry& first_match(const std::vector<DynamoAdvice::Entry>& entries,
                                       string_view lower) {
  for (const auto& e : entries) {
    for (const auto& m : e.match) {
      if (contains(lower, m)) return e;
    }
  }
  return entries.back();
}

}  // namespace

DynamoAdvice::DynamoAdvice(string_view yaml, const std::string& source) {
  try {
    const YAML::Node root = YAML::Load(std::string(yaml));
    if (!root["version"] || root["version"].as<int>() != 1) {
      throw std::runtime_error("'version: 1' is required");
    }
    graph_breaks_ = parse_entries(root["graph_breaks"], "graph_breaks");
    guards_ = parse_entries(root["guards"], "guards");
    cache_limit_ = root["cache_limit"].as<std::string>();
  } catch (const std::exception& e) {
    throw std::runtime_error("advice file " + source + ": " + e.what() +
                             ": fix the file (format in plugins/npu-graph/data/README.md)");
  }
}

const DynamoAdvice& DynamoAdvice::builtin() {
  static const DynamoAdvice kAdvice(embedded_file("dynamo_advice.yaml"),
                                    "npu-graph:data/dynamo_advice.yaml");
  return kAdvice;
}

const DynamoAdvice::Entry& DynamoAdvice::graph_break(string_view lower_text) const {
  return first_match(graph_breaks_, lower_text);
}

const DynamoAdvice::Entry& DynamoAdvice::guard(string_view lower_text) const {
  return first_match(guards_, lower_text);
}

// ---- the reader ----------------------------------------------------------------------------

struct DynamoLogReader::State {
  enum class Kind { kNone, kGraphBreak, kRecompile, kLimit, kFallback, kSkip, kPerfHint };

  // One message being read: its lines share a logging header, or follow it unprefixed.
  struct Record {
    Kind kind = Kind::kNone;
    std::string key;
    bool headed = false;
    size_t lines = 0;
    Place where;
    std::string cid;
    // graph break
    std::string reason, explanation, context, url, gb_id;
    std::vector<std::string> hints;
    bool duplicate = false, fatal = false, item = false, internal_tb = false;
    bool expect_gb_type = false, expect_code = false;
    Frame head, last, last_user;
    // recompile, limit, skip
    std::string function, file, guard, guard_hint, limit_name;
    size_t line = 0, guards = 0, limit = 0;
    bool expect_frame = false;
    // fallback
    std::string op, fb_kind;
  };

  struct Site {
    Frame loc;
    std::string reason, gb_type, gb_id, url, explanation, context;
    std::vector<std::string> hints;
    size_t count = 0, duplicates = 0, fatal = 0;
    std::set<int> ranks;
    Place first;
    size_t order = 0;
  };
  struct GuardStat {
    std::string example;
    size_t count = 0;
  };
  struct Function {
    std::string function, file;
    size_t line = 0, recompiles = 0, limit_hits = 0, limit = 0, other_guards = 0;
    bool fatal = false;
    std::map<std::string, GuardStat> guards;  // by guard pattern (numbers as #)
    Place first;
    size_t order = 0;
  };
  struct Event {
    std::string kind, function, file, cid, guard, guard_hint, limit_name, frame_key;
    size_t line = 0, guards = 0, limit = 0;
    bool fatal = false;
    Place where;
  };
  struct Counted {
    std::string a, b, c;  // fallback: op, kind; hint: text; skip: function, file, reason ...
    size_t line = 0, count = 0, order = 0;
    std::string level;
    Place first;
  };

  State(const DynamoLimits& l, const DynamoAdvice& a) : limits(l), advice(a) {}

  const DynamoLimits limits;
  const DynamoAdvice& advice;

  std::string path;
  int file_rank = -1;
  size_t file_index = 0;
  size_t file_messages = 0;
  size_t line_no = 0;
  const std::string* timestamp = nullptr;
  string_view raw;  // the current line

  std::map<int, Record> streams;

  std::unordered_map<std::string, Site> sites;
  std::unordered_map<std::string, std::string> site_by_headline;  // "file:line" -> site key
  size_t graph_breaks = 0, untracked_sites = 0;

  std::unordered_map<std::string, Function> functions;
  std::unordered_map<std::string, std::string> frame_function;  // frame key -> function key
  std::vector<Event> events;
  size_t recompiles = 0, limit_hits = 0, untracked_functions = 0;
  // The file's last limit message: its function key, and its index in `events` (-1 when the
  // event list was already full).
  std::string last_limit_function;
  long last_limit_event = -1;

  std::unordered_map<std::string, Counted> fallbacks, hints, skips, torchair;
  size_t fallback_total = 0, hint_total = 0, skip_total = 0, torchair_total = 0;
  size_t ge_compiles = 0, untracked_other = 0;
  size_t next_order = 0;

  Place place(int rank) const {
    std::string ts = extract_timestamp(raw);
    if (ts.empty() && timestamp) ts = *timestamp;
    return Place{path, rank, line_no, std::move(ts), detail::clip(raw)};
  }

  int rank_of(const LineParts& p) const { return p.rank >= 0 ? p.rank : file_rank; }

  std::string frame_key(int rank, const std::string& cid) const {
    return std::to_string(file_index) + ":" + std::to_string(rank) + ":" + frame_of(cid);
  }

  // ---- line dispatch -----------------------------------------------------------------------

  bool on_line(string_view line) {
    raw = line;
    const LineParts p = split_prefix(line);
    Record& rec = stream(p.rank);
    handle(rec, p);
    return (rec.kind == Kind::kGraphBreak && !rec.fatal) || rec.kind == Kind::kRecompile ||
           rec.kind == Kind::kPerfHint;
  }

  void handle(Record& rec, const LineParts& p) {
    if (rec.kind != Kind::kNone) {
      // A line with another header starts another message. An unprefixed line may continue
      // the open one (plain Python logging prefixes only a message's first line); one that
      // the open message does not explain ends it.
      if (p.has_header && !(rec.headed && rec.key == p.key)) {
        close(rec);
      } else if (!p.has_header && ++rec.lines > kBareRecordLines) {
        close(rec);
      } else if (continue_record(rec, p)) {
        return;
      } else {
        close(rec);
      }
    }
    start(rec, p);
  }

  Record& stream(int rank) {
    auto it = streams.find(rank);
    if (it != streams.end()) return it->second;
    if (streams.size() >= kMaxStreams) return streams.begin()->second;
    return streams[rank];
  }

  void open(Record& rec, Kind kind, const LineParts& p) {
    rec = Record();
    rec.kind = kind;
    rec.key = std::string(p.key);
    rec.headed = p.has_header;
    rec.cid = std::string(p.cid);
    rec.where = place(rank_of(p));
    ++file_messages;
  }

  // ---- starting a message ------------------------------------------------------------------

  void start(Record& rec, const LineParts& p) {
    const string_view t = ltrim(p.body);
    if (t.empty()) return;
    // A CANN plog line ("[INFO] RUNTIME(4101,python3):..."), the bulk of a big NPU log, can
    // only be a torchair or GE message: skip the other checks.
    if (t.front() == '[' && !p.has_header) {
      const size_t close = t.find("] ");
      if (close != npos && close < 10) {
        const string_view module = t.substr(close + 2, 24);
        const size_t paren = module.find('(');
        if (paren != npos && module.substr(0, paren).find(' ') == npos) {
          if (starts_with(module, "TORCHAIR(") || starts_with(module, "GE(")) start_torchair(p, t);
          return;
        }
      }
    }
    if (start_graph_break(rec, p, t)) return;
    if (start_recompile(rec, p, t)) return;
    if (start_fallback(rec, p, t)) return;
    if (start_skip(rec, p, t)) return;
    if (start_torchair(p, t)) return;
    if (p.artifact == "__perf_hints" || starts_with(t, "skipping cudagraphs due to") ||
        starts_with(t, "reduction over non-contiguous dims") ||
        starts_with(t, "Reduction over non-contiguous dims") ||
        starts_with(t, "possibly bad tiling") || contains(t, "will be copied during cudagraphs")) {
      open(rec, Kind::kPerfHint, p);
      count(&hints, &hint_total, detail::normalize_pattern(t, 200), clip(t), "", 0, rec.where);
    }
  }

  bool start_graph_break(Record& rec, const LineParts& p, string_view t) {
    if (starts_with(t, "Graph break")) {
      const string_view rest = t.substr(11);
      if (starts_with(rest, " in user code at ")) {
        open(rec, Kind::kGraphBreak, p);
        split_location(rest.substr(17), &rec.head.file, &rec.head.line);
        return true;
      }
      static const string_view kDup =
          " (user stack suppressed due to duplicate graph break) in user code at ";
      if (starts_with(rest, kDup)) {
        open(rec, Kind::kGraphBreak, p);
        rec.duplicate = true;
        split_location(rest.substr(kDup.size()), &rec.head.file, &rec.head.line);
        return true;
      }
      if (starts_with(rest, " from `Tensor.item()`")) {
        open(rec, Kind::kGraphBreak, p);
        rec.item = true;
        rec.reason = "Graph break from `Tensor.item()`";
        return true;
      }
      if (starts_with(rest, ": ")) {
        const string_view r = rest.substr(2);
        open(rec, Kind::kGraphBreak, p);
        const size_t at = r.find("from user code at");
        if (at == npos) {
          rec.reason = clip(r);
        } else {
          std::string reason = clip(r.substr(0, at));
          // "skip: from user code at" (torch 2.3) names no reason; the exception below does.
          if (reason != "skip:") rec.reason = reason;
          string_view tail = r.substr(at + 17);
          if (!tail.empty() && tail.front() == ':') tail.remove_prefix(1);
          Frame f;
          if (parse_frame(tail, &f)) add_frame(rec, f);
        }
        return true;
      }
      return false;
    }
    if (starts_with(t, "Break Reason ") && t.size() > 13 && is_digit(t[13])) {
      open(rec, Kind::kGraphBreak, p);  // torch._dynamo.explain() output
      return true;
    }
    if (starts_with(t, "Unsupported break in user code at ")) {
      std::string file;
      size_t line = 0;
      const string_view rest = t.substr(34);
      split_location(rest.substr(0, rest.find(" (details")), &file, &line);
      Record dup;
      open(dup, Kind::kGraphBreak, p);
      dup.duplicate = true;
      dup.head.file = file;
      dup.head.line = line;
      close(dup);
      return true;
    }
    if (contains(t, "capture_scalar_outputs = True") && starts_with(t, "torch._dynamo.config")) {
      open(rec, Kind::kGraphBreak, p);
      rec.item = true;
      rec.reason = kItemInferred;
      return true;
    }
    // fullgraph=True: the break is raised. Only a bare exception line counts; the same text
    // inside a debug record's traceback repeats a break already logged.
    if (starts_with(t, kUnsupported) && (!p.has_header || p.warning)) {
      open(rec, Kind::kGraphBreak, p);
      rec.fatal = true;
      rec.reason = clip(t.substr(kUnsupported.size()));
      return true;
    }
    return false;
  }

  bool start_recompile(Record& rec, const LineParts& p, string_view t) {
    if (starts_with(t, "Recompiling function ")) {
      open(rec, Kind::kRecompile, p);
      const string_view rest = t.substr(21);
      const size_t in = rest.find(" in ");
      rec.function = clip(rest.substr(0, in));
      if (in != npos) split_location(rest.substr(in + 4), &rec.file, &rec.line);
      return true;
    }
    if (starts_with(t, "triggered by the following guard failure")) {
      open(rec, Kind::kRecompile, p);  // the "Recompiling function" line is not in the log
      inline_guard(rec, t);
      return true;
    }
    if (starts_with(t, "Detected recompile when torch.compile stance is")) {
      open(rec, Kind::kRecompile, p);
      rec.fatal = true;
      rec.function = quoted_after(t, "function name: '");
      rec.file = quoted_after(t, "filename: '");
      const size_t k = t.find("line number: ");
      rec.line = k == npos ? 0 : parse_size(t.substr(k + 13));
      return true;
    }
    size_t k = t.find("hit config.");
    if (k != npos) {
      const size_t open_paren = t.find(" (", k);
      if (open_paren == npos) return false;
      open(rec, Kind::kLimit, p);
      rec.limit_name = std::string(t.substr(k + 11, open_paren - k - 11));
      rec.limit = parse_size(t.substr(open_paren + 2));
      return true;
    }
    k = t.find("hit recompilation cache limit (");
    if (k != npos) {
      // torchdynamo (2022): everything on one line.
      open(rec, Kind::kLimit, p);
      rec.limit_name = "cache_size_limit";
      rec.limit = parse_size(t.substr(k + 31));
      rec.function = quoted_after(t, "for function '");
      const size_t loc = t.find("' (", k);
      if (loc != npos) {
        const size_t end = t.find("),", loc);
        split_location(t.substr(loc + 3, end == npos ? npos : end - loc - 3), &rec.file, &rec.line);
      }
      const size_t g = t.find("guard failures: ");
      if (g != npos) set_guard(rec, first_list_item(t.substr(g + 16)));
      return true;
    }
    if (contains(t, "FailOnRecompileLimitHit") ||
        (contains(t, "_limit reached") && (contains(t, "recompile") || contains(t, "cache")))) {
      // The exception raised for the limit message just read: mark that one.
      if (!last_limit_function.empty()) {
        if (last_limit_event >= 0) events[static_cast<size_t>(last_limit_event)].fatal = true;
        auto it = functions.find(last_limit_function);
        if (it != functions.end()) it->second.fatal = true;
        return true;
      }
      open(rec, Kind::kLimit, p);
      rec.fatal = true;
      rec.limit_name = contains(t, "recompile_limit") ? "recompile_limit" : "cache_size_limit";
      return true;
    }
    return false;
  }

  static std::string quoted_after(string_view t, string_view marker) {
    const size_t k = t.find(marker);
    if (k == npos) return {};
    const size_t s = k + marker.size();
    const size_t e = t.find('\'', s);
    return clip(t.substr(s, e == npos ? npos : e - s));
  }

  bool start_fallback(Record& rec, const LineParts& p, string_view t) {
    if (starts_with(t, "Creating implicit fallback for")) {
      open(rec, Kind::kFallback, p);
      rec.fb_kind = "implicit fallback (no inductor lowering)";
      return true;
    }
    if (starts_with(t, "MissingOperatorWith") || contains(t, ".MissingOperatorWith")) {
      open(rec, Kind::kFallback, p);
      rec.fb_kind = "missing lowering (compile error)";
      rec.op = op_token(t);
      return true;
    }
    std::string op, kind;
    if (starts_with(t, "Using FallbackKernel: ")) {
      op = clip(t.substr(22));
      kind = "fallback kernel";
    } else if (contains(t, "make_fallback(")) {
      const size_t k = t.find("make_fallback(");
      const size_t e = t.find(')', k);
      op = clip(t.substr(k + 14, e == npos ? npos : e - k - 14));
      kind = "make_fallback although a decomposition exists";
    } else if (contains(t, kNpuFallback)) {
      op = clip(t.substr(t.find(kNpuFallback) + std::strlen(kNpuFallback)));
      kind = "NPU_INDUCTOR_FALLBACK_LIST";
    } else if (starts_with(t, "No choices for GEMM")) {
      op = "mm/bmm (GEMM)";
      kind = "no autotune choice, ATen fallback";
    } else if (contains(t, "not lowered") ||
               (p.inductor && p.warning && (contains(t, "fallback") || contains(t, "Fallback")))) {
      op = op_token(t);
      if (op.empty()) op = detail::normalize_pattern(ops::trim_view(t), 120);
      kind = contains(t, "not lowered") ? "not lowered" : "inductor fallback warning";
    } else {
      return false;
    }
    open(rec, Kind::kFallback, p);
    rec.op = op;
    rec.fb_kind = kind;
    return true;
  }

  bool start_skip(Record& rec, const LineParts& p, string_view t) {
    if (starts_with(t, "Skipping frame because there is a graph break in a for/while loop")) {
      open(rec, Kind::kSkip, p);
      rec.reason = "graph break inside a for/while loop: the whole frame runs eagerly";
      rec.expect_frame = true;
      return true;
    }
    if (starts_with(t, "WON'T CONVERT ")) {
      // WON'T CONVERT forward /path/model.py line 12
      open(rec, Kind::kSkip, p);
      const string_view rest = t.substr(14);
      const size_t sp = rest.find(' ');
      rec.function = clip(rest.substr(0, sp));
      if (sp != npos) {
        const string_view loc = rest.substr(sp + 1);
        const size_t ln = loc.rfind(" line ");
        rec.file = clip(loc.substr(0, ln));
        rec.line = ln == npos ? 0 : parse_size(loc.substr(ln + 6));
      }
      rec.reason = "dynamo failed on the frame and ran it eagerly";
      return true;
    }
    if (starts_with(t, "torch.compile intentionally decided to skip the frame")) {
      open(rec, Kind::kSkip, p);
      const size_t f = t.find("the frame ");
      const string_view rest = f == npos ? string_view() : t.substr(f + 10);
      const size_t paren = rest.find(" (");
      rec.function = clip(rest.substr(0, paren));
      if (paren != npos) {
        const string_view loc = rest.substr(paren + 2);
        const size_t ln = loc.rfind(" line ");
        rec.file = clip(loc.substr(0, ln));
        rec.line = ln == npos ? 0 : parse_size(loc.substr(ln + 6));
      }
      rec.reason = "skipped by dynamo";
      return true;
    }
    return false;
  }

  bool start_torchair(const LineParts& p, string_view t) {
    if (contains(t, "start compile graph:") && contains(raw, "TORCHAIR")) {
      ++ge_compiles;
      return true;
    }
    const bool torchair = contains(t, "TORCHAIR(");
    const bool ge = starts_with(t, "[ERROR] GE(") || starts_with(t, "[WARNING] GE(");
    if (torchair || ge) {
      const bool error = starts_with(t, "[ERROR]");
      if (!error && !starts_with(t, "[WARNING]")) return false;
      // [WARNING] TORCHAIR(1,python):2024-05-01 10:00:00.123.456 [fx2ge_converter.py:1483]4567 msg
      string_view msg = t;
      const size_t src = t.find(" [", t.find(')'));
      const size_t src_end = src == npos ? npos : t.find(']', src);
      if (src_end != npos) {
        msg = t.substr(src_end + 1);
        while (!msg.empty() && is_digit(msg.front())) msg.remove_prefix(1);
        msg = ltrim(msg);
      }
      add_torchair(p, torchair ? "torchair" : "GE", error ? "error" : "warning", msg);
      return true;
    }
    if (contains(t, "ge_converter is not")) {
      add_torchair(p, "torchair", "error", t);
      return true;
    }
    return false;
  }

  void add_torchair(const LineParts& p, const char* source, const char* level, string_view msg) {
    ++file_messages;
    std::string kind = "other";
    if (contains(msg, "onverter") || contains(msg, "AscendIR") || contains(msg, "Cannot convert")) {
      kind = "converter";
    } else if (contains(msg, "ompile")) {
      kind = "compile";
    }
    std::string key = std::string(source) + "|" + detail::normalize_pattern(msg, 200);
    const Place where = place(rank_of(p));
    count(&torchair, &torchair_total, key, clip(msg), kind, 0, where, source, level);
  }

  // ---- continuing a message ----------------------------------------------------------------

  // `p.has_header` here means the line carries the open message's own header: it is part of
  // the message whatever it says.
  bool continue_record(Record& rec, const LineParts& p) {
    const string_view body = p.body;
    const string_view t = ltrim(body);
    switch (rec.kind) {
      case Kind::kGraphBreak:
        return continue_graph_break(rec, body, t, p.has_header);
      case Kind::kRecompile:
      case Kind::kLimit:
        return continue_recompile(rec, t, p.has_header);
      case Kind::kFallback:
        if (starts_with(t, "target: ")) {
          if (rec.op.empty()) rec.op = clip(t.substr(8));
          return true;
        }
        return starts_with(t, "args[") || starts_with(t, "kwargs:") || t.empty() ||
               starts_with(t, "Found from") || starts_with(body, " ");
      case Kind::kSkip:
        if (rec.expect_frame) {
          Frame f;
          if (parse_frame(t, &f)) {
            rec.function = f.function;
            rec.file = f.file;
            rec.line = f.line;
            rec.expect_frame = false;
            return true;
          }
        }
        if (starts_with(t, "Reason: ")) {
          rec.reason = clip(t.substr(8));
          return true;
        }
        if (is_exception_line(t)) rec.reason = clip(t);
        return p.has_header || t.empty() || starts_with(body, " ") || starts_with(t, "due to") ||
               starts_with(t, "Traceback") || is_exception_line(t);
      case Kind::kPerfHint:
        return p.has_header;
      case Kind::kNone:
        break;
    }
    return false;
  }

  static bool is_exception_line(string_view t) {
    const size_t colon = t.find(": ");
    if (colon == npos || colon == 0 || colon > 120) return false;
    const string_view name = t.substr(0, colon);
    if (name.find(' ') != npos) return false;
    return contains(name, "Error") || contains(name, "Exception") ||
           contains(name, "Unsupported") || contains(name, "Failed");
  }

  void add_frame(Record& rec, const Frame& f) {
    rec.last = f;
    if (!is_framework_file(f.file)) rec.last_user = f;
    rec.expect_code = true;
  }

  void set_reason(Record& rec, string_view r) {
    r = ops::trim_view(r);
    if (starts_with(r, "Encountered graph break when attempting to trace") ||
        starts_with(r, "Failed to handle graph break gracefully")) {
      rec.context = clip(r);  // the break type follows on the next non-empty line
      rec.expect_gb_type = true;
      return;
    }
    if (starts_with(r, "Unsupported: ")) r.remove_prefix(13);
    rec.reason = clip(r);
  }

  bool continue_graph_break(Record& rec, string_view body, string_view t, bool headed) {
    if (t.empty()) return true;
    if (rec.expect_gb_type && !starts_with(t, "Explanation:") && !starts_with(t, "Hint:")) {
      rec.reason = clip(t);
      rec.expect_gb_type = false;
      return true;
    }
    if (starts_with(t, "Graph Break Reason: ")) {
      set_reason(rec, t.substr(20));
      return true;
    }
    if (starts_with(t, "Reason: ")) {
      if (rec.reason.empty()) set_reason(rec, t.substr(8));
      return true;
    }
    if (starts_with(t, "Explanation: ")) {
      if (rec.explanation.empty()) rec.explanation = clip(t.substr(13));
      return true;
    }
    if (starts_with(t, "Hint: ")) {
      if (rec.hints.size() < kMaxHints) rec.hints.push_back(clip(t.substr(6)));
      return true;
    }
    if (starts_with(t, "Developer debug context:")) {
      rec.context = clip(t.substr(24));
      return true;
    }
    if (starts_with(t, "Higher Order Operator:")) return true;
    const size_t gb = t.find("/gb/gb");
    if (gb != npos || starts_with(t, "For more details about this graph break")) {
      const size_t http = t.find("http");
      if (http != npos) rec.url = clip(t.substr(http));
      if (gb != npos) {
        size_t e = gb + 6;
        while (e < t.size() && is_digit(t[e])) ++e;
        rec.gb_id = std::string(t.substr(gb + 4, e - gb - 4));
      }
      return true;
    }
    if (starts_with(t, "User code traceback:") || starts_with(t, "User Stack:") ||
        starts_with(t, "from user code:")) {
      rec.internal_tb = false;
      return true;
    }
    if (starts_with(t, "Traceback (most recent call last)")) {
      // Only torch's own logging puts a traceback inside a graph-break message (with its
      // prefix on every line); an unprefixed one is the run's own crash.
      if (!headed) return false;
      rec.internal_tb = true;
      rec.expect_code = false;
      return true;
    }
    Frame f;
    if (parse_frame(t, &f)) {
      if (!rec.internal_tb) add_frame(rec, f);
      return true;
    }
    if (starts_with(t, kUnsupported)) {
      if (rec.reason.empty()) set_reason(rec, t.substr(kUnsupported.size()));
      rec.internal_tb = false;
      return true;
    }
    if (contains(t, "capture_scalar_outputs")) {
      if (rec.reason.empty()) rec.reason = kItemInferred;
      rec.item = true;
      return true;
    }
    if (starts_with(t, "Graph break: from user code at") && rec.item) return true;
    if (starts_with(t, "or:") || starts_with(t, "env TORCHDYNAMO") ||
        starts_with(t, "to include these operations")) {
      return true;
    }
    // Indented: the code line under a frame, a continued explanation or context, or a line of
    // the internal traceback.
    if (!body.empty() && (body.front() == ' ' || body.front() == '\t')) {
      if (rec.expect_code && !rec.internal_tb) {
        rec.last.code = clip(t);
        if (rec.last_user.valid() && rec.last_user.file == rec.last.file &&
            rec.last_user.line == rec.last.line) {
          rec.last_user.code = rec.last.code;
        }
        rec.expect_code = false;
      }
      return true;
    }
    return headed;
  }

  void inline_guard(Record& rec, string_view t) {
    // 2.0: "triggered by the following guard failure: L['x'] == 3" on the same line.
    const size_t colon = t.find(':');
    if (colon != npos && colon + 1 < t.size()) {
      const string_view g = ops::trim_view(t.substr(colon + 1));
      if (!g.empty()) set_guard(rec, clean_guard(g, &rec.guard_hint));
    }
  }

  void set_guard(Record& rec, std::string g) {
    ++rec.guards;
    if (rec.guard.empty()) rec.guard = std::move(g);
  }

  bool continue_recompile(Record& rec, string_view t, bool headed) {
    if (t.empty()) return true;
    if (starts_with(t, "triggered by the following guard failure")) {
      inline_guard(rec, t);
      return true;
    }
    if (starts_with(t, "guard ") && contains(t, "failures:")) return true;  // recompiles_verbose
    if (starts_with(t, "- ")) {
      std::string hint;
      std::string g = clean_guard(t, &hint);
      if (rec.guard.empty() && !hint.empty()) rec.guard_hint = hint;
      set_guard(rec, std::move(g));
      return true;
    }
    if (starts_with(t, "function: '")) {
      rec.function = quoted_after(t, "function: '");
      const size_t loc = t.find("' (");
      if (loc != npos) split_location(t.substr(loc + 3), &rec.file, &rec.line);
      return true;
    }
    if (starts_with(t, "last reason: ")) {
      set_guard(rec, clean_guard(t.substr(13), &rec.guard_hint));
      return true;
    }
    if (starts_with(t, "reasons: ")) {
      const string_view r = ops::trim_view(t.substr(9));
      set_guard(rec, r.empty() || r.front() != '[' ? clean_guard(r, &rec.guard_hint)
                                                   : first_list_item(r));
      return true;
    }
    if (starts_with(t, "To log all recompilation reasons") ||
        starts_with(t, "To diagnose recompilation issues")) {
      return true;
    }
    return headed;
  }

  // ---- closing a message: counters only ----------------------------------------------------

  void close(Record& rec) {
    switch (rec.kind) {
      case Kind::kGraphBreak:
        close_graph_break(rec);
        break;
      case Kind::kRecompile:
      case Kind::kLimit:
        close_recompile(rec);
        break;
      case Kind::kFallback: {
        const std::string op = rec.op.empty() ? std::string("(op not named in the log)") : rec.op;
        count(&fallbacks, &fallback_total, op + "|" + rec.fb_kind, op, rec.fb_kind, 0, rec.where);
        break;
      }
      case Kind::kSkip: {
        const std::string key = rec.function + "|" + rec.file + ":" + std::to_string(rec.line);
        Counted* c = count(&skips, &skip_total, key, rec.function, rec.file, rec.line, rec.where);
        if (c && c->level.empty()) c->level = rec.reason;
        break;
      }
      case Kind::kPerfHint:
      case Kind::kNone:
        break;
    }
    rec.kind = Kind::kNone;
  }

  void close_graph_break(Record& rec) {
    ++graph_breaks;
    // Where the user can act: the headline location unless it is inside torch, else the
    // innermost user frame of the stack.
    Frame loc;
    if (rec.head.valid() && !is_framework_file(rec.head.file)) {
      loc = rec.head;
      if (rec.last_user.valid() && rec.last_user.file == loc.file &&
          rec.last_user.line == loc.line) {
        loc = rec.last_user;
      }
    } else if (rec.last_user.valid()) {
      loc = rec.last_user;
    } else if (rec.head.valid()) {
      loc = rec.head;
    } else {
      loc = rec.last;
    }
    // Where dynamo itself says the break is (its headline, else the innermost frame): the
    // place a later duplicate-suppressed message of the same break names.
    const Frame& said = rec.head.valid() ? rec.head : rec.last;
    const std::string headline =
        said.valid() ? said.file + ":" + std::to_string(said.line) : std::string();
    std::string reason =
        rec.reason.empty() ? (rec.context.empty() ? kNoReason : rec.context) : rec.reason;
    std::string key;
    if (rec.duplicate) {
      // A repeated break: dynamo prints only the headline; count it on the site it names.
      auto h = site_by_headline.find(headline);
      if (h != site_by_headline.end()) key = h->second;
    }
    if (key.empty()) {
      key = loc.file + ":" + std::to_string(loc.line) + "|" +
            detail::normalize_pattern(reason == kNoReason ? std::string() : reason, 200);
    }
    auto it = sites.find(key);
    if (it == sites.end()) {
      if (sites.size() >= limits.max_sites) {
        ++untracked_sites;
        return;
      }
      Site s;
      s.loc = loc;
      s.reason = reason;
      if (!rec.explanation.empty()) s.gb_type = reason;
      s.gb_id = rec.gb_id;
      s.url = rec.url;
      s.explanation = rec.explanation;
      s.context = rec.context;
      s.hints = rec.hints;
      s.first = rec.where;
      s.order = next_order++;
      it = sites.emplace(key, std::move(s)).first;
    } else {
      Site& s = it->second;
      if (s.reason == kNoReason && reason != kNoReason) s.reason = reason;
      if (s.gb_id.empty()) s.gb_id = rec.gb_id;
      if (s.url.empty()) s.url = rec.url;
      if (s.explanation.empty()) s.explanation = rec.explanation;
      if (s.hints.empty()) s.hints = rec.hints;
      if (s.loc.code.empty() && s.loc.file == loc.file && s.loc.line == loc.line) {
        s.loc.code = loc.code;
      }
    }
    Site& s = it->second;
    ++s.count;
    if (rec.duplicate) ++s.duplicates;
    if (rec.fatal) ++s.fatal;
    if (s.ranks.size() < kMaxRanks) s.ranks.insert(rec.where.rank);
    if (!headline.empty() && site_by_headline.size() < limits.max_sites) {
      site_by_headline.emplace(headline, it->first);
    }
  }

  static std::string function_key(const std::string& function, const std::string& file, size_t line,
                                  const std::string& frame) {
    if (function.empty()) return "?" + frame;
    return function + "|" + file + ":" + std::to_string(line);
  }

  void close_recompile(Record& rec) {
    const bool limit = rec.kind == Kind::kLimit;
    if (limit) {
      ++limit_hits;
    } else {
      ++recompiles;
    }
    const std::string fkey = rec.cid.empty() ? std::string() : frame_key(rec.where.rank, rec.cid);
    if (!rec.function.empty() && !fkey.empty() && frame_function.size() < limits.max_sites) {
      frame_function.emplace(fkey, function_key(rec.function, rec.file, rec.line, fkey));
    }
    const std::string key = function_key(rec.function, rec.file, rec.line, fkey);
    if (limit) {
      last_limit_function = key;
      last_limit_event = -1;
    }
    if (events.size() < limits.max_events) {
      Event e;
      e.kind = limit ? "cache-limit" : "recompile";
      e.function = rec.function;
      e.file = rec.file;
      e.line = rec.line;
      e.cid = rec.cid;
      e.guard = rec.guard;
      e.guard_hint = rec.guard_hint;
      e.guards = rec.guards;
      e.limit = rec.limit;
      e.limit_name = rec.limit_name;
      e.fatal = rec.fatal;
      e.frame_key = fkey;
      e.where = rec.where;
      events.push_back(std::move(e));
      if (limit) last_limit_event = static_cast<long>(events.size() - 1);
    }
    auto it = functions.find(key);
    if (it == functions.end()) {
      if (functions.size() >= limits.max_sites) {
        ++untracked_functions;
        return;
      }
      Function f;
      f.function = rec.function;
      f.file = rec.file;
      f.line = rec.line;
      f.first = rec.where;
      f.order = next_order++;
      it = functions.emplace(key, std::move(f)).first;
    }
    Function& f = it->second;
    if (limit) {
      ++f.limit_hits;
      f.limit = std::max(f.limit, rec.limit);
    } else {
      ++f.recompiles;
    }
    if (rec.fatal) f.fatal = true;
    if (!rec.guard.empty()) {
      const std::string pattern = detail::normalize_pattern(rec.guard, 200);
      auto g = f.guards.find(pattern);
      if (g == f.guards.end()) {
        if (f.guards.size() >= limits.max_guards_per_function) {
          ++f.other_guards;
          return;
        }
        g = f.guards.emplace(pattern, GuardStat{rec.guard, 0}).first;
      }
      ++g->second.count;
    }
  }

  Counted* count(std::unordered_map<std::string, Counted>* table, size_t* total,
                 const std::string& key, const std::string& a, const std::string& b, size_t line,
                 const Place& where, const std::string& c = {}, const std::string& level = {}) {
    ++*total;
    auto it = table->find(key);
    if (it == table->end()) {
      if (table->size() >= limits.max_sites) {
        ++untracked_other;
        return nullptr;
      }
      Counted n;
      n.a = a;
      n.b = b;
      n.c = c;
      n.line = line;
      n.level = level;
      n.first = where;
      n.order = next_order++;
      it = table->emplace(key, std::move(n)).first;
    }
    ++it->second.count;
    return &it->second;
  }

  void end_file() {
    for (auto& [rank, rec] : streams) close(rec);
    streams.clear();
    last_limit_function.clear();
    last_limit_event = -1;
  }

  json result(size_t top) const;
};

// ---- result --------------------------------------------------------------------------------

namespace {

template <typename T>
std::vector<const T*> ranked(const std::unordered_map<std::string, T>& table,
                             size_t (*count)(const T&)) {
  std::vector<const T*> out;
  out.reserve(table.size());
  for (const auto& kv : table) out.push_back(&kv.second);
  std::sort(out.begin(), out.end(), [count](const T* a, const T* b) {
    if (count(*a) != count(*b)) return count(*a) > count(*b);
    return a->order < b->order;
  });
  return out;
}

std::string loc_text(const std::string& file, size_t line) {
  if (file.empty()) return "(location not in the log)";
  return line == 0 ? file : file + ":" + std::to_string(line);
}

std::string base_name(const std::string& file) {
  const size_t slash = file.find_last_of("/\\");
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

}  // namespace

json DynamoLogReader::State::result(size_t top) const {
  // Recompile events whose function line was not in the log take it from another message of
  // the same frame (same file, rank and frame id of the compile id).
  auto resolve = [&](const std::string& fkey) -> const Function* {
    auto ff = frame_function.find(fkey);
    if (ff == frame_function.end()) return nullptr;
    auto f = functions.find(ff->second);
    return f == functions.end() ? nullptr : &f->second;
  };
  std::unordered_map<std::string, Function> merged;
  for (const auto& [key, f] : functions) {
    std::string target = key;
    if (f.function.empty() && key.size() > 1) {
      if (resolve(key.substr(1))) target = frame_function.at(key.substr(1));
    }
    auto it = merged.find(target);
    if (it == merged.end()) {
      Function copy = f;
      if (target != key) {
        const Function& named = functions.at(target);
        copy.function = named.function;
        copy.file = named.file;
        copy.line = named.line;
      }
      merged.emplace(target, std::move(copy));
      continue;
    }
    Function& m = it->second;
    m.recompiles += f.recompiles;
    m.limit_hits += f.limit_hits;
    m.limit = std::max(m.limit, f.limit);
    m.fatal = m.fatal || f.fatal;
    m.other_guards += f.other_guards;
    if (f.order < m.order) {
      m.order = f.order;
      m.first = f.first;
    }
    for (const auto& [pattern, g] : f.guards) {
      auto mg = m.guards.find(pattern);
      if (mg == m.guards.end()) {
        m.guards.emplace(pattern, g);
      } else {
        mg->second.count += g.count;
      }
    }
  }

  json breaks = json::array();
  const auto sites_ranked = ranked<Site>(sites, [](const Site& s) { return s.count; });
  for (size_t i = 0; i < sites_ranked.size() && i < top; ++i) {
    const Site& s = *sites_ranked[i];
    // The reason (or graph-break type) decides; the explanation only when the reason alone
    // says nothing, because explanations cite unrelated examples ("e.g. _warnings.warn").
    const DynamoAdvice::Entry* cat = &advice.graph_break(detail::to_lower(s.reason));
    if (cat->match.empty()) {
      cat =
          &advice.graph_break(detail::to_lower(s.reason + "\n" + s.explanation + "\n" + s.context));
    }
    json j{{"file", s.loc.file},
           {"line", null_if_zero(s.loc.line)},
           {"function", s.loc.function},
           {"code", s.loc.code},
           {"reason", s.reason},
           {"category", cat->id},
           {"suggestion", fill_name(cat->suggestion, named_callable(s.reason + " " + s.context))},
           {"count", s.count},
           {"suppressed_duplicates", s.duplicates},
           {"fatal", s.fatal > 0},
           {"first", s.first.to_json()}};
    if (!s.gb_type.empty()) j["gb_type"] = s.gb_type;
    if (!s.gb_id.empty()) j["gb_id"] = s.gb_id;
    if (!s.url.empty()) j["doc_url"] = s.url;
    if (!s.explanation.empty()) j["explanation"] = s.explanation;
    if (!s.hints.empty()) j["hints"] = s.hints;
    json ranks = json::array();
    for (int r : s.ranks) ranks.push_back(r < 0 ? json(nullptr) : json(r));
    j["ranks"] = ranks;
    breaks.push_back(std::move(j));
  }

  json recompiled = json::array();
  std::vector<const Function*> fns;
  for (const auto& kv : merged) fns.push_back(&kv.second);
  std::sort(fns.begin(), fns.end(), [](const Function* a, const Function* b) {
    const size_t ca = a->recompiles + a->limit_hits, cb = b->recompiles + b->limit_hits;
    if (ca != cb) return ca > cb;
    return a->order < b->order;
  });
  for (size_t i = 0; i < fns.size() && i < top; ++i) {
    const Function& f = *fns[i];
    std::vector<std::pair<std::string, size_t>> guards;
    for (const auto& [pattern, g] : f.guards) guards.emplace_back(g.example, g.count);
    std::stable_sort(guards.begin(), guards.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    json gj = json::array();
    for (size_t k = 0; k < guards.size() && k < 5; ++k) {
      gj.push_back({{"guard", guards[k].first},
                    {"count", guards[k].second},
                    {"kind", advice.guard(detail::to_lower(guards[k].first)).id}});
    }
    std::string suggestion = guards.empty()
                                 ? advice.guard("").suggestion
                                 : advice.guard(detail::to_lower(guards.front().first)).suggestion;
    if (f.limit_hits > 0) suggestion += " " + advice.cache_limit();
    recompiled.push_back({{"function", f.function.empty() ? "(not in the log)" : f.function},
                          {"file", f.file},
                          {"line", null_if_zero(f.line)},
                          {"recompiles", f.recompiles},
                          {"limit_hits", f.limit_hits},
                          {"limit", null_if_zero(f.limit)},
                          {"fatal", f.fatal},
                          {"guards", gj},
                          {"other_guards", f.other_guards},
                          {"suggestion", suggestion},
                          {"first", f.first.to_json()}});
  }

  json event_list = json::array();
  for (const Event& e : events) {
    std::string function = e.function, file = e.file;
    size_t line = e.line;
    if (function.empty() && !e.frame_key.empty()) {
      if (const Function* f = resolve(e.frame_key)) {
        function = f->function;
        file = f->file;
        line = f->line;
      }
    }
    json j{{"kind", e.kind},
           {"function", function},
           {"file", file},
           {"line", null_if_zero(line)},
           {"compile_id", e.cid},
           {"guard", e.guard},
           {"guards_listed", e.guards},
           {"fatal", e.fatal},
           {"where", e.where.to_json()}};
    j["limit"] = e.kind == "cache-limit" ? null_if_zero(e.limit) : json(nullptr);
    if (!e.limit_name.empty()) j["limit_name"] = e.limit_name;
    if (!e.guard_hint.empty()) j["guard_hint"] = e.guard_hint;
    event_list.push_back(std::move(j));
  }

  auto counted_list = [&](const std::unordered_map<std::string, Counted>& table,
                          const std::function<json(const Counted&)>& make) {
    json out = json::array();
    const auto list = ranked<Counted>(table, [](const Counted& c) { return c.count; });
    for (size_t i = 0; i < list.size() && i < top; ++i) out.push_back(make(*list[i]));
    return out;
  };
  const json fb = counted_list(fallbacks, [](const Counted& c) {
    return json{{"op", c.a}, {"kind", c.b}, {"count", c.count}, {"first", c.first.to_json()}};
  });
  const json ph = counted_list(hints, [](const Counted& c) {
    return json{{"hint", c.a}, {"count", c.count}, {"first", c.first.to_json()}};
  });
  const json sk = counted_list(skips, [](const Counted& c) {
    return json{{"function", c.a},   {"file", c.b},      {"line", null_if_zero(c.line)},
                {"reason", c.level}, {"count", c.count}, {"first", c.first.to_json()}};
  });
  const json ta = counted_list(torchair, [](const Counted& c) {
    return json{{"source", c.c},  {"kind", c.b},      {"level", c.level},
                {"message", c.a}, {"count", c.count}, {"first", c.first.to_json()}};
  });

  // What to do, most frequent first: the engineer's to-do list.
  json actions = json::array();
  for (size_t i = 0; i < breaks.size() && i < 5; ++i) {
    const json& b = breaks[i];
    actions.push_back(
        "graph break x" + std::to_string(b["count"].get<size_t>()) + " at " +
        loc_text(b["file"].get<std::string>(), b["line"].is_null() ? 0 : b["line"].get<size_t>()) +
        " (" + b["category"].get<std::string>() +
        (b["fatal"].get<bool>() ? ", raised under fullgraph=True" : "") +
        "): " + b["suggestion"].get<std::string>());
  }
  for (size_t i = 0; i < recompiled.size() && i < 3; ++i) {
    const json& f = recompiled[i];
    std::string what =
        f["function"].get<std::string>() + " (" +
        loc_text(f["file"].get<std::string>(), f["line"].is_null() ? 0 : f["line"].get<size_t>()) +
        ")";
    std::string counts = std::to_string(f["recompiles"].get<size_t>()) + " recompile(s)";
    if (f["limit_hits"].get<size_t>() > 0) {
      counts += ", cache limit hit " + std::to_string(f["limit_hits"].get<size_t>()) + "x";
    }
    std::string guard = f["guards"].empty() ? std::string()
                                            : ", first failing guard `" +
                                                  f["guards"][0]["guard"].get<std::string>() + "`";
    actions.push_back("recompilation of " + what + ": " + counts + guard + ": " +
                      f["suggestion"].get<std::string>());
  }
  if (!fb.empty()) {
    std::string ops;
    for (size_t i = 0; i < fb.size() && i < 5; ++i) {
      ops += (i ? ", " : "") + fb[i]["op"].get<std::string>();
    }
    actions.push_back(std::to_string(fallback_total) + " inductor fallback message(s) (" + ops +
                      "): these ops run as eager kernels between fused ones; check whether the "
                      "NPU backend lowers them (NPU_INDUCTOR_FALLBACK_LIST forces fallbacks) or "
                      "whether a decomposition exists");
  }
  if (!sk.empty()) {
    actions.push_back(std::to_string(skip_total) + " frame(s) skipped entirely (first: " +
                      sk[0]["function"].get<std::string>() + " at " +
                      loc_text(sk[0]["file"].get<std::string>(),
                               sk[0]["line"].is_null() ? 0 : sk[0]["line"].get<size_t>()) +
                      ", " + sk[0]["reason"].get<std::string>() +
                      "): a graph break inside a loop or an error makes dynamo run the whole "
                      "function eagerly; move the break out of the loop");
  }
  for (const json& m : ta) {
    if (m["kind"] == "converter") {
      actions.push_back("torchair has no usable GE converter: " + m["message"].get<std::string>() +
                        " - register a converter for the op (torchair custom-op guide) or keep "
                        "the op out of the compiled graph");
      break;
    }
  }

  const bool detected = graph_breaks + recompiles + limit_hits + fallback_total + hint_total +
                            skip_total + torchair_total + ge_compiles >
                        0;
  std::string summary;
  if (!detected) {
    summary = "no dynamo, inductor or torchair messages";
  } else {
    summary = std::to_string(graph_breaks) + " graph break(s) at " + std::to_string(sites.size()) +
              " site(s)";
    if (!breaks.empty()) {
      const json& b = breaks[0];
      summary += " (most frequent: " + base_name(b["file"].get<std::string>()) +
                 (b["line"].is_null() ? "" : ":" + std::to_string(b["line"].get<size_t>())) + " x" +
                 std::to_string(b["count"].get<size_t>()) + ", " +
                 b["category"].get<std::string>() + ")";
    }
    summary += "; " + std::to_string(recompiles) + " recompilation(s) and " +
               std::to_string(limit_hits) + " cache-limit hit(s) in " +
               std::to_string(merged.size()) + " function(s); " + std::to_string(fallback_total) +
               " inductor fallback(s); " + std::to_string(hint_total) + " perf hint(s); " +
               std::to_string(torchair_total) + " torchair/GE message(s)";
  }
  return json{{"detected", detected},
              {"summary", summary},
              {"graph_break_total", graph_breaks},
              {"graph_break_sites", sites.size()},
              {"graph_breaks", breaks},
              {"recompile_total", recompiles},
              {"cache_limit_hits", limit_hits},
              {"recompiles", recompiled},
              {"recompile_events", event_list},
              {"fallbacks", fb},
              {"perf_hints", ph},
              {"skipped_frames", sk},
              {"torchair", ta},
              {"ge_graph_compiles", ge_compiles},
              {"actions", actions}};
}

// ---- public wrapper ------------------------------------------------------------------------

DynamoLogReader::DynamoLogReader(const DynamoLimits& limits, const DynamoAdvice& advice)
    : state_(std::make_unique<State>(limits, advice)) {}

DynamoLogReader::~DynamoLogReader() = default;

void DynamoLogReader::begin_file(const std::string& path, int file_rank) {
  state_->end_file();
  state_->path = path;
  state_->file_rank = file_rank;
  state_->file_messages = 0;
  ++state_->file_index;
}

bool DynamoLogReader::on_line(string_view line, size_t line_no, const std::string& timestamp) {
  state_->line_no = line_no;
  state_->timestamp = &timestamp;
  const bool handled = state_->on_line(line);
  state_->timestamp = nullptr;
  return handled;
}

void DynamoLogReader::end_file() { state_->end_file(); }

size_t DynamoLogReader::file_messages() const { return state_->file_messages; }

json DynamoLogReader::result(size_t top) const { return state_->result(top); }

std::vector<std::string> DynamoLogReader::notes() const {
  std::vector<std::string> out;
  const State& s = *state_;
  if (s.untracked_sites > 0) {
    out.push_back(std::to_string(s.untracked_sites) + " graph breaks at sites beyond the " +
                  std::to_string(s.limits.max_sites) + " tracked were only counted");
  }
  if (s.untracked_functions > 0) {
    out.push_back(std::to_string(s.untracked_functions) +
                  " recompilations of functions beyond the tracked ones were only counted");
  }
  if (s.recompiles + s.limit_hits > s.events.size() && s.events.size() >= s.limits.max_events) {
    out.push_back("recompile_events lists the first " + std::to_string(s.limits.max_events) +
                  " of " + std::to_string(s.recompiles + s.limit_hits) +
                  " recompile and cache-limit messages; recompiles counts them all");
  }
  if (s.untracked_other > 0) {
    out.push_back(std::to_string(s.untracked_other) +
                  " fallback / perf-hint / torchair messages beyond the tracked kinds were only "
                  "counted");
  }
  return out;
}

}  // namespace skillrt::npu_graph
