#include "analysis.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace skillrt::issue_pipeline {

namespace fs = std::filesystem;

namespace {

// std::regex recurses per character; long lines (minified output, base64) could exhaust the stack.
constexpr size_t kMaxMatchedLine = 2000;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
  }
  return out;
}

std::vector<std::string> split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(sep, start);
    if (pos == std::string::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + sep.size();
  }
}

std::string clip(const std::string& s, size_t n = 400) {
  return s.size() <= n ? s : s.substr(0, n);
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool search_line(const std::string& line, const std::regex& re, std::smatch* m = nullptr) {
  if (line.size() > kMaxMatchedLine) {
    const std::string cut = line.substr(0, kMaxMatchedLine);
    std::smatch local;
    const bool ok = std::regex_search(cut, local, re);
    if (ok && m != nullptr) {
      // Re-run on the kept prefix so the match refers to a live string.
      static thread_local std::string keep;
      keep = cut;
      std::regex_search(keep, *m, re);
    }
    return ok;
  }
  return m != nullptr ? std::regex_search(line, *m, re) : std::regex_search(line, re);
}

}  // namespace

TestId parse_test_id(const std::string& raw_in) {
  std::string raw = raw_in;
  while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.back()))) raw.pop_back();
  while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.front()))) raw.erase(0, 1);
  const std::string example =
      "use a pytest node id (test/test_nn.py::TestNN::test_conv2d) or a unittest id "
      "(test_nn.TestNN.test_conv2d)";
  if (raw.empty()) throw std::invalid_argument("case: the test id is empty; " + example);
  if (raw.find_first_of(" \t\n'\"`$;|&<>") != std::string::npos) {
    throw std::invalid_argument("case '" + raw +
                                "': a test id has no spaces or shell characters; " + example);
  }
  TestId id;
  id.raw = raw;
  if (raw.find("::") != std::string::npos) {
    const auto parts = split(raw, "::");
    id.pytest = true;
    id.file = parts[0];
    if (parts.size() == 2) {
      id.method = parts[1];
    } else if (parts.size() == 3) {
      id.cls = parts[1];
      id.method = parts[2];
    } else {
      throw std::invalid_argument("case '" + raw + "': expected file::Class::test or file::test; " +
                                  example);
    }
    // Parametrised pytest ids (test_x[float32]) name the function before the bracket.
    const auto bracket = id.method.find('[');
    if (bracket != std::string::npos) id.method = id.method.substr(0, bracket);
    if (id.file.size() < 4 || id.file.substr(id.file.size() - 3) != ".py" ||
        id.file.find("..") != std::string::npos || id.file[0] == '/') {
      throw std::invalid_argument(
          "case '" + raw + "': the file part must be a relative path to a .py file; " + example);
    }
    if ((!id.cls.empty() && !is_identifier(id.cls)) || !is_identifier(id.method)) {
      throw std::invalid_argument("case '" + raw + "': class and test names must be identifiers; " +
                                  example);
    }
    id.file_candidates = {id.file};
    return id;
  }
  const auto parts = split(raw, ".");
  if (parts.size() < 3) {
    throw std::invalid_argument("case '" + raw + "': a unittest id needs module.Class.test; " +
                                example);
  }
  for (const auto& p : parts) {
    if (!is_identifier(p)) {
      throw std::invalid_argument("case '" + raw + "': '" + p + "' is not an identifier; " +
                                  example);
    }
  }
  id.method = parts.back();
  id.cls = parts[parts.size() - 2];
  std::string module_path;
  for (size_t i = 0; i + 2 < parts.size(); ++i) {
    if (!module_path.empty()) module_path += "/";
    module_path += parts[i];
  }
  id.file_candidates = {"test/" + module_path + ".py", module_path + ".py"};
  id.file = id.file_candidates.front();
  return id;
}

TestLocation locate_test(const std::string& checkout, const TestId& id) {
  TestLocation loc;
  std::string file;
  for (const auto& cand : id.file_candidates) {
    std::error_code ec;
    if (fs::is_regular_file(fs::path(checkout) / cand, ec)) {
      file = cand;
      break;
    }
  }
  if (file.empty()) {
    std::string tried;
    for (const auto& c : id.file_candidates) tried += (tried.empty() ? "" : ", ") + c;
    loc.why_not = "no file " + tried + " in " + checkout;
    return loc;
  }
  loc.file = file;
  const auto lines = split_lines(read_text(fs::path(checkout) / file));
  // Device-generic classes are written once (TestCommon) and instantiated per device
  // (TestCommonCPU, TestCommonPRIVATEUSE1); their methods gain _<device>[_<dtype>] suffixes.
  std::vector<std::string> classes;
  if (!id.cls.empty()) {
    classes.push_back(id.cls);
    static const std::regex kDevice("^(.*?)(CPU|CUDA|NPU|PRIVATEUSE1|MPS|XPU|META|Meta)$");
    std::smatch m;
    if (std::regex_match(id.cls, m, kDevice) && !m[1].str().empty()) classes.push_back(m[1]);
  }
  int class_begin = 0;
  int class_end = static_cast<int>(lines.size());
  if (!classes.empty()) {
    for (const auto& name : classes) {
      const std::regex re("^class\\s+" + name + "\\s*[(:]");
      for (size_t i = 0; i < lines.size(); ++i) {
        if (search_line(lines[i], re)) {
          loc.class_line = static_cast<int>(i) + 1;
          loc.class_name = name;
          break;
        }
      }
      if (loc.class_line != 0) break;
    }
    if (loc.class_line == 0) {
      loc.why_not = "no 'class " + id.cls + "'" +
                    (classes.size() > 1 ? " or 'class " + classes[1] + "'" : std::string()) +
                    " in " + file;
      return loc;
    }
    class_begin = loc.class_line;
    static const std::regex kTopLevel("^\\S");
    for (size_t i = static_cast<size_t>(class_begin); i < lines.size(); ++i) {
      if (!lines[i].empty() && search_line(lines[i], kTopLevel) && lines[i][0] != '#') {
        class_end = static_cast<int>(i);
        break;
      }
    }
  }
  static const std::regex kDef("^\\s*(?:async\\s+)?def\\s+(test\\w*)\\s*\\(");
  std::string best;
  int best_line = 0;
  for (int i = class_begin; i < class_end; ++i) {
    std::smatch m;
    if (!search_line(lines[static_cast<size_t>(i)], kDef, &m)) continue;
    const std::string name = m[1];
    if (name == id.method) {
      best = name;
      best_line = i + 1;
      break;
    }
    if (id.method.size() > name.size() && id.method.compare(0, name.size(), name) == 0 &&
        id.method[name.size()] == '_' && name.size() > best.size()) {
      best = name;
      best_line = i + 1;
    }
  }
  if (best_line == 0) {
    loc.why_not = "no 'def " + id.method + "' (or a device/dtype-generic prefix of it) in " +
                  (loc.class_name.empty() ? file : "class " + loc.class_name + " of " + file);
    return loc;
  }
  loc.method_line = best_line;
  loc.method_name = best;
  loc.found = true;
  return loc;
}

Json to_json(const Line& l) { return Json{{"line", l.line}, {"text", clip(l.text)}}; }

Signature failure_signature(const std::string& text) {
  Signature sig;
  const auto lines = split_lines(text);
  static const std::regex kException(R"(^([A-Za-z_][\w.]*)(?::\s?(.*))?$)");
  static const std::regex kPytestE(
      R"(^E\s+([A-Za-z_][\w.]*(?:Error|Exception|Failure|Exit)):?\s?(.*)$)");
  static const std::regex kUnittestFail(R"(^(FAIL|ERROR): (\w+) \(([\w.]+)\))");
  static const std::regex kPytestFail(R"(^FAILED (\S+))");
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    std::smatch m;
    if (search_line(l, kUnittestFail, &m)) {
      std::string scope = m[3];
      const std::string name = m[2];
      if (scope.size() > name.size() &&
          scope.compare(scope.size() - name.size(), name.size(), name) == 0) {
        scope = scope.substr(0, scope.size() - name.size() - 1);
      }
      sig.failed_tests.push_back(scope + "." + name);
    } else if (search_line(l, kPytestFail, &m)) {
      sig.failed_tests.push_back(m[1]);
    }
    if (l.rfind("Traceback (most recent call last):", 0) != 0) continue;
    // The exception line is the first unindented line after the frames.
    for (size_t j = i + 1; j < lines.size(); ++j) {
      const std::string& e = lines[j];
      if (e.empty() || e[0] == ' ' || e[0] == '\t') continue;
      std::smatch em;
      if (search_line(e, kException, &em)) {
        sig.found = true;
        sig.exception = em[1];
        sig.message = em[2].matched ? clip(em[2].str()) : "";
        sig.where = Line{static_cast<int>(j) + 1, e};
      }
      break;
    }
  }
  if (sig.found) return sig;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (search_line(lines[i], kPytestE, &m)) {
      sig.found = true;
      sig.exception = m[1];
      sig.message = clip(m[2]);
      sig.where = Line{static_cast<int>(i) + 1, lines[i]};
    }
  }
  return sig;
}

Json to_json(const Signature& s) {
  if (!s.found) {
    return Json{{"found", false}, {"failed_tests", s.failed_tests}};
  }
  return Json{{"found", true},
              {"exception", s.exception},
              {"message", s.message},
              {"normalized", normalize_message(s.message)},
              {"where", to_json(s.where)},
              {"failed_tests", s.failed_tests}};
}

std::string normalize_message(const std::string& message) {
  static const std::regex kHex("0x[0-9a-fA-F]+");
  static const std::regex kNum("[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?");
  static const std::regex kSpace("\\s+");
  std::string s = clip(message, kMaxMatchedLine);
  s = std::regex_replace(s, kHex, "0x#");
  s = std::regex_replace(s, kNum, "#");
  s = std::regex_replace(s, kSpace, " ");
  return s;
}

Comparison compare_signatures(const Signature& expected, const Signature& actual) {
  Comparison c;
  if (!expected.found) {
    c.reason = "the given log shows no traceback or exception line to compare with";
    return c;
  }
  if (!actual.found) {
    c.reason = "the run failed without a traceback or exception line";
    return c;
  }
  auto short_type = [](const std::string& t) {
    const auto dot = t.rfind('.');
    return dot == std::string::npos ? t : t.substr(dot + 1);
  };
  if (short_type(expected.exception) != short_type(actual.exception)) {
    c.reason = "exception differs: log has " + expected.exception + ", run has " + actual.exception;
    return c;
  }
  const std::string a = normalize_message(expected.message);
  const std::string b = normalize_message(actual.message);
  if (a == b || (!a.empty() && !b.empty() &&
                 (a.find(b) != std::string::npos || b.find(a) != std::string::npos))) {
    c.same = true;
    c.reason = "same exception " + actual.exception + " and message (digits and addresses masked)";
    return c;
  }
  c.reason = "same exception " + actual.exception + " but the message differs: log '" +
             clip(a, 160) + "', run '" + clip(b, 160) + "'";
  return c;
}

std::map<std::string, std::string> unittest_results(const std::string& text) {
  std::map<std::string, std::string> out;
  static const std::regex kLine(
      R"(^(\w+) \(([\w.]+)\)(?: \.\.\.|.*\.\.\.) (ok|FAIL|ERROR|skipped|expected failure|unexpected success))");
  for (const auto& l : split_lines(text)) {
    std::smatch m;
    if (!search_line(l, kLine, &m)) continue;
    const std::string name = m[1];
    std::string scope = m[2];
    // Python 3.11 prints module.Class.method, older versions module.Class.
    if (scope.size() > name.size() + 1 &&
        scope.compare(scope.size() - name.size() - 1, name.size() + 1, "." + name) == 0) {
      scope = scope.substr(0, scope.size() - name.size() - 1);
    }
    const auto dot = scope.rfind('.');
    const std::string cls = dot == std::string::npos ? scope : scope.substr(dot + 1);
    out[cls + "." + name] = m[3];
  }
  return out;
}

std::vector<Frame> traceback_frames(const std::string& text) {
  std::vector<Frame> out;
  static const std::regex kFrame(R"re(^\s*File "([^"]+)", line (\d+), in (\S+))re");
  const auto lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!search_line(lines[i], kFrame, &m)) continue;
    out.push_back(Frame{m[1], std::stoi(m[2]), m[3], static_cast<int>(i) + 1});
  }
  return out;
}

Route route_case(const std::string& test_file, const std::string& test_source,
                 const std::string& log) {
  struct Signal {
    const char* where;  // path | import | log
    const char* pattern;
    const char* route;
    int weight;
    const char* area;
  };
  // Paths weigh most (upstream groups its suites by subsystem), imports next, log words least:
  // a core test can still print a dynamo warning.
  static const std::vector<Signal> kSignals = {
      {"path", R"((^|/)test/distributed/)", "distributed", 3, "c10d / DTensor / FSDP suites"},
      {"path", R"((^|/)test/(inductor|dynamo|export|functorch/test_aotdispatch))", "distributed", 3,
       "graph mode (dynamo/inductor)"},
      {"path", R"(test_(c10d|hccl|nccl|dtensor|fsdp|distributed|compile|triton|aot))",
       "distributed", 2, "distributed or graph-mode test name"},
      {"path",
       R"((^|/)test/(test_ops|test_nn|test_torch|test_autograd|test_binary_ufuncs|test_unary_ufuncs|test_reductions|test_type_promotion|test_shape_ops|test_indexing|test_tensor_creation_ops|test_linalg|test_view_ops|test_sort_and_select|test_foreach|test_ops_gradients|test_meta|test_dispatch|test_fake_tensor)\.py$)",
       "core", 3, "operator / dispatch / dtype / autograd suite"},
      {"import", R"(^\s*(from|import)\s+torch\.distributed)", "distributed", 2,
       "torch.distributed"},
      {"import", R"(^\s*(from|import)\s+torch\.(_dynamo|_inductor|compiler))", "distributed", 2,
       "dynamo/inductor"},
      {"import", R"(^\s*(from|import)\s+(triton|torchair))", "distributed", 2, "Triton / torchair"},
      {"import", R"(common_methods_invocations|common_device_type|common_dtype|torch\.autograd)",
       "core", 1, "OpInfo / device-type / autograd helpers"},
      {"log", R"(\b(HCCL|hccl|ProcessGroup\w*|c10d|DTensor|DeviceMesh)\b)", "distributed", 1,
       "collective communication"},
      {"log", R"(torch\._(dynamo|inductor)|\btriton\b|torchair|[Gg]raph break|aclgraph|NPUGraph)",
       "distributed", 1, "graph mode"},
      {"log", R"(aten::|\bdtype\b|autograd|PrivateUse1)", "core", 1, "operator dispatch / dtype"},
  };
  Route r;
  auto add = [&](const Signal& s, int line, const std::string& text) {
    (std::string(s.route) == "core" ? r.core_score : r.distributed_score) += s.weight;
    Json e{{"source", s.where},
           {"route", s.route},
           {"weight", s.weight},
           {"area", s.area},
           {"text", clip(text, 200)}};
    if (line > 0) e["line"] = line;
    if (std::string(s.where) != "log") e["file"] = test_file;
    r.evidence.push_back(e);
  };
  for (const auto& s : kSignals) {
    const std::regex re(s.pattern);
    if (std::string(s.where) == "path") {
      if (search_line(test_file, re)) add(s, 0, test_file);
      continue;
    }
    const std::string& text = std::string(s.where) == "import" ? test_source : log;
    const auto lines = split_lines(text);
    for (size_t i = 0; i < lines.size(); ++i) {
      if (search_line(lines[i], re)) {
        add(s, static_cast<int>(i) + 1, lines[i]);
        break;  // one hit per signal is evidence enough; counting repeats would let logs dominate
      }
    }
  }
  r.route = r.distributed_score > r.core_score ? "distributed" : "core";
  if (r.core_score == 0 && r.distributed_score == 0) {
    r.evidence.push_back(Json{{"source", "default"},
                              {"route", "core"},
                              {"weight", 0},
                              {"area", "no signal"},
                              {"text",
                               "no distributed or graph-mode signal in the path, imports or log; "
                               "core is the default for single-device tests"}});
  }
  return r;
}

std::string class_label(const std::string& cls) {
  static const std::map<std::string, std::string> kLabels = {
      {"missing-dispatch", "missing dispatch/registration"},
      {"behaviour-mismatch", "behaviour mismatch"},
      {"memory", "memory"},
      {"environment-build", "environment/build"},
      {"upstream-problem", "upstream PyTorch problem"},
      {"not-applicable", "test not applicable to NPU"},
      {"undetermined", "undetermined"}};
  auto it = kLabels.find(cls);
  return it == kLabels.end() ? cls : it->second;
}

std::vector<RuleHit> match_rules(const std::string& text,
                                 const std::map<std::string, std::string>& worktrees,
                                 const std::string& test_file) {
  struct Rule {
    const char* id;
    const char* cls;
    const char* title;
    const char* pattern;
  };
  // Priority order follows shared/domain/errors-and-diagnosis.md 7: environment markers override
  // operator markers, coverage gaps before behaviour.
  static const std::vector<Rule> kRules = {
      {"IPL-E001", "environment-build", "import or shared-library failure",
       R"((ModuleNotFoundError|No module named|undefined symbol|lib(hccl|ascendcl|opapi|atb|torch_npu)\.so|set_env\.sh|ASCEND_OPP_PATH)|^ImportError)"},
      {"IPL-E002", "environment-build", "kernel binary or SoC mismatch",
       R"(Cannot find bin of op|does not has any binary|binary_info_config\.json|GEInitialize failed|init env failed)"},
      {"IPL-D001", "missing-dispatch", "operator has no kernel for the NPU (PrivateUse1) key",
       R"(Could not run '(aten::[\w.]+|[\w:.]+)' with arguments from the '(PrivateUse1|NPU|npu)' backend)"},
      {"IPL-D002", "missing-dispatch", "operator falls back to CPU or is unsupported on NPU",
       R"(is not currently supported on the NPU backend|will fall back to run on the CPU|ERR0[01]007)"},
      {"IPL-D003", "missing-dispatch", "NPU-specific API or registration missing",
       R"((has no attribute '(npu_\w+)')|No kernel (registered|found) for|not implemented for '(PrivateUse1|NPU)')"},
      {"IPL-M001", "memory", "device or host out of memory",
       R"(NPU out of memory|out of memory\. Tried to allocate|MemoryError|Tried to allocate [0-9.]+ ?[KMGT]?i?B)"},
      {"IPL-N001", "not-applicable", "test exercises CUDA/NCCL/MPS-only behaviour",
       R"(Torch not compiled with CUDA|Found no NVIDIA driver|\brequires? CUDA\b|onlyCUDA|\bcudnn\b|\bNCCL\b|\bnvcc\b|\bMPS\b)"},
      {"IPL-B001", "behaviour-mismatch", "result differs from the reference",
       R"(Tensor-likes are not (close|equal)|Mismatched elements|Scalars are not (close|equal)|Greatest absolute difference|^AssertionError)"},
  };
  std::vector<RuleHit> hits;
  const auto lines = split_lines(text);
  for (const auto& rule : kRules) {
    const std::regex re(rule.pattern);
    RuleHit hit{rule.id, rule.cls, rule.title, {}, ""};
    for (size_t i = 0; i < lines.size(); ++i) {
      std::smatch m;
      if (!search_line(lines[i], re, &m)) continue;
      if (hit.evidence.size() < 5) hit.evidence.push_back(Line{static_cast<int>(i) + 1, lines[i]});
      if (hit.op.empty() && std::string(rule.id) == "IPL-D001") hit.op = m[1];
    }
    if (!hit.evidence.empty()) hits.push_back(hit);
  }
  // Upstream problem: the innermost frame is PyTorch library code (not the test) and no frame
  // passes through torch_npu or op_plugin, so the NPU stack never ran.
  const auto frames = traceback_frames(text);
  if (!frames.empty()) {
    auto repo_of = [&](const std::string& file) -> std::string {
      for (const auto& [name, root] : worktrees) {
        if (!root.empty() && file.rfind(root + "/", 0) == 0) return name;
      }
      return "";
    };
    bool npu_frame = false;
    for (const auto& f : frames) {
      const std::string repo = repo_of(f.file);
      if (repo == "torch_npu" || repo == "op_plugin") npu_frame = true;
    }
    const Frame& inner = frames.back();
    const std::string inner_repo = repo_of(inner.file);
    const bool in_test = inner.file.find("/" + test_file) != std::string::npos ||
                         inner.file.find("/test/") != std::string::npos;
    if (!npu_frame && inner_repo == "pytorch" && !in_test) {
      RuleHit hit{"IPL-U001",
                  "upstream-problem",
                  "failure raised inside PyTorch code with no torch_npu or op-plugin frame",
                  {Line{inner.log_line, "File \"" + inner.file + "\", line " +
                                            std::to_string(inner.line) + ", in " + inner.function}},
                  ""};
      // Behaviour and not-applicable verdicts stay ahead only when they name the NPU stack;
      // here nothing NPU ran, so the upstream verdict goes before them.
      auto pos = std::find_if(hits.begin(), hits.end(), [](const RuleHit& h) {
        return h.cls == "behaviour-mismatch" || h.cls == "not-applicable";
      });
      hits.insert(pos, hit);
    }
  }
  return hits;
}

const std::vector<std::string>& default_template_headings() {
  static const std::vector<std::string> kHeadings = {"【合入来源】", "【修改方案】",
                                                     "【资料变更】", "【接口变更】",
                                                     "【功能验证】", "【CheckList】"};
  return kHeadings;
}

std::string fill_template(const std::string& templ,
                          const std::vector<std::pair<std::string, std::string>>& sections,
                          std::vector<std::string>* used) {
  const auto lines = split_lines(templ);
  auto section_for = [&](const std::string& line) -> const std::string* {
    for (const auto& [key, body] : sections) {
      if (line.find(key) != std::string::npos) return &body;
    }
    return nullptr;
  };
  auto is_heading = [&](const std::string& line) {
    if (line.rfind("#", 0) == 0) return true;
    return line.find("【") != std::string::npos && line.find("】") != std::string::npos;
  };
  std::ostringstream out;
  size_t i = 0;
  while (i < lines.size()) {
    const std::string& line = lines[i];
    const std::string* body = is_heading(line) ? section_for(line) : nullptr;
    out << line << "\n";
    ++i;
    if (body == nullptr) continue;
    if (used != nullptr) used->push_back(line);
    // The template's own text under a filled heading is a prompt for the author: replaced.
    while (i < lines.size() && !is_heading(lines[i])) ++i;
    out << *body;
    if (!body->empty() && body->back() != '\n') out << "\n";
    out << "\n";
  }
  return out.str();
}

std::string case_id_from_test(const std::string& test_id) {
  std::string out;
  for (char c : test_id) {
    const bool keep =
        std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    out += keep ? c : '_';
  }
  size_t pos;
  while ((pos = out.find("..")) != std::string::npos) out.replace(pos, 2, "_");
  while (!out.empty() && (out.front() == '.' || out.front() == '-')) out.erase(0, 1);
  while (!out.empty() && out.back() == '.') out.pop_back();
  if (out.size() > 100) {
    // FNV-1a keeps two long ids with a common prefix apart.
    uint64_t h = 1469598103934665603ull;
    for (char c : test_id) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ull;
    }
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h));
    out = out.substr(0, 83) + "-" + std::string(hex);
  }
  if (out.size() >= 5 && out.substr(out.size() - 5) == ".lock") out += "_";
  return out.empty() ? "case" : out;
}

}  // namespace skillrt::issue_pipeline
