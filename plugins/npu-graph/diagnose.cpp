#include "diagnose.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <skillrt/sdk.hpp>

#include "codes.hpp"
#include "detail/text.hpp"
#include "embedded_data.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::npu_graph {

const std::set<std::string> kDiagnoseClasses = {"user-code", "framework-bug", "operator",
                                                "acl-runtime", "env-config"};

namespace {

using nlohmann::json;

// Larger inputs belong to npu-graph-logs, which streams them; diagnose looks at the head.
constexpr size_t kMaxLines = 20000;
const std::vector<std::string> kLayerOrder = {"python-api", "cpp-core", "opplugin-operator",
                                              "acl-runtime"};

json line_json(const std::vector<std::string_view>& lines, size_t index) {
  return json{{"line", index + 1}, {"text", detail::clip(lines[index])}};
}

// Layer markers that are not codes: which layer a line speaks for.
std::vector<std::string> line_layers(std::string_view line) {
  static const std::regex kPython(
      R"(^Traceback \(most recent call last\)|^\s+File ".*", line \d+|^\w+(Error|Exception|Unsupported|Failed): )");
  static const std::regex kCore(
      R"(NPU function error|ERR0[0234]\d{3}|NPUQueue|c10_npu|NPUCachingAllocator)");
  static const std::regex kOperator(
      R"(aclnn\w+|OPS function error|ERR01\d{3}|op_plugin|op-plugin|Cannot find bin of op|\bEZ\d{4}\b)");
  static const std::regex kRuntime(
      R"(\b(EE|EH|EI|EL|EJ)\d{4}\b|\b5070\d\d\b|reason=|ASCENDCL|\[ERROR\] (RUNTIME|DRV|HCCL|GE)|aclrt\w+)");
  std::vector<std::string> out;
  if (std::regex_search(line.begin(), line.end(), kPython)) out.push_back("python-api");
  if (std::regex_search(line.begin(), line.end(), kCore)) out.push_back("cpp-core");
  if (std::regex_search(line.begin(), line.end(), kOperator)) out.push_back("opplugin-operator");
  if (std::regex_search(line.begin(), line.end(), kRuntime)) out.push_back("acl-runtime");
  return out;
}

// The operator the log names, preferring the evidence lines, then the whole log.
json find_operator(const std::vector<std::string_view>& lines, const std::vector<size_t>& first) {
  static const std::vector<std::regex> kPatterns = {
      std::regex(R"(current working operator name is (\w+))"),
      std::regex(R"(call (aclnn\w+) failed)"),
      std::regex(R"(Cannot find bin of op (\w+))"),
      std::regex(R"((aclnn[A-Z]\w*?)(?:GetWorkspaceSize)?\b)"),
      std::regex(R"(\b(torch_npu\.npu_\w+|torch\.ops\.npu\.\w+))"),
      std::regex(R"((?:op|Op|OP)[ _]?(?:type|Type|name|Name)\s*[:=\[]\s*\[?([A-Za-z_]\w*))"),
      std::regex(R"(kernel[ _]name\s*[:=\[]\s*\[?([A-Za-z_]\w*))"),
      std::regex(R"(operator '?(aten::\w+|npu::\w+))"),
      std::regex(R"((aten::\w+|aten\.\w+(?:\.\w+)?))"),
  };
  std::vector<size_t> order = first;
  for (size_t i = 0; i < lines.size(); ++i) order.push_back(i);
  for (const std::regex& re : kPatterns) {
    for (size_t i : order) {
      std::match_results<std::string_view::const_iterator> m;
      if (std::regex_search(lines[i].begin(), lines[i].end(), m, re)) {
        return json{{"name", m[1].str()}, {"line", i + 1}, {"text", detail::clip(lines[i])}};
      }
    }
  }
  return nullptr;
}

// Graph breaks, recompilations and guard failures with their reasons.
json graph_events(const std::vector<std::string_view>& lines) {
  static const std::regex kBreak(
      R"(Graph break(?: in user code)?(?: at| from user code at)?:?\s*(.*))", std::regex::icase);
  static const std::regex kReason(R"(^\s*(?:Graph Break )?Reason:\s*(.*))");
  static const std::regex kUnsupported(R"(torch\._dynamo\.exc\.Unsupported:\s*(.*))");
  static const std::regex kRecompile(R"(Recompiling function (\S+) in (\S+))");
  static const std::regex kGuard(R"(\s-\s+(\d+/\d+:\s*.*))");
  static const std::regex kLimit(R"(hit config\.(cache_size_limit|recompile_limit) \((\d+)\))");
  json out = json::array();
  std::match_results<std::string_view::const_iterator> m;
  for (size_t i = 0; i < lines.size() && out.size() < 50; ++i) {
    const std::string_view line = lines[i];
    if (std::regex_search(line.begin(), line.end(), m, kBreak)) {
      std::string reason;
      if (i + 1 < lines.size()) {
        std::match_results<std::string_view::const_iterator> r;
        if (std::regex_search(lines[i + 1].begin(), lines[i + 1].end(), r, kReason)) {
          reason = r[1].str();
        }
      }
      out.push_back({{"kind", "graph-break"},
                     {"line", i + 1},
                     {"text", detail::clip(line)},
                     {"where", m[1].str()},
                     {"reason", reason}});
    } else if (std::regex_search(line.begin(), line.end(), m, kUnsupported)) {
      out.push_back({{"kind", "graph-break"},
                     {"line", i + 1},
                     {"text", detail::clip(line)},
                     {"where", ""},
                     {"reason", m[1].str()}});
    } else if (std::regex_search(line.begin(), line.end(), m, kRecompile)) {
      std::string reason;
      for (size_t j = i + 1; j < lines.size() && j <= i + 4; ++j) {
        std::match_results<std::string_view::const_iterator> g;
        if (std::regex_search(lines[j].begin(), lines[j].end(), g, kGuard)) {
          reason = g[1].str();
          break;
        }
      }
      out.push_back({{"kind", "recompilation"},
                     {"line", i + 1},
                     {"text", detail::clip(line)},
                     {"where", m[1].str() + " in " + m[2].str()},
                     {"reason", reason}});
    } else if (std::regex_search(line.begin(), line.end(), m, kLimit)) {
      out.push_back({{"kind", "recompile-limit"},
                     {"line", i + 1},
                     {"text", detail::clip(line)},
                     {"where", ""},
                     {"reason", "limit " + m[2].str() + " reached"}});
    }
  }
  return out;
}

// Who called an operator that rejected its inputs: the innermost traceback frame, above the
// first evidence line, that is not torch / torch_npu / the Python standard library. When the
// log shows no such frame but was printed by a serving engine's process (vLLM, SGLang), the
// engine's NPU adaptation layer made the call: people who serve a model do not call NPU
// operators themselves.
std::string_view strip_process_prefix(std::string_view line);

struct CallerFrame {
  size_t line = 0;
  std::string path;
  std::string role;  // adaptation | user-script | third-party
  bool from_engine_context = false;
};

std::optional<CallerFrame> find_caller(const std::vector<std::string_view>& lines,
                                       size_t evidence_line) {
  // Python prints "line"; some pasted logs (and log collectors) capitalise it.
  // pytest's long tracebacks name a frame as "path/file.py:2419: in func" (or ": Error" on the
  // last one); Python's warnings use the same shape with "<Category>Warning:", which is no frame.
  static const std::regex kFrame(
      R"re(File "([^"]+)", [Ll]ine \d+|^\s*([^\s:"]+\.py):\d+: (?!\w*Warning))re");
  // Frames inside these are the library path of the call, not the caller.
  static const std::regex kInternal(
      R"((^|/)(torch|torch_npu|op_plugin|functorch)/|<frozen |/lib/python3\.\d+/(\w+\.py$|(concurrent|multiprocessing|asyncio|importlib|threading)/))");
  // NPU adaptation layers' Python packages: their call is the framework's choice of
  // shape/layout/format. The package directory, not the repository: a script a user keeps in a
  // vllm-ascend checkout is still the user's.
  static const std::regex kAdaptation(
      R"((^|/)(vllm_ascend|torchair|mindspeed\w*)/|sglang/.*(ascend|npu))");
  // Other installed frameworks: the call may carry the user's arguments through, so they do not
  // decide on their own.
  static const std::regex kThirdParty(
      R"(site-packages|dist-packages|/(vllm|megatron|transformers|deepspeed|accelerate)/)");
  // The prefixes vLLM and SGLang put on every line their engine and worker processes print.
  static const std::regex kEngineProcess(
      R"(^\((EngineCore|Worker|VllmWorker|RayWorkerWrapper)\w*( rank=\d+)? pid=\d+\)|^\[\d{4}-\d\d-\d\d [\d:]+ (TP|DP|EP)\d+\])");
  // torch_npu's own Python package, which the troubleshooting guide points at when the stack
  // ends in a TorchNPU API.
  static const std::regex kTorchNpu(R"((^|/)torch_npu/)");
  // Exceptions that a correct program does not raise whatever its inputs: they mark a defect
  // in the code that raised them, not a rejected argument.
  static const std::regex kDefect(
      R"(^(AttributeError|NameError|UnboundLocalError): |^TypeError: .*('NoneType'|positional argument|unexpected keyword))");
  std::optional<CallerFrame> caller;
  std::optional<CallerFrame> adaptation;  // the innermost frame of an adaptation layer
  std::optional<CallerFrame> innermost_torch_npu;
  std::match_results<std::string_view::const_iterator> m;
  for (size_t i = 0; i < evidence_line && i < lines.size(); ++i) {
    if (!std::regex_search(lines[i].begin(), lines[i].end(), m, kFrame)) continue;
    const std::string path = m[1].matched ? m[1].str() : m[2].str();
    innermost_torch_npu.reset();
    if (std::regex_search(path, kTorchNpu))
      innermost_torch_npu = CallerFrame{i, path, "adaptation"};
    if (std::regex_search(path, kInternal) && !std::regex_search(path, kAdaptation)) continue;
    std::string role = "user-script";
    if (std::regex_search(path, kAdaptation)) {
      role = "adaptation";
    } else if (std::regex_search(path, kThirdParty)) {
      role = "third-party";
    }
    caller = CallerFrame{i, path, role};
    if (role == "adaptation") adaptation = caller;
  }
  // The stack ends inside torch_npu with a defect-type exception: the guide's rule "the stack
  // ends in a TorchNPU API, suspect TorchNPU" applies, whoever called it.
  if (innermost_torch_npu && evidence_line < lines.size() && [&] {
        const std::string_view message = strip_process_prefix(lines[evidence_line]);
        return std::regex_search(message.begin(), message.end(), kDefect);
      }()) {
    return innermost_torch_npu;
  }
  // A third-party helper (vllm/utils.py) that failed on what an adaptation layer handed it one
  // frame up: the adaptation layer chose the argument.
  if (caller && caller->role == "third-party" && adaptation) return adaptation;
  if (caller) return caller;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!std::regex_search(lines[i].begin(), lines[i].end(), m, kEngineProcess)) continue;
    return CallerFrame{i, "the serving engine's NPU adaptation layer", "adaptation", true};
  }
  return std::nullopt;
}

// What a line says once the prefix a launcher or serving engine puts in front of every line is
// removed ("(EngineCore_DP0 pid=17) ERROR 08-05 11:23:25 [core.py:632] ", "[rank0]: "), so that
// rules anchored at the start of a message ("^RuntimeError: ") read engine logs as they read a
// plain traceback. Line numbers stay those of the original log.
std::string_view strip_process_prefix(std::string_view line) {
  // pytest prints the exception of a failed test behind "E   " and repeats it in its summary
  // as "FAILED <test id> - <exception>".
  static const std::regex kPrefix(
      R"(^(\(\w+( rank=\d+)? pid=\d+\) )?((ERROR|WARNING|INFO|DEBUG|CRITICAL) \d\d-\d\d [\d:.]+ \[[\w./]+:\d+\] )?(\[rank\d+\]: ?)?(E {2,}|FAILED \S+ - )?)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(line.begin(), line.end(), m, kPrefix) || m.length(0) == 0) return line;
  return line.substr(static_cast<size_t>(m.length(0)));
}

json first_error(const std::vector<std::string_view>& lines) {
  static const std::regex kError(
      R"(^Traceback \(most recent call last\)|\[ERROR\]|\bERR\d{5}\b|^\w*(Error|Exception)\b|error code is|\bE[0-9A-Z]\d{4}\b)");
  for (size_t i = 0; i < lines.size(); ++i) {
    if (std::regex_search(lines[i].begin(), lines[i].end(), kError)) return line_json(lines, i);
  }
  return nullptr;
}

}  // namespace

RuleSet load_diagnose_rules(const std::vector<std::string>& extra_rule_files) {
  // The built-in rules are parsed (and their patterns compiled) once per process; each call
  // gets a copy, which shares the compiled patterns, to merge its own files into.
  static const RuleSet kBuiltin = RuleSet::parse(
      embedded_file("diagnose_rules.yaml"), "npu-graph:data/diagnose_rules.yaml", kDiagnoseClasses);
  RuleSet set = kBuiltin;
  for (const std::string& path : extra_rule_files) {
    set.merge(RuleSet::parse(read_text_file(path), path, kDiagnoseClasses));
  }
  return set;
}

json diagnose_text(std::string_view text, const std::string& source, const RuleSet& rules) {
  std::vector<std::string_view> lines = detail::split_lines(text);
  json undetermined = json::array();
  if (lines.size() > kMaxLines) {
    undetermined.push_back("only the first " + std::to_string(kMaxLines) + " of " +
                           std::to_string(lines.size()) +
                           " lines were read; summarise large logs with npu-graph-logs and pass "
                           "the region around the first error");
    lines.resize(kMaxLines);
  }

  // Decoded codes with the line of their first appearance.
  const CodeTable& table = CodeTable::builtin();
  json codes = json::array();
  std::set<std::string> seen_codes;
  std::map<std::string, std::vector<size_t>> layer_lines;
  std::map<std::string, json> layer_codes;
  std::vector<CodeToken> tokens;
  for (size_t i = 0; i < lines.size(); ++i) {
    tokens.clear();
    table.scan(lines[i], &tokens);
    for (const CodeToken& t : tokens) {
      const auto decoded = table.decode(t.text);
      if (!decoded) continue;
      auto& per_layer = layer_lines[decoded->layer];
      if (per_layer.empty() || per_layer.back() != i) per_layer.push_back(i);
      if (!seen_codes.insert(decoded->code).second) continue;
      json j = decoded->to_json();
      j["line"] = i + 1;
      codes.push_back(j);
      layer_codes[decoded->layer].push_back(decoded->code);
    }
    for (const std::string& layer : line_layers(lines[i])) {
      auto& per_layer = layer_lines[layer];
      if (per_layer.empty() || per_layer.back() != i) per_layer.push_back(i);
    }
  }

  // The descent: each layer with the evidence found for it, top to bottom.
  json layers = json::array();
  std::string layer_reached;
  for (const std::string& layer : kLayerOrder) {
    json entry{{"layer", layer},
               {"evidence", json::array()},
               {"codes", layer_codes.count(layer) ? layer_codes[layer] : json::array()}};
    const auto it = layer_lines.find(layer);
    if (it != layer_lines.end()) {
      std::vector<size_t> shown = it->second;
      std::sort(shown.begin(), shown.end());
      for (size_t k = 0; k < shown.size() && k < 5; ++k) {
        entry["evidence"].push_back(line_json(lines, shown[k]));
      }
      layer_reached = layer;
    }
    layers.push_back(entry);
  }

  std::vector<std::string_view> messages;
  messages.reserve(lines.size());
  for (std::string_view line : lines) messages.push_back(strip_process_prefix(line));
  const std::vector<RuleHit> hits = rules.evaluate(messages);
  json result{{"source", source},
              {"lines_read", lines.size()},
              {"first_error", first_error(lines)},
              {"codes", codes},
              {"layers", layers},
              {"layer_reached", layer_reached.empty() ? json(nullptr) : json(layer_reached)},
              {"graph_events", graph_events(lines)},
              {"rule_pack_version", rules.version()}};

  if (hits.empty()) {
    result["conclusion"] = "undetermined";
    result["confidence"] = 0.0;
    result["rule"] = nullptr;
    result["evidence"] = json::array();
    result["operator"] = find_operator(lines, {});
    result["secondary"] = json::array();
    result["next_steps"] = json::array(
        {"no rule matched: pass the full output from the first Traceback, and the host plog "
         "($HOME/ascend/log/debug/plog) around the first ERROR",
         "rerun with ASCEND_LAUNCH_BLOCKING=1 to make the stack accurate"});
    // Say which fact is missing for the lowest layer the log reached, and the command that
    // produces it, rather than guessing a class.
    if (layer_reached == "acl-runtime") {
      result["next_steps"].push_back(
          "the log reaches the runtime/device but names no cause: run npu-smi info (device "
          "health) and collect device logs with msnpureport");
    } else if (layer_reached == "opplugin-operator" || layer_reached == "cpp-core") {
      result["next_steps"].push_back(
          "the failing component is not named: rerun with ASCEND_GLOBAL_LOG_LEVEL=1 "
          "ASCEND_SLOG_PRINT_TO_STDOUT=1 to print the CANN component and its first ERROR");
    }
    // A native crash prints no Python exception and no CANN code: the missing fact is the
    // native stack, which only a core dump or faulthandler gives.
    static const std::regex kCrash(
        R"(Segmentation fault|core dumped|SIGSEGV|SIGABRT|signal 11|Fatal Python error)");
    if (std::regex_search(text.begin(), text.end(), kCrash)) {
      result["next_steps"].push_back(
          "the process crashed in native code and the log has no stack: rerun with python -X "
          "faulthandler (the Python frame of the crash) and with core dumps enabled (ulimit -c "
          "unlimited), then gdb python3 <core> and bt for the library that crashed");
      result["next_steps"].push_back(
          "a crash at import torch / import torch_npu points at the build: torch and torch_npu "
          "built with different GCC or _GLIBCXX_USE_CXX11_ABI (python -c \"import torch; "
          "print(torch._C._GLIBCXX_USE_CXX11_ABI)\"), or a torch_npu wheel for another torch");
      undetermined.push_back(
          "a native crash without a stack: which library crashed is the missing fact");
    } else if (first_error(lines).is_null()) {
      undetermined.push_back(
          "no error line was found (no Traceback, [ERROR], ERRxxxxx or CANN code): pass the "
          "output from the first error down to the end");
    }
    undetermined.push_back("no rule in the pack matched any line; the class is not decided");
    result["undetermined"] = undetermined;
    return result;
  }

  const RuleHit& top = hits.front();
  json evidence = json::array();
  for (size_t i : top.lines) evidence.push_back(line_json(lines, i));
  double confidence = top.rule->confidence;
  json secondary = json::array();
  for (size_t k = 1; k < hits.size(); ++k) {
    const RuleHit& h = hits[k];
    // A competing class close in priority means the log supports more than one reading.
    if (h.rule->cls != top.rule->cls && h.rule->priority - top.rule->priority < 20) {
      confidence *= 0.85;
    }
    json lines_json = json::array();
    for (size_t i : h.lines) lines_json.push_back(i + 1);
    secondary.push_back({{"rule", h.rule->id},
                         {"class", h.rule->cls},
                         {"title", h.rule->title},
                         {"lines", lines_json}});
  }
  json next_steps = top.rule->next_steps;
  std::string conclusion = top.rule->cls;
  if (top.rule->caller_decides && !top.lines.empty()) {
    // The operator (or Python) refused an input; the fix belongs to whoever chose that input,
    // which the calling frame shows.
    const auto caller = find_caller(lines, top.lines.front());
    if (!caller) {
      undetermined.push_back(
          "the call was rejected, but the log shows no traceback frame of its caller; "
          "rerun with ASCEND_LAUNCH_BLOCKING=1 to get the Python stack of the call and see whether "
          "the script or an adaptation layer (vllm-ascend, MindSpeed, torchair) passed them");
    } else if (caller->role == "third-party") {
      evidence.push_back(line_json(lines, caller->line));
      undetermined.push_back("the rejected call was made in " + caller->path +
                             ", a third-party framework that may only forward the script's "
                             "arguments; check whether the value comes from your launch "
                             "arguments (user-code) or from that framework");
    } else {
      const std::string by = caller->role == "adaptation" ? "framework-bug" : "user-code";
      if (by != conclusion) {
        const std::string why =
            caller->from_engine_context
                ? "the log was printed by a serving engine's process (log line " +
                      std::to_string(caller->line + 1) +
                      ") and shows no frame of the call: the engine's NPU adaptation layer "
                      "(vllm-ascend, sglang's NPU backend) chose the rejected input, so the fix "
                      "most likely belongs there (" +
                      by +
                      "); confirm with the Python stack "
                      "(ASCEND_LAUNCH_BLOCKING=1)"
                : "the rejected input was passed by " + caller->path + " (log line " +
                      std::to_string(caller->line + 1) + "), so the fix belongs there (" + by +
                      "), not in the operator";
        next_steps.insert(next_steps.begin(), why);
        conclusion = by;
      }
      evidence.push_back(line_json(lines, caller->line));
    }
  }
  const bool async = text.find("The Inner error is reported as above") != std::string_view::npos;
  if (async && text.find("ASCEND_LAUNCH_BLOCKING=1") == std::string_view::npos) {
    next_steps.push_back(
        "the error was reported asynchronously: rerun with ASCEND_LAUNCH_BLOCKING=1");
  } else if (async) {
    next_steps.push_back(
        "the error was reported asynchronously (task queue): the Python stack may not point at "
        "the failing op until you rerun with ASCEND_LAUNCH_BLOCKING=1");
  }
  if (top.rule->cls == "acl-runtime" && top.rule->id == "RT-001") {
    undetermined.push_back(
        "a timeout is usually a symptom: the root cause is on the rank that failed first, which "
        "this log does not show");
  }
  result["conclusion"] = conclusion;
  result["confidence"] = std::round(confidence * 100) / 100;
  result["rule"] = {{"id", top.rule->id},
                    {"title", top.rule->title},
                    {"source", top.rule->source},
                    {"layer", top.rule->layer},
                    {"topic", top.rule->topic}};
  result["evidence"] = evidence;
  result["operator"] = find_operator(lines, top.lines);
  result["secondary"] = secondary;
  result["next_steps"] = next_steps;
  result["undetermined"] = undetermined;
  return result;
}

std::string resolve_log_text(const std::string& log, std::string* source) {
  if (detail::looks_like_path(log)) {
    *source = log;
    return read_text_file(log);
  }
  *source = "<input>";
  return log;
}

json run_diagnose(const json& input) {
  std::string text;
  std::string source = "<input>";
  if (input.contains("log")) text = resolve_log_text(input.at("log").get<std::string>(), &source);
  if (input.contains("traceback")) {
    if (!text.empty()) text += "\n";
    text += input.at("traceback").get<std::string>();
  }
  if (ops::trim_view(text).empty()) {
    throw skillrt::invalid_argument(
        "npu-graph-diagnose: give 'log' (text or a file path) or 'traceback' with the error "
        "output; both were empty");
  }
  std::vector<std::string> extra;
  if (input.contains("rules")) extra = input.at("rules").get<std::vector<std::string>>();
  RuleSet rules;
  try {
    rules = load_diagnose_rules(extra);
  } catch (const std::runtime_error& e) {
    throw skillrt::invalid_argument(std::string("npu-graph-diagnose: 'rules': ") + e.what());
  }
  return diagnose_text(text, source, rules);
}

}  // namespace skillrt::npu_graph
