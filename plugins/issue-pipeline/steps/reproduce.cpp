// Step reproduce: the failing test alone (compared with the CI log's failure) and its class as the
// baseline verify compares neighbours against.
#include "detail/case_runner.hpp"

namespace skillrt::issue_pipeline::detail {

void CaseRunner::step_reproduce() {
  const auto argv = test_argv(false);
  const CmdResult r = command("reproduce", "run the failing test", argv, worktree("pytorch"),
                              test_env(), test_timeout());
  check_test_run("reproduce", r, "the test command");
  Json result{{"command", argv}, {"run", run_record(r)}};
  const bool passed = target_passed(r);
  const Signature sig = failure_signature(r.output);
  result["signature"] = to_json(sig);
  std::string verdict;
  std::string reason;
  if (passed) {
    verdict = "not_reproduced";
    reason = "the test passes here (exit 0)";
  } else if (state_["log"].is_object()) {
    const Signature expected = failure_signature(read_file(state_["log"]["copy"]));
    const Comparison c = compare_signatures(expected, sig);
    verdict = c.same ? "reproduced" : "different_failure";
    reason = c.reason;
    result["log_signature"] = to_json(expected);
  } else {
    verdict = "reproduced";
    reason = "no CI log given; the test fails here (exit " + std::to_string(r.proc.exit_code) + ")";
  }
  result["verdict"] = verdict;
  result["reason"] = reason;
  // The class run is the baseline that verify compares neighbours against.
  const auto class_argv = test_argv(true);
  const CmdResult base = command("reproduce", "baseline of the neighbour tests (same class/file)",
                                 class_argv, worktree("pytorch"), test_env(), test_timeout());
  check_test_run("reproduce", base, "the neighbour baseline");
  result["baseline"] = Json{{"command", class_argv}, {"run", run_record(base)}};
  finish("reproduce", result);
}

}  // namespace skillrt::issue_pipeline::detail
