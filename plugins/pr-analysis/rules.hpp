// The declarative rule pack: categories and rules read from YAML (the shipped pack is embedded
// in the .so; a user pack given as `rules: <path>` adds rules and categories, or replaces a
// shipped rule of the same id). See data/README.md for the format.
#ifndef SKILLRT_PR_ANALYSIS_RULES_HPP_
#define SKILLRT_PR_ANALYSIS_RULES_HPP_

#include <string>
#include <string_view>
#include <vector>

namespace skillrt::pr_analysis {

enum class Impact { kNone = 0, kLow = 1, kMedium = 2, kHigh = 3 };
std::string_view to_string(Impact impact);
bool parse_impact(std::string_view text, Impact* out);

struct Category {
  std::string id;
  std::string title;
};

struct Rule {
  std::string id;
  std::string category;
  Impact impact = Impact::kNone;
  std::string suggestion;
  std::vector<std::string> paths;          // globs (`**`, `*`, `?`); empty: any path
  std::vector<std::string> exclude_paths;  // globs
  std::vector<std::string> hunk_contains;  // literal substrings of a changed line; any of
  std::vector<std::string> op_changes;     // operator-diff kinds; any of
  std::vector<std::string> labels;         // PR labels (GitHub source); any of
  bool no_op_changes = false;  // fires only when the operator diff of the file found nothing
  std::string origin;          // "file:line" of the rule, for evidence
};

struct RulePack {
  std::vector<Category> categories;
  std::vector<Rule> rules;
  std::vector<std::string> sources;  // where each part came from

  const Category* category(std::string_view id) const;
};

// Parses a pack; `name` is used in errors and in each rule's origin. Throws std::runtime_error
// naming the file, line and field on any problem.
RulePack parse_rule_pack(std::string_view yaml_text, const std::string& name);

// Adds `extra` to `base`: new categories and rules are appended, a rule with an existing id
// replaces it (so a team can retune a shipped rule).
void merge_rule_pack(RulePack& base, const RulePack& extra);

// Path glob: `**` crosses '/', `*` and `?` do not.
bool glob_match(std::string_view pattern, std::string_view path);

// The operator-diff kinds a rule may name.
const std::vector<std::string>& op_change_kinds();

}  // namespace skillrt::pr_analysis

#endif  // SKILLRT_PR_ANALYSIS_RULES_HPP_
