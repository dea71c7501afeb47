#include "rules.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <stdexcept>

namespace skillrt::npu_graph {
namespace {

constexpr size_t kMaxEvidenceLines = 40;
const std::set<std::string> kLayers = {"python-api", "cpp-core", "opplugin-operator",
                                       "acl-runtime"};

std::vector<std::string> string_list(const YAML::Node& node, const std::string& where) {
  std::vector<std::string> out;
  if (!node) return out;
  if (!node.IsSequence()) throw std::runtime_error(where + " must be a list of strings");
  for (const auto& item : node) out.push_back(item.as<std::string>());
  return out;
}

std::vector<std::regex> compile(const std::vector<std::string>& patterns, bool icase,
                                const std::string& where) {
  std::vector<std::regex> out;
  auto flags = std::regex::ECMAScript | std::regex::optimize;
  if (icase) flags |= std::regex::icase;
  for (const std::string& p : patterns) {
    try {
      out.emplace_back(p, flags);
    } catch (const std::regex_error& e) {
      throw std::runtime_error(where + ": pattern '" + p + "' is not a valid ECMAScript regex (" +
                               e.what() + ")");
    }
  }
  return out;
}

bool matches_any_line(const std::regex& re, const std::vector<std::string_view>& lines) {
  for (std::string_view line : lines) {
    if (std::regex_search(line.begin(), line.end(), re)) return true;
  }
  return false;
}

}  // namespace

RuleSet RuleSet::parse(std::string_view yaml, const std::string& source,
                       const std::set<std::string>& classes) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error("rule file " + source + ": " + e.what() + ": fix the YAML syntax");
  }
  RuleSet set;
  set.version_ = root["version"] ? root["version"].as<int>() : 0;
  if (set.version_ != 1) {
    throw std::runtime_error("rule file " + source +
                             ": 'version: 1' is required (this plugin reads format 1)");
  }
  if (!root["rules"] || !root["rules"].IsSequence()) {
    throw std::runtime_error("rule file " + source + ": 'rules' must be a list");
  }
  std::set<std::string> seen;
  for (const auto& node : root["rules"]) {
    Rule r;
    r.source = source;
    r.id = node["id"] ? node["id"].as<std::string>() : "";
    const std::string where = "rule file " + source + ", rule '" + r.id + "'";
    if (r.id.empty()) throw std::runtime_error("rule file " + source + ": a rule lacks 'id'");
    if (!seen.insert(r.id).second) throw std::runtime_error(where + ": duplicate id");
    r.cls = node["class"] ? node["class"].as<std::string>() : "";
    if (!classes.count(r.cls)) {
      std::string allowed;
      for (const auto& c : classes) allowed += (allowed.empty() ? "" : ", ") + c;
      throw std::runtime_error(where + ": 'class' must be one of " + allowed);
    }
    r.layer = node["layer"] ? node["layer"].as<std::string>() : "";
    if (!kLayers.count(r.layer)) {
      throw std::runtime_error(where +
                               ": 'layer' must be python-api, cpp-core, opplugin-operator or "
                               "acl-runtime");
    }
    r.title = node["title"] ? node["title"].as<std::string>() : r.id;
    r.topic = node["topic"] ? node["topic"].as<std::string>() : "";
    r.priority = node["priority"] ? node["priority"].as<int>() : 100;
    r.confidence = node["confidence"] ? node["confidence"].as<double>() : 0.5;
    if (r.confidence <= 0 || r.confidence > 1) {
      throw std::runtime_error(where + ": 'confidence' must be in (0, 1]");
    }
    r.caller_decides = node["caller_decides"] && node["caller_decides"].as<bool>();
    const bool icase = node["icase"] && node["icase"].as<bool>();
    r.any_text = string_list(node["any"], where + ": 'any'");
    r.all_text = string_list(node["all"], where + ": 'all'");
    r.none_text = string_list(node["none"], where + ": 'none'");
    if (r.any_text.empty()) throw std::runtime_error(where + ": 'any' needs at least one pattern");
    r.any = compile(r.any_text, icase, where);
    r.all = compile(r.all_text, icase, where);
    r.none = compile(r.none_text, icase, where);
    r.next_steps = string_list(node["next_steps"], where + ": 'next_steps'");
    set.rules_.push_back(std::move(r));
  }
  return set;
}

void RuleSet::merge(RuleSet other) {
  for (Rule& r : other.rules_) {
    auto it = std::find_if(rules_.begin(), rules_.end(),
                           [&](const Rule& mine) { return mine.id == r.id; });
    if (it != rules_.end()) {
      *it = std::move(r);
    } else {
      rules_.push_back(std::move(r));
    }
  }
}

std::vector<RuleHit> RuleSet::evaluate(const std::vector<std::string_view>& lines) const {
  std::vector<RuleHit> hits;
  for (const Rule& rule : rules_) {
    RuleHit hit{&rule, {}};
    for (size_t i = 0; i < lines.size() && hit.lines.size() < kMaxEvidenceLines; ++i) {
      for (const std::regex& re : rule.any) {
        if (std::regex_search(lines[i].begin(), lines[i].end(), re)) {
          hit.lines.push_back(i);
          break;
        }
      }
    }
    if (hit.lines.empty()) continue;
    bool ok = true;
    for (const std::regex& re : rule.all) ok = ok && matches_any_line(re, lines);
    for (const std::regex& re : rule.none) ok = ok && !matches_any_line(re, lines);
    if (ok) hits.push_back(std::move(hit));
  }
  std::stable_sort(hits.begin(), hits.end(), [](const RuleHit& a, const RuleHit& b) {
    if (a.rule->priority != b.rule->priority) return a.rule->priority < b.rule->priority;
    return a.lines.front() < b.lines.front();
  });
  return hits;
}

}  // namespace skillrt::npu_graph
