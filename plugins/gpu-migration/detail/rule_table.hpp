// The rule table: the documented data file (data/rules.json) that drives analysis and rewriting.
#ifndef SKILLRT_GPU_MIGRATION_DETAIL_RULE_TABLE_HPP_
#define SKILLRT_GPU_MIGRATION_DETAIL_RULE_TABLE_HPP_

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skillrt::gpu_migration::detail {

enum class MatchKind { kChain, kAttribute, kString, kImport, kText, kTransposeView };
enum class RewriteKind { kNone, kChain, kRenameAttribute, kStringPrefix, kStringReplace };

using Dotted = std::vector<std::string>;

struct Rule {
  std::string id;
  std::string domain;
  std::string effort;
  std::string alternative;
  std::string source;
  std::string reason;
  std::string equivalence;
  std::string followup;
  bool suggestion = false;
  bool version_check = false;

  MatchKind kind = MatchKind::kChain;
  std::vector<Dotted> patterns;  // chain and import rules
  std::string name;              // attribute rules
  bool call = false;             // the match must be followed by '('
  std::string needle;            // literal prefilter for string and text rules
  std::shared_ptr<const std::regex> regex;
  std::string regex_text;
  std::vector<std::string> files;  // text rules: glob on the file name

  RewriteKind rewrite = RewriteKind::kNone;
  std::vector<std::pair<Dotted, std::string>> rewrite_map;  // chain: prefix -> replacement
  std::string rewrite_from;
  std::string rewrite_to;
};

struct EffortClass {
  std::string id;
  int rank = 0;
  std::optional<double> days_per_finding;  // none: cannot be estimated
  std::string meaning;
};

struct Domain {
  std::string id;
  std::string title;
};

struct EquivalenceNote {
  std::string id;
  std::string from;
  std::string to;
  std::string definition_from;
  std::string definition_to;
  std::string agree_when;
  std::string numeric_check;
};

struct RuleTable {
  std::string name;
  std::string version;
  std::vector<std::string> origins;  // where the rules came from, for the report
  std::vector<Domain> domains;
  std::vector<EffortClass> effort_classes;
  std::vector<Rule> rules;
  std::map<std::string, EquivalenceNote> equivalence;

  const EffortClass* effort_class(const std::string& id) const;
  const Domain* domain(const std::string& id) const;
};

// Validates the document and throws skillrt::invalid_argument naming `origin` and the field.
RuleTable parse_rule_table(const nlohmann::json& doc, const std::string& origin);

// Rules in `extra` replace same-id rules in `base` in place; new ones go first so that they take
// precedence over the built-in rules. Equivalence notes are merged the same way.
void merge_rule_table(RuleTable& base, const RuleTable& extra);

// The rule table built into the plugin (data/rules.json at build time).
const RuleTable& builtin_rule_table();
std::string_view builtin_rules_text();
std::string_view builtin_apis_config_text();

// Loads a user rule file (same format; "domains" and "effort_classes" may be omitted) and merges
// it over the built-in table.
RuleTable rule_table_with_user_file(const std::string& path);

Dotted split_dotted(std::string_view text);
bool glob_match(std::string_view pattern, std::string_view name);

}  // namespace skillrt::gpu_migration::detail

#endif  // SKILLRT_GPU_MIGRATION_DETAIL_RULE_TABLE_HPP_
