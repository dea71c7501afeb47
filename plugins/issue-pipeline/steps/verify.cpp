// Step verify: the test must pass after the fix, and no neighbour (same class or file) nor related
// operator test that passed before may fail after it.
#include <map>

#include "detail/case_runner.hpp"
#include "detail/text.hpp"

namespace skillrt::issue_pipeline::detail {

namespace {

using Outcomes = std::map<std::string, std::string>;

bool passes(const std::string& outcome) {
  return outcome == "ok" || outcome == "skipped" || outcome == "expected failure";
}

// Compares the neighbours' outcomes after the fix with the reproduce baseline. A neighbour that
// passed and fails now, or is gone, is broken by the fix; one that failed before too is listed
// apart. Returns how many neighbours ran.
int compare_neighbours(const Outcomes& before, const Outcomes& after, const std::string& target,
                       Json* broken, Json* still_failing) {
  int neighbours = 0;
  for (const auto& [test, outcome] : after) {
    if (test == target) continue;
    ++neighbours;
    auto b = before.find(test);
    const bool was_ok = b != before.end() && b->second == "ok";
    if (passes(outcome)) continue;
    (was_ok ? broken : still_failing)
        ->push_back(Json{{"test", test},
                         {"before", b == before.end() ? "absent" : b->second},
                         {"after", outcome}});
  }
  for (const auto& [test, outcome] : before) {
    if (test != target && after.count(test) == 0) {
      broken->push_back(Json{{"test", test}, {"before", outcome}, {"after", "missing"}});
    }
  }
  return neighbours;
}

std::string failure_reasons(bool target_ok, const std::string& output_file, const Json& broken,
                            const Json& related_broken) {
  std::vector<std::string> why;
  if (!target_ok) why.push_back("the test still fails (" + output_file + ")");
  for (const auto& b : broken)
    why.push_back("the fix breaks neighbour " + b["test"].get<std::string>());
  for (const auto& b : related_broken) {
    why.push_back("the fix breaks related " + b["file"].get<std::string>() + " " +
                  b["test"].get<std::string>());
  }
  return join(why, "; ");
}

}  // namespace

void CaseRunner::step_verify() {
  const Json& fix = st("fix")["result"];
  if (fix["kind"] == "disable") {
    finish("verify", Json{{"passed", true},
                          {"skipped", true},
                          {"reason", "no code change: the case is to be disabled"}});
    return;
  }
  const auto argv = test_argv(false);
  const CmdResult r = command("verify", "rerun the failing test", argv, worktree("pytorch"),
                              test_env(), test_timeout());
  check_test_run("verify", r, "the test command");
  const bool target_ok = target_passed(r);
  const auto class_argv = test_argv(true);
  const CmdResult n = command("verify", "neighbour tests (same class/file)", class_argv,
                              worktree("pytorch"), test_env(), test_timeout());
  check_test_run("verify", n, "the neighbour tests");
  const auto before = st("reproduce")["result"]["baseline"]["run"]["results"].get<Outcomes>();
  Json broken = Json::array();
  Json still_failing = Json::array();
  const int neighbours = compare_neighbours(before, unittest_results(n.output), unittest_key(),
                                            &broken, &still_failing);
  Json related_broken = Json::array();
  const Json related = rerun_related(&related_broken);
  const bool passed = target_ok && broken.empty() && related_broken.empty();
  Json result{
      {"passed", passed},
      {"target", {{"test", state_["test"]["id"]}, {"passed", target_ok}, {"run", run_record(r)}}},
      {"neighbours",
       {{"count", neighbours},
        {"broken_by_fix", broken},
        {"failing_before_and_after", still_failing},
        {"run", run_record(n)}}},
      {"related", {{"runs", related}, {"broken_by_fix", related_broken}}}};
  if (!passed) {
    failed("verify", SKILLRT_FAILED_PRECONDITION,
           failure_reasons(target_ok, r.output_file, broken, related_broken) +
               ". Change the fix (edit the worktrees or pass a new patch), then reset "
               "fix and run it again",
           result);
  }
  finish("verify", result);
}

// Reruns the related operator tests diagnose found; a test that passed in their baseline and fails
// now goes to `related_broken`. Returns the runs.
Json CaseRunner::rerun_related(Json* related_broken) {
  Json related = Json::array();
  for (const auto& rel : st("diagnose")["result"]["related_tests"]) {
    const std::string wt = worktree(rel["repo"]);
    const std::vector<std::string> rargv = rel["command"];
    const CmdResult rr =
        command("verify", "related operator test " + rel["file"].get<std::string>(), rargv, wt,
                test_env(), test_timeout());
    check_test_run("verify", rr, "the related test " + rel["file"].get<std::string>());
    const auto rb = rel["baseline"]["results"].get<Outcomes>();
    const auto ra = unittest_results(rr.output);
    for (const auto& [test, outcome] : ra) {
      auto b = rb.find(test);
      if (outcome != "ok" && outcome != "skipped" && b != rb.end() && b->second == "ok") {
        related_broken->push_back(
            Json{{"file", rel["file"]}, {"test", test}, {"before", "ok"}, {"after", outcome}});
      }
    }
    related.push_back(Json{{"repo", rel["repo"]}, {"file", rel["file"]}, {"run", run_record(rr)}});
  }
  return related;
}

}  // namespace skillrt::issue_pipeline::detail
