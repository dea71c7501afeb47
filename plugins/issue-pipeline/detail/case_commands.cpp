// The commands a case runs (recorded in state.json with their output files) and the test
// command line with the records of its runs.
#include <filesystem>

#include "detail/case_runner.hpp"
#include "detail/files.hpp"
#include "detail/text.hpp"

namespace skillrt::issue_pipeline::detail {

namespace fs = std::filesystem;

namespace {

constexpr size_t kTail = 4000;

}  // namespace

CmdResult CaseRunner::command(const std::string& step, const std::string& purpose,
                              const std::vector<std::string>& argv, const std::string& cwd,
                              std::map<std::string, std::string> env, double timeout_s) {
  Json& s = st(step);
  const int attempt = s.value("attempts", 1);
  const size_t index = s["commands"].size() + 1;
  fs::create_directories(dir_ / "logs");
  const std::string out =
      (dir_ / "logs" /
       (step + "-a" + std::to_string(attempt) + "-" + std::to_string(index) + ".log"))
          .string();
  env.emplace("LC_ALL", "C");
  env.emplace("GIT_TERMINAL_PROMPT", "0");
  Json entry{{"purpose", purpose},      {"argv", argv},       {"cwd", cwd},
             {"started_at", now_utc()}, {"output_file", out}, {"status", "running"}};
  if (timeout_s > 0) entry["timeout_s"] = timeout_s;
  Json env_shown = Json::object();
  for (const auto& [k, v] : env) {
    if (k != "LC_ALL" && k != "GIT_TERMINAL_PROMPT") env_shown[k] = v;
  }
  if (!env_shown.empty()) entry["env"] = env_shown;
  s["commands"].push_back(entry);
  save();  // a kill while it runs leaves the command and its output file on record
  ProcessSpec spec{argv, cwd, env, out, timeout_s};
  CmdResult r;
  r.proc = run_process(spec, [this] { return ctx_.cancelled(); });
  r.output = r.proc.start_error.empty() ? read_file(out) : r.proc.start_error;
  r.output_file = out;
  Json& e = s["commands"][index - 1];
  e["finished_at"] = now_utc();
  e["exit_code"] = r.proc.exit_code;
  e["seconds"] = r.proc.seconds;
  if (r.proc.signal != 0) e["signal"] = r.proc.signal;
  if (r.proc.timed_out) e["timed_out"] = true;
  if (r.proc.cancelled) e["cancelled"] = true;
  if (!r.proc.start_error.empty()) e["start_error"] = r.proc.start_error;
  e["status"] = r.proc.timed_out ? "timed out" : (r.ok() ? "ok" : "failed");
  e["output_tail"] = r.proc.start_error.empty() ? file_tail(out, kTail) : r.output;
  save();
  if (r.proc.cancelled) {
    failed(step, SKILLRT_CANCELLED, "cancelled while running: " + join(argv, " "));
  }
  return r;
}

CmdResult CaseRunner::git(const std::string& step, const std::string& purpose,
                          const std::string& repo_dir, std::vector<std::string> args) {
  std::vector<std::string> argv{"git", "-C", repo_dir};
  argv.insert(argv.end(), args.begin(), args.end());
  return command(step, purpose, argv, repo_dir, {}, 300);
}

std::string CaseRunner::worktree(const std::string& repo) {
  return (dir_ / "worktrees" / repo).string();
}

std::map<std::string, std::string> CaseRunner::worktrees() {
  std::map<std::string, std::string> m;
  for (const auto& r : kRepos) m[r] = worktree(r);
  return m;
}

std::map<std::string, std::string> CaseRunner::test_env(bool blocking) {
  std::map<std::string, std::string> env = s_.env;
  env["PYTHONPATH"] =
      worktree("torch_npu") + ":" + worktree("op_plugin") + ":" + worktree("pytorch");
  // Bytecode caches would show up as untracked files in the worktrees and end up in commits.
  env["PYTHONDONTWRITEBYTECODE"] = "1";
  if (blocking) env["ASCEND_LAUNCH_BLOCKING"] = "1";
  return env;
}

// The test alone, or its whole class (module for a pytest function), through the configured
// test_command template or the default runner.
std::vector<std::string> CaseRunner::test_argv(bool whole_class) {
  const TestId id = parse_test_id(state_["test"]["id"]);
  const std::string file = state_["test"]["file"];
  std::string target;
  if (id.cls.empty()) {
    target = whole_class ? file : file + "::" + id.method;
  } else {
    target = whole_class ? id.cls : id.cls + "." + id.method;
  }
  const Json& tmpl = state_["settings"]["test_command"];
  if (tmpl.is_array() && !tmpl.empty()) {
    std::vector<std::string> argv;
    for (const auto& part : tmpl) {
      std::string p = part.get<std::string>();
      auto subst = [&](const std::string& key, const std::string& value) {
        size_t pos;
        while ((pos = p.find(key)) != std::string::npos) p.replace(pos, key.size(), value);
      };
      subst("{python}", state_["settings"]["python"]);
      subst("{file}", file);
      subst("{test}", target);
      subst("{id}", id.raw);
      argv.push_back(p);
    }
    return argv;
  }
  const std::string py = state_["settings"]["python"];
  if (id.cls.empty()) return {py, "-m", "pytest", "-v", target};
  return {py, file, "-v", target};
}

double CaseRunner::test_timeout() { return state_["settings"]["test_timeout_s"].get<double>(); }

std::string CaseRunner::unittest_key() {
  const TestId id = parse_test_id(state_["test"]["id"]);
  return id.cls + "." + id.method;
}

bool CaseRunner::target_passed(const CmdResult& r) {
  if (!r.ok()) return false;
  const auto results = unittest_results(r.output);
  auto it = results.find(unittest_key());
  return it == results.end() || it->second == "ok" || it->second == "expected failure";
}

Json CaseRunner::run_record(const CmdResult& r) {
  Json j{{"exit_code", r.proc.exit_code},
         {"output_file", r.output_file},
         {"results", unittest_results(r.output)}};
  if (r.proc.timed_out) j["timed_out"] = true;
  return j;
}

void CaseRunner::check_test_run(const std::string& step, const CmdResult& r,
                                const std::string& what) {
  if (!r.proc.start_error.empty()) {
    failed(
        step, SKILLRT_FAILED_PRECONDITION,
        what + " could not start: " + r.proc.start_error + "; check 'python' and 'test_command'");
  }
  if (r.proc.timed_out) {
    failed(
        step, SKILLRT_DEADLINE_EXCEEDED,
        what + " did not finish within " + std::to_string(static_cast<int>(test_timeout())) +
            " s (test_timeout_s); its process group was killed. Output so far: " + r.output_file +
            ". A hanging test needs a fix of its own or a larger "
            "test_timeout_s; the repositories were not changed");
  }
}

}  // namespace skillrt::issue_pipeline::detail
