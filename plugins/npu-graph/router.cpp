#include "router.hpp"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>

#include "codes.hpp"
#include "detail/text.hpp"
#include "embedded_data.hpp"

namespace skillrt::npu_graph {
namespace {

using nlohmann::json;

constexpr uintmax_t kLargeLog = 1 << 20;
constexpr size_t kSniff = 64 * 1024;

bool is_ascii(const std::string& s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// ASCII keywords match at a word start (prefix matches allowed); others anywhere.
bool keyword_found(const std::string& lower_text, const std::string& kw) {
  if (!is_ascii(kw)) return lower_text.find(kw) != std::string::npos;
  size_t pos = 0;
  while ((pos = lower_text.find(kw, pos)) != std::string::npos) {
    if (pos == 0 || !std::isalnum(static_cast<unsigned char>(lower_text[pos - 1]))) return true;
    ++pos;
  }
  return false;
}

// Marks of dynamo's, inductor's and torchair's own log records (TORCH_LOGS=graph_breaks,
// recompiles,perf_hints; cache-limit warnings; fallbacks): a log made of them is a log to read
// and summarise, not one error to diagnose.
bool has_dynamo_records(std::string_view sample) {
  static const char* const kMarks[] = {"[__graph_breaks]",
                                       "[__recompiles]",
                                       "[__perf_hints]",
                                       "Graph break in user code at",
                                       "Graph break: ",
                                       "Graph break from `Tensor.item()`",
                                       "Graph Break Reason:",
                                       "Recompiling function ",
                                       "triggered by the following guard failure",
                                       "hit config.cache_size_limit",
                                       "hit config.recompile_limit",
                                       "hit recompilation cache limit",
                                       "Creating implicit fallback for",
                                       "Using FallbackKernel",
                                       "TORCHAIR("};
  for (const char* m : kMarks) {
    if (sample.find(m) != std::string_view::npos) return true;
  }
  return false;
}

// A traceback of the run itself: "Traceback (most recent call last):" at the start of a line.
// The tracebacks torch's logging prints inside a graph-break record carry its prefix.
bool has_run_traceback(std::string_view sample) {
  static const std::string_view kTraceback = "Traceback (most recent call last)";
  size_t pos = 0;
  while ((pos = sample.find(kTraceback, pos)) != std::string_view::npos) {
    if (pos == 0 || sample[pos - 1] == '\n') return true;
    ++pos;
  }
  return false;
}

std::string sniff(const std::string& log) {
  if (!detail::looks_like_path(log)) return log.substr(0, kSniff);
  std::ifstream in(log, std::ios::binary);
  std::string buf(kSniff, '\0');
  in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
  buf.resize(static_cast<size_t>(in.gcount()));
  return buf;
}

}  // namespace

RouteTable::RouteTable(std::string_view yaml, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error("route file " + source + ": " + e.what());
  }
  if (!root["version"] || root["version"].as<int>() != 1) {
    throw std::runtime_error("route file " + source + ": 'version: 1' is required");
  }
  default_ = root["default"].as<std::string>();
  for (const auto& r : root["routes"]) {
    Route route{r["skill"].as<std::string>(), {}};
    for (const auto& kv : r["keywords"]) {
      route.keywords.emplace_back(detail::to_lower(kv.first.as<std::string>()),
                                  kv.second.as<double>());
    }
    routes_.push_back(std::move(route));
  }
  for (const auto& kv : root["signals"]) {
    signals_[kv.first.as<std::string>()] =
        Signal{kv.second["skill"].as<std::string>(), kv.second["weight"].as<double>()};
  }
}

const RouteTable& RouteTable::builtin() {
  static const RouteTable kTable(embedded_file("routes.yaml"), "npu-graph:data/routes.yaml");
  return kTable;
}

const RouteTable::Signal* RouteTable::signal(const std::string& name) const {
  const auto it = signals_.find(name);
  return it == signals_.end() ? nullptr : &it->second;
}

RouteDecision route_request(const json& input, const RouteTable& table) {
  RouteDecision d;
  for (const auto& r : table.routes()) d.scores[r.skill] = 0;
  const std::string text = input.value("text", std::string());
  const std::string lower = detail::to_lower(text);
  for (const auto& r : table.routes()) {
    for (const auto& [kw, w] : r.keywords) {
      if (!keyword_found(lower, kw)) continue;
      d.scores[r.skill] += w;
      d.reasons.push_back(
          {{"skill", r.skill}, {"weight", w}, {"because", "text mentions '" + kw + "'"}});
    }
  }
  auto add = [&](const std::string& name, const std::string& because) {
    const RouteTable::Signal* s = table.signal(name);
    if (!s) return;
    d.scores[s->skill] += s->weight;
    d.reasons.push_back({{"skill", s->skill}, {"weight", s->weight}, {"because", because}});
  };
  if (input.contains("profile_dir")) add("profile_dir", "a profile_dir is attached");
  if (input.contains("trace")) add("trace", "a trace file is attached");
  if (input.contains("traceback")) add("traceback", "a traceback is attached");
  if (input.contains("paths")) add("paths", "log file paths are attached");
  std::string log_sample;
  if (input.contains("log")) {
    const std::string log = input["log"].get<std::string>();
    std::error_code ec;
    if (detail::looks_like_path(log) && std::filesystem::file_size(log, ec) > kLargeLog) {
      add("large_log_file", "the attached log file is larger than 1 MiB");
    } else {
      add("log", "a log is attached");
    }
    log_sample = sniff(log);
  }
  // Codes in the text or the attachments point at a concrete error to diagnose.
  std::vector<CodeToken> tokens;
  CodeTable::builtin().scan(text, &tokens);
  if (input.contains("traceback"))
    CodeTable::builtin().scan(input["traceback"].get<std::string>(), &tokens);
  if (!tokens.empty())
    add("error_code_in_text", "error code " + std::string(tokens.front().text) + " in the request");
  // A Python exception class named in the text (RuntimeError, BackendCompilerFailed) is a
  // concrete failure to diagnose, like an error code.
  static const std::regex kException(R"(\b[A-Z][A-Za-z]*[a-z](Error|Exception|Failed|Failure)\b)");
  std::smatch exception;
  if (std::regex_search(text, exception, kException)) {
    add("exception_name_in_text", "exception " + exception.str() + " named in the request");
  }
  // A pasted dynamo log (in `log`, or as the text itself when it spans lines) is read by
  // npu-graph-logs; a traceback of the run in it still makes it an error to diagnose.
  const std::string pasted =
      !log_sample.empty() ? log_sample
                          : (text.find('\n') != std::string::npos ? text.substr(0, kSniff) : "");
  if (!pasted.empty() && has_dynamo_records(pasted)) {
    if (has_run_traceback(pasted)) {
      add("dynamo_log_with_traceback", "the attached log has dynamo records");
      add("traceback_in_log", "the attached log ends in a Python traceback of the run");
    } else {
      add("dynamo_log", "the attached log has dynamo graph-break/recompile/fallback records");
    }
  }
  static const std::regex kCapture(
      R"(capture_begin|capture_end|aclmdlRICapture|NPUGraph|torch\.npu\.graph|stream is captured|captured.stream|current capture mode|during NPU graph capture|graph\.replay)",
      std::regex::icase);
  if (!log_sample.empty() && std::regex_search(log_sample, kCapture)) {
    add("capture_markers_in_log", "the log shows NPU graph capture or replay");
  }
  double best = 0;
  d.skill = table.default_skill();
  for (const auto& r : table.routes()) {
    if (d.scores[r.skill] > best) {
      best = d.scores[r.skill];
      d.skill = r.skill;
    }
  }
  if (best == 0) {
    d.reasons.push_back({{"skill", d.skill},
                         {"weight", 0},
                         {"because",
                          "no intent keyword or attachment matched; treated as a "
                          "knowledge question"}});
  }
  return d;
}

json sub_skill_input(const std::string& skill, const json& input, std::string* missing) {
  const std::string text = input.value("text", std::string());
  if (skill == "npu-graph-qa") {
    json in{{"question", text}};
    if (input.contains("docs")) in["docs"] = input["docs"];
    return in;
  }
  if (skill == "npu-graph-profile") {
    json in = json::object();
    if (input.contains("profile_dir")) in["profile_dir"] = input["profile_dir"];
    if (input.contains("trace")) in["trace"] = input["trace"];
    if (in.empty()) *missing = "npu-graph-profile needs 'profile_dir' or 'trace'";
    return in.empty() ? json(nullptr) : in;
  }
  if (skill == "npu-graph-logs") {
    json paths = input.value("paths", json::array());
    json in = json::object();
    if (input.contains("log")) {
      const std::string log = input["log"].get<std::string>();
      if (detail::looks_like_path(log)) {
        paths.push_back(log);
      } else {
        in["text"] = log;  // pasted inline
      }
    } else if (paths.empty() && text.find('\n') != std::string::npos) {
      in["text"] = text;  // the request is the pasted log itself
    }
    if (!paths.empty()) in["paths"] = paths;
    if (in.empty()) {
      *missing =
          "npu-graph-logs needs 'paths' (log files or directories), 'log' (a file or the log "
          "text) or the log pasted as the request text";
      return nullptr;
    }
    return in;
  }
  // diagnose and capture read a log; the request text itself may be the error output.
  json in = json::object();
  if (input.contains("log")) {
    in["log"] = input["log"];
  } else if (skill == "npu-graph-capture" || !input.contains("traceback")) {
    in["log"] = text;
  }
  if (skill == "npu-graph-diagnose" && input.contains("traceback"))
    in["traceback"] = input["traceback"];
  return in;
}

}  // namespace skillrt::npu_graph
