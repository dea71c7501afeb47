// A rule pack: ordered, documented regex rules over log lines (data/diagnose_rules.yaml,
// data/capture_rules.yaml, and user files in the same format). Format: data/README.md.
#ifndef SKILLRT_NPU_GRAPH_RULES_HPP_
#define SKILLRT_NPU_GRAPH_RULES_HPP_

#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::npu_graph {

struct Rule {
  std::string id;
  std::string cls;    // the conclusion class (diagnose) or failure kind (capture)
  std::string layer;  // python-api | cpp-core | opplugin-operator | acl-runtime
  std::string title;
  std::string topic;   // graph-mode topic, e.g. graph-break; empty when none
  std::string source;  // file the rule came from
  int priority = 100;  // lower wins
  double confidence = 0.5;
  // The operator rejected its inputs by design, so the layer that must change is whoever made
  // the call: diagnose re-attributes the conclusion from the calling traceback frame.
  bool caller_decides = false;
  std::vector<std::string> any_text, all_text, none_text;
  std::vector<std::regex> any, all, none;
  std::vector<std::string> next_steps;
};

struct RuleHit {
  const Rule* rule = nullptr;
  std::vector<size_t> lines;  // 0-based indices of lines that matched an `any` pattern
};

class RuleSet {
 public:
  // Parses a rule pack. `classes` lists the allowed values of `class`; `source` names the file
  // in error messages and evidence. Throws std::runtime_error naming file, rule and field.
  static RuleSet parse(std::string_view yaml, const std::string& source,
                       const std::set<std::string>& classes);

  // Adds `other`'s rules; a rule whose id already exists replaces the old one, so users can
  // override a built-in rule as well as add new ones.
  void merge(RuleSet other);

  // Hits ordered by priority, then by first matching line.
  std::vector<RuleHit> evaluate(const std::vector<std::string_view>& lines) const;

  const std::vector<Rule>& rules() const { return rules_; }
  int version() const { return version_; }

 private:
  std::vector<Rule> rules_;
  int version_ = 0;
};

}  // namespace skillrt::npu_graph

#endif  // SKILLRT_NPU_GRAPH_RULES_HPP_
