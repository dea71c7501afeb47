// The skill's entry: input JSON in, result JSON out (and report files when output_dir is set).
#ifndef SKILLRT_PR_ANALYSIS_RUN_HPP_
#define SKILLRT_PR_ANALYSIS_RUN_HPP_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "rules.hpp"

namespace skillrt::pr_analysis {

using Json = nlohmann::json;

struct RunHooks {
  std::function<void(double done, double total, const std::string& what)> progress;
  std::function<bool()> cancelled;
  std::function<void(double seconds)> sleep;  // GitHub waits; tests record instead of sleeping
};

// The shipped pack plus the user's (`rules: <path>`); throws InputError on a bad pack.
RulePack load_rule_pack(const std::string& extra_path);

// Throws InputError (bad input: INVALID_ARGUMENT) or SourceFailure (source failed: UNAVAILABLE).
Json run_pr_analysis(const Json& input, const RunHooks& hooks);

// The tool result an agent reads carries at most this many evidence items and NPU hits per PR;
// the report files carry all of them.
inline constexpr size_t kListedInResult = 20;

// Trims each PR's evidence and npu_hits to kListedInResult, recording evidence_total /
// npu_hits_total; returns how many PRs were trimmed.
size_t trim_for_result(Json& prs);

}  // namespace skillrt::pr_analysis

#endif  // SKILLRT_PR_ANALYSIS_RUN_HPP_
