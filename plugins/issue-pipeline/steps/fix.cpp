// Step fix: the patch given in the input (applied to all repositories or none) and whatever the
// worktrees hold, staged, diffed and syntax-checked; or, for a case that is not applicable, the
// decision to disable the test.
#include <filesystem>
#include <map>
#include <sstream>

#include "detail/case_runner.hpp"
#include "detail/text.hpp"
#include "plugin_io/atomic_file.hpp"

namespace skillrt::issue_pipeline::detail {

namespace fs = std::filesystem;

void CaseRunner::step_fix() {
  Json repos = Json::object();
  const Json patch = state_.value("pending_patch", Json(nullptr));
  std::string source = "worktree changes";
  if (patch.is_object() && !patch.empty()) {
    source = "patch given in the input";
    repos = apply_patch_set(patch);
  }
  Json all_files = Json::array();
  for (const auto& repo : kRepos) {
    const Json changes = staged_changes(repo);
    if (changes.is_null()) continue;
    for (const auto& [key, value] : changes.items()) repos[repo][key] = value;
    for (const auto& f : changes["files"]) all_files.push_back(repo + "/" + f.get<std::string>());
  }
  for (auto it = repos.begin(); it != repos.end();) {
    if (!it.value().contains("files")) {
      it = repos.erase(it);
    } else {
      ++it;
    }
  }
  const std::string cls = st("diagnose")["result"]["class"];
  if (all_files.empty()) {
    if (cls == "not-applicable") {
      finish("fix", Json{{"kind", "disable"},
                         {"source", "diagnosis"},
                         {"reason", "diagnosis class not-applicable (" +
                                        st("diagnose")["result"]["decided_by"].get<std::string>() +
                                        "); deliver marks the test in the disabled-test list"},
                         {"repos", Json::object()}});
      return;
    }
    std::vector<std::string> wts;
    for (const auto& r : kRepos) wts.push_back(worktree(r));
    failed("fix", SKILLRT_FAILED_PRECONDITION,
           "no patch given and no changes in the worktrees (" + join(wts, ", ") +
               "); pass patch: {<repo>: <diff or file>} or edit files there, then run step fix");
  }
  finish("fix",
         Json{{"kind", "patch"}, {"source", source}, {"repos", repos}, {"files", all_files}});
}

// Applies {repo: diff or file} to the worktrees. Every repository is checked first so the set
// applies entirely or not at all; a patch already applied (a rerun) is left as it is. Returns
// {repo: {patch_already_applied}}.
Json CaseRunner::apply_patch_set(const Json& patch) {
  fs::create_directories(dir_ / "fix");
  std::map<std::string, std::string> files;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string text = text_or_file(it.value().get<std::string>(), nullptr);
    const std::string file = (dir_ / "fix" / (it.key() + ".input.patch")).string();
    plugin_io::write_file_atomic(file, text);
    files[it.key()] = file;
  }
  std::map<std::string, bool> already;
  for (const auto& [repo, file] : files) {
    const CmdResult check =
        git("fix", "does the patch apply?", worktree(repo), {"apply", "--check", file});
    if (check.ok()) {
      already[repo] = false;
      continue;
    }
    const CmdResult rev = git("fix", "is the patch already applied?", worktree(repo),
                              {"apply", "--reverse", "--check", file});
    if (!rev.ok()) {
      failed("fix", SKILLRT_FAILED_PRECONDITION,
             "patch for " + repo + " does not apply to " + worktree(repo) + " (" +
                 first_line(check.output) + "); regenerate it against commit " +
                 st("env")["result"]["worktrees"][repo]["base_commit"].get<std::string>());
    }
    already[repo] = true;
  }
  for (const auto& [repo, file] : files) {
    if (already[repo]) continue;
    const CmdResult a = git("fix", "apply the patch", worktree(repo), {"apply", file});
    if (!a.ok()) {
      failed("fix", SKILLRT_FAILED_PRECONDITION,
             "git apply failed in " + worktree(repo) + ": " + first_line(a.output));
    }
  }
  Json repos = Json::object();
  for (const auto& [repo, was] : already) repos[repo]["patch_already_applied"] = was;
  return repos;
}

// Stages everything in the repository's worktree and records it: {files, diff_file, diffstat},
// or null when nothing changed. Changed Python files must parse.
Json CaseRunner::staged_changes(const std::string& repo) {
  const std::string wt = worktree(repo);
  git("fix", "stage the worktree changes", wt, {"add", "-A"});
  const CmdResult names = git("fix", "changed files", wt, {"diff", "--cached", "--name-only"});
  std::vector<std::string> files;
  std::istringstream lines(names.output);
  std::string l;
  while (std::getline(lines, l)) {
    if (!l.empty()) files.push_back(l);
  }
  if (files.empty()) return nullptr;
  const CmdResult stat = git("fix", "diff stat", wt, {"diff", "--cached", "--stat"});
  const CmdResult diff = git("fix", "diff", wt, {"diff", "--cached"});
  fs::create_directories(dir_ / "fix");
  const std::string diff_file = (dir_ / "fix" / (repo + ".diff")).string();
  plugin_io::write_file_atomic(diff_file, diff.output);
  std::vector<std::string> py;
  for (const auto& f : files) {
    std::error_code ec;
    if (f.size() > 3 && f.substr(f.size() - 3) == ".py" &&
        fs::is_regular_file(fs::path(wt) / f, ec)) {
      py.push_back(f);
    }
  }
  if (!py.empty()) syntax_check(repo, wt, py);
  return Json{
      {"files", files}, {"diff_file", diff_file}, {"diffstat", file_tail(stat.output_file, 2000)}};
}

// A syntax error is cheaper to find here than in verify; ast.parse writes no bytecode.
void CaseRunner::syntax_check(const std::string& repo, const std::string& wt,
                              const std::vector<std::string>& py) {
  std::vector<std::string> argv{state_["settings"]["python"], "-c",
                                "import ast,sys\nfor f in sys.argv[1:]:\n    "
                                "ast.parse(open(f,'rb').read(), f)"};
  argv.insert(argv.end(), py.begin(), py.end());
  const CmdResult c =
      command("fix", "syntax check of changed Python files", argv, wt, test_env(), test_timeout());
  check_test_run("fix", c, "the syntax check");
  if (!c.ok()) {
    failed("fix", SKILLRT_FAILED_PRECONDITION,
           "changed Python files in " + repo + " do not parse: " +
               first_line(file_tail(c.output_file, 400)) + " (" + c.output_file + ")");
  }
}

}  // namespace skillrt::issue_pipeline::detail
