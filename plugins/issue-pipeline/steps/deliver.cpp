// Step deliver: the commit in each changed repository (or the test added to the disabled-test
// list), the PR description, and optionally the push and the pull request.
#include <filesystem>
#include <sstream>

#include "detail/case_runner.hpp"
#include "detail/text.hpp"
#include "plugin_io/atomic_file.hpp"

namespace skillrt::issue_pipeline::detail {

namespace fs = std::filesystem;

namespace {

// Lets the pipeline recognise its own commit on resume.
constexpr const char* kTrailer = "Issue-Pipeline-Case: ";

// The first not-applicable rule's first evidence line, as "<rule> log line <n>: <text>".
std::string not_applicable_evidence(const Json& diag) {
  for (const auto& r : diag["rules"]) {
    if (r["class"] == "not-applicable" && !r["evidence"].empty()) {
      return r["rule"].get<std::string>() + " log line " +
             std::to_string(r["evidence"][0]["line"].get<int>()) + ": " +
             r["evidence"][0]["text"].get<std::string>();
    }
  }
  return "";
}

}  // namespace

void CaseRunner::step_deliver() {
  const Json& fix = st("fix")["result"];
  const Json& diag = st("diagnose")["result"];
  const std::string test = state_["test"]["id"];
  const std::string route = state_["route"]["route"];
  const bool disable = fix["kind"] == "disable";
  std::vector<std::string> repos;
  if (disable) {
    repos.push_back(s_.disabled_repo);
    add_to_disabled_list(test, diag);
  } else {
    for (auto it = fix["repos"].begin(); it != fix["repos"].end(); ++it) repos.push_back(it.key());
  }
  // House format: a bracketed area, the test and what was done.
  std::string title = disable ? "[" + route + "] Disable " + test + " on NPU: not applicable"
                              : "[" + route + "] Fix " + test + " on NPU";
  const std::string msg_file = write_commit_message(title, disable);
  Json commits = Json::object();
  Json prs = st("deliver").value("prs_done", Json::object());
  for (const auto& repo : repos) commits[repo] = deliver_repo(repo, title, msg_file, prs);
  finish("deliver", Json{{"kind", disable ? "disable" : "commit"},
                         {"commits", commits},
                         {"disabled_list", disable ? Json(s_.disabled_repo + "/" + s_.disabled_path)
                                                   : Json(nullptr)}});
  st("deliver")["prs_done"] = prs;
  save();
}

// Adds the test with the diagnosis as its reason to the disabled-test list (once).
void CaseRunner::add_to_disabled_list(const std::string& test, const Json& diag) {
  const fs::path list = fs::path(worktree(s_.disabled_repo)) / s_.disabled_path;
  std::string existing = read_file(list.string());
  const std::string marker = "- test: " + test + "\n";
  if (existing.find(marker) != std::string::npos) return;
  if (existing.empty()) {
    existing = "# Upstream PyTorch tests not applicable to NPU, with the reason.\n";
  }
  Json quoted_reason = "not applicable to NPU: " + diag["decided_by"].get<std::string>();
  Json quoted_evidence = not_applicable_evidence(diag);
  existing += marker + "  reason: " + quoted_reason.dump() +
              "\n  evidence: " + quoted_evidence.dump() + "\n";
  fs::create_directories(list.parent_path());
  plugin_io::write_file_atomic(list.string(), existing);
}

// Body with cause, change and verification; trailers that let the pipeline recognise its own
// commit on resume. Returns the file it is written to.
std::string CaseRunner::write_commit_message(const std::string& title, bool disable) {
  const Json& fix = st("fix")["result"];
  const Json& diag = st("diagnose")["result"];
  const Json& verify = st("verify")["result"];
  std::ostringstream msg;
  msg << title << "\n\n";
  msg << "Root cause: " << diag["label"].get<std::string>() << " ("
      << diag["decided_by"].get<std::string>() << ")\n";
  if (!diag["rules"].empty() && !diag["rules"][0]["evidence"].empty()) {
    msg << "Evidence: " << diag["rules"][0]["evidence"][0]["text"].get<std::string>() << "\n";
  }
  if (!disable) {
    msg << "Changed: " << join(fix["files"].get<std::vector<std::string>>(), ", ") << "\n";
    msg << "Verified: the test passes; " << verify["neighbours"]["count"].get<int>()
        << " neighbour tests rerun, none broken; " << verify["related"]["runs"].size()
        << " related operator test files rerun\n";
  }
  msg << "\nUpstream-Test: " << state_["test"]["id"].get<std::string>() << "\n"
      << kTrailer << case_id_ << "\n";
  fs::create_directories(dir_ / "deliver");
  const std::string msg_file = (dir_ / "deliver" / "commit_message.txt").string();
  plugin_io::write_file_atomic(msg_file, msg.str());
  return msg_file;
}

// Commits what is staged in the repository's worktree. With nothing staged, the case's commit
// from an earlier attempt is taken; without one the step fails. Returns the commit.
std::string CaseRunner::commit_repo(const std::string& repo, const std::string& msg_file) {
  const std::string wt = worktree(repo);
  git("deliver", "stage", wt, {"add", "-A"});
  const CmdResult staged = git("deliver", "anything staged?", wt, {"diff", "--cached", "--quiet"});
  if (staged.proc.exit_code == 0) {
    const CmdResult last = git("deliver", "last commit", wt, {"log", "-1", "--format=%H%n%B"});
    if (last.output.find(kTrailer + case_id_) == std::string::npos) {
      failed("deliver", SKILLRT_FAILED_PRECONDITION,
             "nothing to commit in " + wt +
                 " and no commit of this case on its branch; "
                 "reset fix and run it again");
    }
    return first_line(last.output);
  }
  const CmdResult c = git("deliver", "commit", wt, {"commit", "-F", msg_file});
  if (!c.ok()) {
    failed("deliver", SKILLRT_FAILED_PRECONDITION,
           "git commit failed in " + wt + ": " + file_tail(c.output_file, 400) +
               "; fix the cause (hook, user.name/user.email) and rerun deliver");
  }
  return first_line(git("deliver", "new commit", wt, {"rev-parse", "HEAD"}).output);
}

// One repository's delivery: commit, PR description, and push and PR where pr.<repo> asks.
Json CaseRunner::deliver_repo(const std::string& repo, const std::string& title,
                              const std::string& msg_file, Json& prs) {
  const std::string wt = worktree(repo);
  const std::string sha = commit_repo(repo, msg_file);
  const std::string branch = st("env")["result"]["worktrees"][repo]["branch"];
  std::string templ_source;
  std::vector<std::string> used;
  const std::string body = pr_description(repo, &templ_source, &used);
  const std::string pr_file = (dir_ / "deliver" / ("pr_" + repo + ".md")).string();
  plugin_io::write_file_atomic(pr_file, body);
  Json entry{{"repo", repo},
             {"worktree", wt},
             {"branch", branch},
             {"commit", sha},
             {"message_file", msg_file},
             {"pr_description", pr_file},
             {"template", templ_source},
             {"template_headings_filled", used}};
  if (s_.pr.contains(repo)) publish(repo, title, body, branch, prs, entry);
  return entry;
}

// Pushes the branch when pr.<repo>.remote is set, and opens the PR unless an earlier attempt did:
// a PR is never opened twice.
void CaseRunner::publish(const std::string& repo, const std::string& title, const std::string& body,
                         const std::string& branch, Json& prs, Json& entry) {
  const Json& cfg = s_.pr[repo];
  if (cfg.contains("remote")) {
    const CmdResult push = git("deliver", "push the branch", worktree(repo),
                               {"push", cfg["remote"].get<std::string>(), branch + ":" + branch});
    if (!push.ok()) {
      failed("deliver", SKILLRT_UNAVAILABLE,
             "git push to " + cfg["remote"].get<std::string>() +
                 " failed: " + first_line(push.output) + "; the commit is made, rerun deliver");
    }
    entry["pushed_to"] = cfg["remote"];
  }
  if (prs.contains(repo)) {
    entry["pr"] = prs[repo];
    return;
  }
  entry["pr"] = open_pr(repo, cfg, title, body, branch);
  prs[repo] = entry["pr"];
  st("deliver")["prs_done"] = prs;
  save();
}

}  // namespace skillrt::issue_pipeline::detail
