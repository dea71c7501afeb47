// The issue-pipeline plugin: one skill that drives a failing upstream test case on NPU from
// reproduction to a delivered fix, resumable per step.
#include <skillrt/sdk.hpp>

#include "pipeline.hpp"
#include "skillrt_embedded_schemas.h"

namespace {

void register_skills(skillrt::Registrar& r) {
  r.skill("issue-pipeline")
      .title("Upstream test case on NPU: reproduce, diagnose, fix, verify, deliver")
      .description(
          "Takes a failing upstream PyTorch test on NPU through setup, reproduction, diagnosis, "
          "fix, verification and PR, one recorded step at a time. "
          "Drives a failing upstream PyTorch test case (pytest or unittest id) on NPU through "
          "env (pytorch, torch_npu, op-plugin checkouts at matching versions; a git worktree "
          "and branch per repository), reproduce (test with a timeout, compared with the CI "
          "log), diagnose (npu-graph-diagnose, op-test triage, api-consistency; root-cause "
          "class with evidence and candidate files), fix (a patch or worktree edits), verify "
          "(the test, its neighbours, related operator tests) and deliver (commit, PR "
          "description from the template, optional PR through the GitHub or GitCode API, or "
          "the disabled-test list). Routes core vs distributed. Each step's result, commands "
          "and output go to <workspace>/<case>/state.json, so a run resumes where it stopped; "
          "batches run cases in parallel, each isolated.")
      .input_schema(skillrt_embedded::schema("issue-pipeline.input"))
      .output_schema(skillrt_embedded::schema("issue-pipeline.output"))
      .destructive()
      .open_world()
      .timeout_ms(4 * 3600 * 1000)
      .handler([](const skillrt::Json& in, skillrt::Context& ctx) {
        return skillrt::issue_pipeline::run_pipeline(in, ctx);
      });
}

}  // namespace

SKILLRT_PLUGIN("issue-pipeline", "1.0.0", register_skills)
