// One case of the pipeline: its state file, the commands it runs and the six steps. The class is
// defined across several files: case_runner.cpp (state and the step loop), case_commands.cpp
// (commands and test runs), case_reports.cpp (summary and reports) and steps/<step>.cpp.
#ifndef SKILLRT_ISSUE_PIPELINE_DETAIL_CASE_RUNNER_HPP_
#define SKILLRT_ISSUE_PIPELINE_DETAIL_CASE_RUNNER_HPP_

#include <skillrt/sdk.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "detail/process.hpp"
#include "detail/settings.hpp"
#include "detail/shared_env.hpp"

namespace skillrt::issue_pipeline::detail {

struct CmdResult {
  ProcessResult proc;
  std::string output;
  std::string output_file;
  bool ok() const { return proc.start_error.empty() && proc.exit_code == 0; }
};

class CaseRunner {
 public:
  CaseRunner(const Settings& s, const Json& case_in, SharedEnv& shared, Context& ctx, bool batch)
      : s_(s), in_(case_in), shared_(shared), ctx_(ctx), batch_(batch) {}

  // Runs the requested step(s) of the case (or status / reset) and returns its summary.
  Json run();

  const std::string& case_id() const { return case_id_; }
  const Json& state() const { return state_; }

 private:
  // ---- state (case_runner.cpp) ----
  Json& st(const std::string& step) { return state_["steps"][step]; }
  bool done(const std::string& step) { return st(step)["status"] == "done"; }
  void save();
  void event(const std::string& what);
  void begin(const std::string& step);
  void finish(const std::string& step, Json result);
  [[noreturn]] void failed(const std::string& step, int32_t code, const std::string& message,
                           Json result = nullptr);
  void load_or_create();
  void create_state(const std::string& test);
  void reset_steps();
  void run_step(const std::string& step);

  // ---- commands and test runs (case_commands.cpp) ----
  CmdResult command(const std::string& step, const std::string& purpose,
                    const std::vector<std::string>& argv, const std::string& cwd,
                    std::map<std::string, std::string> env, double timeout_s);
  CmdResult git(const std::string& step, const std::string& purpose, const std::string& repo_dir,
                std::vector<std::string> args);
  std::string worktree(const std::string& repo);
  std::map<std::string, std::string> worktrees();
  std::map<std::string, std::string> test_env(bool blocking = false);
  std::vector<std::string> test_argv(bool whole_class);
  double test_timeout();
  std::string unittest_key();
  bool target_passed(const CmdResult& r);
  Json run_record(const CmdResult& r);
  void check_test_run(const std::string& step, const CmdResult& r, const std::string& what);

  // ---- steps (steps/<step>.cpp) ----
  void step_env();
  Json prepare_worktree(const std::string& repo, const Json& shared, const std::string& branch);

  void step_reproduce();

  void step_diagnose();
  std::string diagnosis_text(const Json& repro, std::string* source, Json* notes);
  Json consult(const std::string& skill, const Json& input);
  Json consult_skills(const std::string& text, const std::string& first_class,
                      const std::string& op_base);
  Json frame_candidates(const std::string& text);
  Json operator_files(const std::string& op_base, Json* candidates);
  Json related_baselines(const Json& related_files);

  void step_fix();
  Json apply_patch_set(const Json& patch);
  Json staged_changes(const std::string& repo);
  void syntax_check(const std::string& repo, const std::string& wt,
                    const std::vector<std::string>& py);

  void step_verify();
  Json rerun_related(Json* related_broken);

  void step_deliver();
  void add_to_disabled_list(const std::string& test, const Json& diag);
  std::string write_commit_message(const std::string& title, bool disable);
  std::string commit_repo(const std::string& repo, const std::string& msg_file);
  Json deliver_repo(const std::string& repo, const std::string& title, const std::string& msg_file,
                    Json& prs);
  std::string pr_description(const std::string& repo, std::string* templ_source,
                             std::vector<std::string>* used);
  void publish(const std::string& repo, const std::string& title, const std::string& body,
               const std::string& branch, Json& prs, Json& entry);
  Json open_pr(const std::string& repo, const Json& cfg, const std::string& title,
               const std::string& body, const std::string& branch);

  // ---- summary and reports (case_reports.cpp) ----
  Json summary();
  void write_reports();
  void report_route(std::ostream& md);
  void report_steps(std::ostream& md);
  void report_diagnosis(std::ostream& md);
  void report_fix_and_verify(std::ostream& md);
  void report_delivery(std::ostream& md);

  const Settings& s_;
  const Json& in_;
  SharedEnv& shared_;
  Context& ctx_;
  bool batch_;
  std::string case_id_;
  std::filesystem::path dir_;
  Json state_;
  std::vector<std::string> ran_;
};

}  // namespace skillrt::issue_pipeline::detail

#endif  // SKILLRT_ISSUE_PIPELINE_DETAIL_CASE_RUNNER_HPP_
