// The batch mode: several cases in parallel, each isolated, over one shared environment, with a
// summary table (<workspace>/batch_summary.md and .json).
#ifndef SKILLRT_ISSUE_PIPELINE_DETAIL_BATCH_HPP_
#define SKILLRT_ISSUE_PIPELINE_DETAIL_BATCH_HPP_

#include <skillrt/sdk.hpp>

#include "detail/settings.hpp"
#include "detail/shared_env.hpp"

namespace skillrt::issue_pipeline::detail {

// Runs input["cases"]; one case's failure is reported in its row and the others go on. Throws
// SkillError only for two cases with one case id.
Json run_batch(const Json& input, const Settings& s, SharedEnv& shared, Context& ctx);

}  // namespace skillrt::issue_pipeline::detail

#endif  // SKILLRT_ISSUE_PIPELINE_DETAIL_BATCH_HPP_
