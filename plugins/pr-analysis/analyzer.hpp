// Applies the rule pack to change sets and folds them into one record per PR (a PR landed
// twice keeps both commits; a revert is its own record). Each change set is analysed when it
// arrives and its diff is not kept.
#ifndef SKILLRT_PR_ANALYSIS_ANALYZER_HPP_
#define SKILLRT_PR_ANALYSIS_ANALYZER_HPP_

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "model.hpp"
#include "npu_side.hpp"
#include "rules.hpp"

namespace skillrt::pr_analysis {

using Json = nlohmann::json;

struct PrRecord {
  std::string key;
  Json pr;  // number or null
  bool revert = false;
  std::string title;
  std::string author;
  int64_t time = 0;
  std::vector<std::string> commits;
  std::string pr_source;
  std::vector<std::string> labels;
  int impact = -1;  // Impact as int; -1 while no rule fired (needs-review)
  std::set<std::string> categories;
  std::vector<std::string> rules;  // in firing order, unique
  Json evidence = Json::array();
  Json npu_hits = Json::array();
  Json files = Json::array();
  std::vector<std::string> unmatched_files;
  std::vector<std::string> problems;
  std::set<std::string> seen_npu;           // dedup of npu_hits
  std::map<std::string, size_t> rule_hits;  // firings per rule, listed or not
};

class Analyzer {
 public:
  Analyzer(const RulePack& pack, const NpuIndex* npu, std::string repo_url);

  void add(const ChangeSet& cs);
  size_t change_sets() const { return change_sets_; }

  // {"prs": [...], "summary": {...}}, PRs in merge order.
  Json result() const;

 private:
  PrRecord& record_for(const ChangeSet& cs);
  void fire(PrRecord& rec, const Rule& rule, Json evidence, const std::string& sha);
  void npu_hits_for_path(PrRecord& rec, const std::string& path);
  void npu_hits_for_op(PrRecord& rec, const std::string& op, const std::string& rule);

  const RulePack& pack_;
  const NpuIndex* npu_;
  std::string repo_url_;
  std::vector<PrRecord> records_;
  std::map<std::string, size_t> by_key_;
  size_t change_sets_ = 0;
};

// The impact label of a record: "high", "medium", "low", "none" or "needs-review".
std::string impact_label(int impact);

}  // namespace skillrt::pr_analysis

#endif  // SKILLRT_PR_ANALYSIS_ANALYZER_HPP_
