// The skill's entry: settings, the shared environment, and one case or a batch. The steps live in
// steps/, one case's state machine in detail/case_runner.*, the batch mode in detail/batch.*.
#include "pipeline.hpp"

#include <filesystem>

#include "detail/batch.hpp"
#include "detail/case_runner.hpp"
#include "detail/settings.hpp"
#include "detail/shared_env.hpp"

namespace skillrt::issue_pipeline {

const std::vector<std::string>& step_names() { return detail::kSteps; }

Json run_pipeline(const Json& input, Context& ctx) {
  const detail::Settings s = detail::read_settings(input);
  std::error_code ec;
  std::filesystem::create_directories(s.workspace, ec);
  if (ec) {
    throw detail::fail(SKILLRT_INVALID_ARGUMENT,
                       "workspace " + s.workspace.string() + " cannot be created: " + ec.message());
  }
  detail::SharedEnv shared(s, ctx);
  if (input.contains("cases")) return detail::run_batch(input, s, shared, ctx);
  if (!input.contains("case") && !input.contains("case_id")) {
    throw detail::fail(SKILLRT_INVALID_ARGUMENT, "give case (a test id) or cases (a batch)");
  }
  detail::CaseRunner runner(s, input, shared, ctx, false);
  Json out = runner.run();
  shared.finish();
  out["mode"] = "case";
  return out;
}

}  // namespace skillrt::issue_pipeline
