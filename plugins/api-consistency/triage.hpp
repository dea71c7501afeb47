// Two-pass triage: pass one names the symptom, pass two routes it to an exit (operator,
// framework, not_defect) through the documented rules in data/triage_rules.yaml.
#ifndef SKILLRT_API_CONSISTENCY_TRIAGE_HPP_
#define SKILLRT_API_CONSISTENCY_TRIAGE_HPP_

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::apic {

using Json = nlohmann::json;

struct LogLine {
  std::string source;  // file name, or "description"
  int line = 0;
  std::string text;
};

struct Condition {
  std::string fact;
  std::string op;
  std::string value;
  std::string text;  // as written, for evidence
};

struct Rule {
  std::string id;
  std::string symptom;
  std::string title;
  std::string exit;
  std::string cause;
  std::string conclusion;
  bool names_operator = false;
  std::vector<Condition> when;
  std::vector<std::string> next_steps;
  struct Variant {
    std::vector<Condition> when;  // empty: the rule's own
    std::string conclusion;       // empty: the rule's own
  };
  std::map<std::string, Variant> variants;
};

// A float32 matmul/conv path of reduced precision (HF32, TF32, float16 Cube), per chip and API
// group: whether it is on by default, and the text that switches it on or off.
struct ReducedPath {
  std::vector<std::string> chips;
  std::string group;
  std::string path;
  bool on_by_default = false;
  std::string source;
  std::string enable;   // regex over the case text; empty: nothing enables it
  std::string disable;  // regex over the case text; empty: nothing disables it
};

struct RuleSet {
  std::vector<ReducedPath> reduced_paths;
  std::string default_chip;
  std::vector<std::string> chips;
  std::map<std::string, std::vector<std::string>> groups;
  std::vector<Rule> symptoms;
  std::vector<Rule> rules;
};

// Parses a rule file; throws std::runtime_error naming `origin`, the rule id and the problem.
RuleSet load_rules(std::string_view yaml_text, const std::string& origin);

// API name -> aclnn kernel evidence from op-plugin's op_plugin_functions.yaml.
class AclnnMap {
 public:
  AclnnMap(std::string_view yaml_text, std::string origin);
  // {operator, confidence (declared | inferred), evidence} or null when the API is not listed.
  Json lookup(const std::string& api) const;

 private:
  struct Entry {
    int line = 0;
    std::string exec;  // empty when the entry declares no exec
    bool op_api = false;
  };
  std::map<std::string, std::vector<Entry>> by_name_;
  std::string origin_;
};

struct TriageInput {
  Json primary;              // the comparison that decides (first failing tensor), or null
  Json tensors;              // every comparison of the case (array), for per-op localisation
  Json runs;                 // {compared, differ, max_abs_diff, max_rel_diff} or null
  double memory_ratio = -1;  // device peak / CPU peak; < 0 when unknown
  std::vector<LogLine> log;  // log lines (file and line number kept for evidence)
  std::string description;
  std::string api;
  std::string chip;
  bool per_op = false;  // tensors are per-operator dumps in execution order
  // Evidence from the API's inputs (checks.hpp): {index_ties, residual, formula}, each optional.
  Json checks;
};

// {symptom, secondary_symptoms, exit, cause, conclusion, decided_by, rules_fired[{id, pass,
// conditions[{condition, value, evidence}]}], operator, next_steps, chip}
Json triage(const TriageInput& in, const RuleSet& rules, const AclnnMap& aclnn);

}  // namespace skillrt::apic

#endif  // SKILLRT_API_CONSISTENCY_TRIAGE_HPP_
