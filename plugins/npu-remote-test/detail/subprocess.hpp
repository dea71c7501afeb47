// A child process (here: ssh and scp) with its stdout read line by line as it comes, so a
// long job can be streamed, cancelled and timed out.
#ifndef SKILLRT_NPU_REMOTE_TEST_DETAIL_SUBPROCESS_HPP_
#define SKILLRT_NPU_REMOTE_TEST_DETAIL_SUBPROCESS_HPP_

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::npu_remote::detail {

class Subprocess {
 public:
  // Starts argv[0] (searched in PATH) in a process group of its own, stdin from `input` then
  // end of file. Throws std::runtime_error naming the program when it cannot start.
  Subprocess(const std::vector<std::string>& argv, std::string_view input);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  enum class Pump { kExited, kStopped };
  // Reads output until the child closes it and exits (kExited) or `stop` returns true
  // (kStopped; the child keeps running). `on_line` gets each stdout line without its newline.
  Pump pump(const std::function<void(std::string_view)>& on_line, const std::function<bool()>& stop,
            std::chrono::milliseconds poll = std::chrono::milliseconds(100));

  // Signals the child's whole process group.
  void kill_group(int sig);
  // Reaps the child; the exit status (0-255), or 128 + signal when a signal ended it.
  int wait();

  pid_t pid() const { return pid_; }
  const std::string& err() const { return err_; }

 private:
  void feed_input();
  pid_t pid_ = -1;
  int in_fd_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string input_;
  size_t input_pos_ = 0;
  std::string out_partial_;
  std::string err_;
  bool reaped_ = false;
  int status_ = 0;
};

// Runs to completion: {exit status, stdout, stderr}; stops and kills the child once `stop`
// returns true (status 128 + SIGKILL then).
struct CommandResult {
  int status = 0;
  std::string out;
  std::string err;
  bool stopped = false;
};
CommandResult run_command(const std::vector<std::string>& argv, std::string_view input,
                          const std::function<bool()>& stop);

}  // namespace skillrt::npu_remote::detail

#endif  // SKILLRT_NPU_REMOTE_TEST_DETAIL_SUBPROCESS_HPP_
