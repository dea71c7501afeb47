// Child processes for the pipeline: each runs in its own process group with its output in a
// file, so a hanging test can be killed with everything it started, and a crashed pipeline
// leaves the output of the command it was running on disk.
#ifndef SKILLRT_ISSUE_PIPELINE_DETAIL_PROCESS_HPP_
#define SKILLRT_ISSUE_PIPELINE_DETAIL_PROCESS_HPP_

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace skillrt::issue_pipeline::detail {

struct ProcessSpec {
  std::vector<std::string> argv;
  std::string cwd;
  std::map<std::string, std::string> env;  // added to (or replacing in) the current environment
  std::string output_file;                 // stdout and stderr together
  double timeout_s = 0;                    // <= 0: none
};

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal or not started
  int signal = 0;
  bool timed_out = false;
  bool cancelled = false;
  std::string start_error;  // non-empty when the command could not be started
  double seconds = 0;
};

// Runs the command to completion. `cancelled` is polled while it runs; when it returns true or
// the timeout passes, the process group gets SIGTERM and, two seconds later, SIGKILL.
ProcessResult run_process(const ProcessSpec& spec, const std::function<bool()>& cancelled);

// The last `max_bytes` of a file (whole lines where possible), for state.json.
std::string file_tail(const std::string& path, size_t max_bytes);
std::string read_file(const std::string& path);

}  // namespace skillrt::issue_pipeline::detail

#endif  // SKILLRT_ISSUE_PIPELINE_DETAIL_PROCESS_HPP_
