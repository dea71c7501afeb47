// The pr-analysis plugin: one skill over the local (libgit2) and GitHub (libcurl) sources.
#include <skillrt/sdk.hpp>

#include "errors.hpp"
#include "run.hpp"
#include "skillrt_embedded_schemas.h"

namespace {

using skillrt::Json;
namespace pra = skillrt::pr_analysis;

Json handle(const Json& in, skillrt::Context& ctx) {
  pra::RunHooks hooks;
  hooks.progress = [&ctx](double done, double total, const std::string& what) {
    ctx.progress(done, total, what);
  };
  hooks.cancelled = [&ctx] { return ctx.cancelled(); };
  try {
    return pra::run_pr_analysis(in, hooks);
  } catch (const pra::InputError& e) {
    throw skillrt::invalid_argument(e.what());
  } catch (const pra::SourceFailure& e) {
    throw skillrt::SkillError(ctx.cancelled() ? SKILLRT_CANCELLED : SKILLRT_UNAVAILABLE, e.what());
  }
}

void register_skills(skillrt::Registrar& r) {
  r.skill("pr-analysis")
      .title("Upstream PyTorch PR impact on torch_npu")
      .description(
          "Labels upstream PyTorch PRs by their impact on torch_npu and op-plugin (high, medium, "
          "low, none, needs-review) with the evidence for each. "
          "Analyses upstream PyTorch PRs merged in a date window, a revision range or given by "
          "number (local clone via libgit2, or the GitHub REST API) and labels each with its "
          "impact on torch_npu / op-plugin (high, medium, low, none, needs-review), categories "
          "and an adaptation suggestion, with evidence: file, hunk lines, operator-level schema "
          "diff, rule id, and the NPU entries hit. Writes Excel (hyperlinks), Markdown, HTML "
          "(SVG chart) and JSON reports.")
      .input_schema(skillrt_embedded::schema("pr-analysis.input"))
      .output_schema(skillrt_embedded::schema("pr-analysis.output"))
      .idempotent()
      .open_world()
      .timeout_ms(1800000)
      .handler(handle);
}

}  // namespace

SKILLRT_PLUGIN("pr-analysis", "1.0.0", register_skills)
