#include "capture.hpp"

#include <regex>
#include <skillrt/sdk.hpp>

#include "detail/text.hpp"
#include "diagnose.hpp"
#include "embedded_data.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::npu_graph {

const std::set<std::string> kCaptureKinds = {"capture-unsafe-op", "replay-during-capture",
                                             "memory-pool-misuse", "static-input-update",
                                             "capture-end-failure"};

namespace {

using nlohmann::json;

// The phase a line belongs to: the last phase marker seen before it.
std::vector<std::string> phases_of(const std::vector<std::string_view>& lines, json* markers) {
  static const std::regex kCapture(
      R"(capture_begin|capture begin|begin capture|start(ing)? capture|torch\.npu\.graph\(|aclmdlRICaptureBegin|capturing)",
      std::regex::icase);
  static const std::regex kEnd(R"(capture_end|capture end|end capture|aclmdlRICaptureEnd)",
                               std::regex::icase);
  static const std::regex kReplay(R"(\breplay)", std::regex::icase);
  static const std::regex kUpdate(R"(\bupdate)", std::regex::icase);
  static const std::regex kWarmup(R"(warm.?up)", std::regex::icase);
  std::vector<std::string> out(lines.size(), "unknown");
  std::string phase = "unknown";
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view l = lines[i];
    std::string next = phase;
    if (std::regex_search(l.begin(), l.end(), kEnd)) {
      next = "capture-end";
    } else if (std::regex_search(l.begin(), l.end(), kCapture)) {
      next = "capture";
    } else if (std::regex_search(l.begin(), l.end(), kReplay)) {
      next = "replay";
    } else if (std::regex_search(l.begin(), l.end(), kUpdate)) {
      next = "update";
    } else if (std::regex_search(l.begin(), l.end(), kWarmup)) {
      next = "warmup";
    }
    if (next != phase) {
      markers->push_back({{"phase", next}, {"line", i + 1}, {"text", detail::clip(l)}});
      phase = next;
    }
    out[i] = phase;
  }
  return out;
}

}  // namespace

RuleSet load_capture_rules(const std::vector<std::string>& extra_rule_files) {
  // The built-in rules are parsed (and their patterns compiled) once per process; each call
  // gets a copy, which shares the compiled patterns, to merge its own files into.
  static const RuleSet kBuiltin = RuleSet::parse(
      embedded_file("capture_rules.yaml"), "npu-graph:data/capture_rules.yaml", kCaptureKinds);
  RuleSet set = kBuiltin;
  for (const std::string& path : extra_rule_files) {
    set.merge(RuleSet::parse(read_text_file(path), path, kCaptureKinds));
  }
  return set;
}

json analyze_capture(std::string_view text, const std::string& source, const RuleSet& rules) {
  const std::vector<std::string_view> lines = detail::split_lines(text);
  json markers = json::array();
  const std::vector<std::string> phases = phases_of(lines, &markers);
  const std::vector<RuleHit> hits = rules.evaluate(lines);
  json findings = json::array();
  for (const RuleHit& h : hits) {
    json evidence = json::array();
    for (size_t i : h.lines) {
      evidence.push_back({{"line", i + 1}, {"text", detail::clip(lines[i])}, {"phase", phases[i]}});
    }
    findings.push_back({{"kind", h.rule->cls},
                        {"rule", h.rule->id},
                        {"title", h.rule->title},
                        {"confidence", h.rule->confidence},
                        {"phase", phases[h.lines.front()]},
                        {"evidence", evidence},
                        {"fix", h.rule->next_steps}});
  }
  json result{{"source", source},
              {"lines_read", lines.size()},
              {"phases", markers},
              {"findings", findings}};
  if (findings.empty()) {
    result["kind"] = "undetermined";
    result["undetermined"] = json::array(
        {"no capture rule matched: the log shows no known capture, replay or update failure; "
         "if the error is outside capture, use npu-graph-diagnose"});
  } else {
    result["kind"] = findings.front()["kind"];
    result["undetermined"] = json::array();
  }
  return result;
}

json run_capture(const json& input) {
  std::string source = "<input>";
  std::string text;
  if (input.contains("log")) text = resolve_log_text(input.at("log").get<std::string>(), &source);
  if (ops::trim_view(text).empty()) {
    throw skillrt::invalid_argument(
        "npu-graph-capture: 'log' is empty: pass the capture/replay log text or a file path");
  }
  std::vector<std::string> extra;
  if (input.contains("rules")) extra = input.at("rules").get<std::vector<std::string>>();
  RuleSet rules;
  try {
    rules = load_capture_rules(extra);
  } catch (const std::runtime_error& e) {
    throw skillrt::invalid_argument(std::string("npu-graph-capture: 'rules': ") + e.what());
  }
  json result = analyze_capture(text, source, rules);
  // Capture failures often come with an ordinary error too; its diagnosis adds codes and layer.
  const json diag = diagnose_text(text, source, load_diagnose_rules({}));
  result["codes"] = diag["codes"];
  result["diagnosis"] = {{"conclusion", diag["conclusion"]},
                         {"rule", diag["rule"].is_null() ? json(nullptr) : diag["rule"]["id"]},
                         {"layer_reached", diag["layer_reached"]}};
  return result;
}

}  // namespace skillrt::npu_graph
