// The issue pipeline: a failing upstream test case driven through env, reproduce, diagnose, fix,
// verify and deliver, with every step's result in <workspace>/<case>/state.json.
#ifndef SKILLRT_ISSUE_PIPELINE_PIPELINE_HPP_
#define SKILLRT_ISSUE_PIPELINE_PIPELINE_HPP_

#include <skillrt/sdk.hpp>

#include <string>
#include <vector>

namespace skillrt::issue_pipeline {

const std::vector<std::string>& step_names();

// Runs one call of the skill (one case or a batch). Throws skillrt::SkillError for bad input and,
// for a single case, for a step that failed (after its state and reports are saved).
Json run_pipeline(const Json& input, skillrt::Context& ctx);

}  // namespace skillrt::issue_pipeline

#endif  // SKILLRT_ISSUE_PIPELINE_PIPELINE_HPP_
