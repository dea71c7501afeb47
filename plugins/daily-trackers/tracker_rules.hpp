// The vllm-tracker rule file: filters that drop items, and the model and topic tables that
// select and rate the rest. The shipped file (data/tracker_rules.yaml) is embedded in the .so;
// a user file given as `rules` adds entries or replaces a shipped one of the same id. Every
// rating cites the rule (id and file:line) and the text it matched. Format: docs/daily-trackers.md.
#ifndef SKILLRT_DAILY_TRACKERS_TRACKER_RULES_HPP_
#define SKILLRT_DAILY_TRACKERS_TRACKER_RULES_HPP_

#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace skillrt::daily_trackers {

enum class Rating { kNone = 0, kLow = 1, kMedium = 2, kHigh = 3 };
std::string_view to_string(Rating r);

struct MatchRule {
  std::string id;
  std::string kind;  // "model" or "topic"
  std::string title;
  Rating rating = Rating::kLow;
  std::string why;                    // what a match means for Ascend, shown beside the rating
  std::vector<std::string> patterns;  // ECMAScript regexes, case-insensitive
  std::vector<std::regex> compiled;
  std::vector<std::string> labels;  // exact label names (any of)
  std::vector<std::string> paths;   // globs over changed files (local mode)
  std::string origin;               // "file:line"
};

struct Filters {
  std::vector<std::string> exclude_authors;
  std::vector<std::string> exclude_labels;
  std::vector<std::string> exclude_title_patterns;
  std::vector<std::regex> exclude_title;
  std::string origin;
};

struct TrackerRules {
  Filters filters;
  std::vector<MatchRule> models;
  std::vector<MatchRule> topics;
  std::vector<std::string> sources;
};

struct Citation {
  std::string rule;  // "topic:mtp"
  std::string title;
  std::string origin;
  std::string field;    // title, body, labels, files
  std::string matched;  // the text around the match, one line
  Rating rating = Rating::kNone;
  std::string why;

  Json to_json() const;
};

struct Assessment {
  Rating rating = Rating::kNone;
  std::vector<std::string> models;  // rule ids, table order
  std::vector<std::string> topics;
  std::vector<Citation> citations;
  std::string excluded_by;  // the filter that dropped the item, or ""
};

// Throws InputError naming the file, line and field.
TrackerRules parse_tracker_rules(std::string_view yaml_text, const std::string& name);
void merge_tracker_rules(TrackerRules& base, const TrackerRules& extra);
Assessment assess(const TrackerRules& rules, const TrackedItem& item);

}  // namespace skillrt::daily_trackers

#endif  // SKILLRT_DAILY_TRACKERS_TRACKER_RULES_HPP_
