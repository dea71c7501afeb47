// Step env: the shared environment checks, where the test is defined, the route, and a git
// worktree on the case's branch in each repository.
#include <filesystem>
#include <mutex>

#include "detail/case_runner.hpp"
#include "detail/text.hpp"

namespace skillrt::issue_pipeline::detail {

namespace fs = std::filesystem;

void CaseRunner::step_env() {
  const Json& shared = shared_.get();
  shared_.note_user(case_id_);
  const TestId id = parse_test_id(state_["test"]["id"]);
  const std::string pytorch = shared["repos"]["pytorch"]["path"];
  const TestLocation loc = locate_test(pytorch, id);
  if (!loc.found) {
    failed("env", SKILLRT_INVALID_ARGUMENT,
           "unknown test id " + id.raw + ": " + loc.why_not + " (at pytorch " +
               shared["repos"]["pytorch"]["head"].get<std::string>() +
               "); check the id against the pytorch checkout");
  }
  state_["test"]["file"] = loc.file;
  state_["test"]["definition"] = Json{{"file", loc.file},
                                      {"class", loc.class_name},
                                      {"class_line", loc.class_line},
                                      {"method", loc.method_name},
                                      {"method_line", loc.method_line}};
  const std::string source = read_file((fs::path(pytorch) / loc.file).string());
  std::string log;
  if (state_["log"].is_object()) log = read_file(state_["log"]["copy"]);
  const Route route = route_case(loc.file, source, log);
  state_["route"] = Json{{"route", route.route},
                         {"core_score", route.core_score},
                         {"distributed_score", route.distributed_score},
                         {"evidence", route.evidence}};
  const std::string branch = s_.branch_prefix + case_id_;
  Json trees = Json::object();
  for (const auto& repo : kRepos) trees[repo] = prepare_worktree(repo, shared, branch);
  finish("env", Json{{"shared_env", (s_.workspace / "shared_env.json").string()},
                     {"versions", shared["versions"]},
                     {"python", shared["python"]},
                     {"worktrees", trees},
                     {"test", state_["test"]["definition"]},
                     {"route", state_["route"]}});
}

// The case's worktree of one repository on `branch`: reused when it is already there on that
// branch, else added (with the branch, from the checkout's HEAD, when the branch is new).
Json CaseRunner::prepare_worktree(const std::string& repo, const Json& shared,
                                  const std::string& branch) {
  const std::string main = shared["repos"][repo]["path"];
  const std::string base = shared["repos"][repo]["head"];
  const std::string wt = worktree(repo);
  // git keeps worktree bookkeeping in the main repository; two cases adding at once race on it.
  std::lock_guard<std::mutex> lock(shared_.repo_mutex(repo));
  std::error_code ec;
  bool reuse = false;
  if (fs::exists(fs::path(wt) / ".git", ec)) {
    const CmdResult cur = git("env", "worktree branch", wt, {"rev-parse", "--abbrev-ref", "HEAD"});
    reuse = cur.ok() && cur.output.substr(0, cur.output.find('\n')) == branch;
  }
  if (!reuse) {
    // A run killed inside 'worktree add' can leave a half-made directory behind.
    git("env", "drop stale worktree records", main, {"worktree", "prune"});
    if (fs::exists(wt, ec)) fs::remove_all(wt, ec);
    const CmdResult has_branch = git("env", "branch exists?", main,
                                     {"show-ref", "--verify", "--quiet", "refs/heads/" + branch});
    fs::create_directories(fs::path(wt).parent_path());
    const CmdResult add =
        has_branch.ok() ? git("env", "worktree for the case", main, {"worktree", "add", wt, branch})
                        : git("env", "worktree and branch for the case", main,
                              {"worktree", "add", "-b", branch, wt, base});
    if (!add.ok()) {
      failed("env", SKILLRT_FAILED_PRECONDITION,
             "git worktree add failed in " + main + ": " + first_line(add.output) +
                 "; remove the branch " + branch + " or its worktree and rerun env");
    }
  }
  const CmdResult head = git("env", "worktree commit", wt, {"rev-parse", "HEAD"});
  return Json{{"checkout", main},
              {"worktree", wt},
              {"branch", branch},
              {"base_commit", base},
              {"head", first_line(head.output)},
              {"reused", reuse}};
}

}  // namespace skillrt::issue_pipeline::detail
