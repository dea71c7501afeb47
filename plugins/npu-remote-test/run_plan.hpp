// Every shell text one run sends to the host, built before anything connects, so a dry run
// shows exactly what a real run would execute.
#ifndef SKILLRT_NPU_REMOTE_TEST_RUN_PLAN_HPP_
#define SKILLRT_NPU_REMOTE_TEST_RUN_PLAN_HPP_

#include <string>
#include <vector>

#include "request.hpp"

namespace skillrt::npu_remote {

// One run owns a folder on the host, <remote_base>/<run id>, holding: owner, runtime,
// container, deadline_epoch, pid (the wrapper, leader of its own session and process group),
// job_pgid (the `timeout` process group the job runs in), started, exit_code, output.log,
// job.sh, wrapper.sh, env files and work/.
class RunPlan {
 public:
  // Extra seconds the wrapper may live past the job's deadline (timeout's kill delay plus
  // container removal) before a later run calls it stale.
  static constexpr int kKillAfterS = 10;
  static constexpr int kStaleGraceS = 120;

  explicit RunPlan(const Request& request);

  // The run dir as a shell word: quoted absolute path, or "$HOME/<base>/<id>" for a relative
  // remote_base so it expands on the host.
  const std::string& run_dir() const { return run_dir_; }
  const std::string& workdir() const { return workdir_; }
  const std::string& container() const { return container_; }

  // Host facts, printed between "@@<section>" markers; read by HostFacts.
  std::string probe_script() const;
  // Writes the run's files and work dir (script on stdin; it carries env values, never argv).
  std::string prepare_script() const;
  // Starts the wrapper in its own session and streams output.log until the wrapper exits,
  // then prints "<marker> exit <code>".
  std::string launch_script() const;
  // Stops the job's process groups (TERM, then KILL after 10 s), removes the container, and
  // prints which groups are still alive ("<marker> alive <pgid>"), if any.
  std::string kill_script() const;
  // Removes the run dir (after artifacts were copied back).
  std::string remove_run_dir_script() const;
  // Stops and removes a stale run of this skill found on the host.
  static std::string stale_cleanup_script(const std::string& run_dir, const std::string& runtime,
                                          const std::string& container);

  // The job as the shell lines job.sh runs (after cd to the work dir and the setup lines).
  std::string job_lines() const;
  std::string job_script() const;
  std::string wrapper_script() const;
  // The line that starts the job inside the wrapper: `<runtime> run ...` or `sh job.sh`.
  std::string job_start_command() const;
  // A marker that job output cannot produce by accident.
  std::string marker() const { return "@@skillrt-" + request_.run_id; }

 private:
  const Request& request_;
  std::string run_dir_;
  std::string workdir_;
  std::string container_;
};

}  // namespace skillrt::npu_remote

#endif  // SKILLRT_NPU_REMOTE_TEST_RUN_PLAN_HPP_
