#include "detail/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace skillrt::issue_pipeline::detail {

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> build_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string::npos && extra.count(entry.substr(0, eq)) != 0) continue;
    out.push_back(entry);
  }
  for (const auto& [k, v] : extra) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> c_array(std::vector<std::string>& items) {
  std::vector<char*> out;
  out.reserve(items.size() + 1);
  for (auto& s : items) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Waits up to `grace` for the child; true when it was reaped.
bool reap_within(pid_t pid, int* status, std::chrono::milliseconds grace) {
  const auto until = Clock::now() + grace;
  while (Clock::now() < until) {
    const pid_t r = ::waitpid(pid, status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec, const std::function<bool()>& cancelled) {
  ProcessResult result;
  if (spec.argv.empty()) {
    result.start_error = "empty command";
    return result;
  }
  // Everything the child needs is prepared before fork: after fork in a threaded process only
  // async-signal-safe calls are allowed.
  std::vector<std::string> args = spec.argv;
  std::vector<std::string> env = build_environment(spec.env);
  std::vector<char*> argv = c_array(args);
  std::vector<char*> envp = c_array(env);
  const int out_fd =
      ::open(spec.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out_fd < 0) {
    result.start_error = "cannot open " + spec.output_file + ": " + std::strerror(errno);
    return result;
  }
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_fd);
    if (null_fd >= 0) ::close(null_fd);
    result.start_error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  const pid_t parent = ::getpid();
  const auto started = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    // If the pipeline dies (killed, crashed) its command must not run on unattended.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    if (null_fd >= 0) ::dup2(null_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(out_fd, 2);
    if (!spec.cwd.empty() && ::chdir(spec.cwd.c_str()) != 0) {
      const int e = errno;
      (void)!::write(err_pipe[1], &e, sizeof(e));
      ::_exit(127);
    }
    ::execvpe(argv[0], argv.data(), envp.data());
    const int e = errno;
    (void)!::write(err_pipe[1], &e, sizeof(e));
    ::_exit(127);
  }
  ::close(out_fd);
  if (null_fd >= 0) ::close(null_fd);
  ::close(err_pipe[1]);
  if (pid < 0) {
    ::close(err_pipe[0]);
    result.start_error = std::string("fork: ") + std::strerror(errno);
    return result;
  }
  ::setpgid(pid, pid);  // both sides set it, so the group exists before either relies on it
  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(err_pipe[0], &child_errno, sizeof(child_errno));
  } while (n < 0 && errno == EINTR);
  ::close(err_pipe[0]);
  int status = 0;
  if (n == static_cast<ssize_t>(sizeof(child_errno))) {
    ::waitpid(pid, &status, 0);
    result.start_error = "cannot run '" + spec.argv[0] + "'" +
                         (spec.cwd.empty() ? "" : " in " + spec.cwd) + ": " +
                         std::strerror(child_errno);
    return result;
  }
  const auto deadline = started + std::chrono::milliseconds(static_cast<long long>(
                                      spec.timeout_s > 0 ? spec.timeout_s * 1000 : 0));
  bool reaped = false;
  while (!reaped) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) {
      reaped = true;
      break;
    }
    const bool late = spec.timeout_s > 0 && Clock::now() >= deadline;
    const bool stop = cancelled && cancelled();
    if (late || stop) {
      result.timed_out = late;
      result.cancelled = stop && !late;
      ::kill(-pid, SIGTERM);
      if (!reap_within(pid, &status, std::chrono::seconds(2))) {
        ::kill(-pid, SIGKILL);
        ::waitpid(pid, &status, 0);
      }
      // Whatever the group started and left behind goes too.
      ::kill(-pid, SIGKILL);
      reaped = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string file_tail(const std::string& path, size_t max_bytes) {
  std::string text = read_file(path);
  if (text.size() <= max_bytes) return text;
  size_t start = text.size() - max_bytes;
  const size_t nl = text.find('\n', start);
  if (nl != std::string::npos && nl + 1 < text.size()) start = nl + 1;
  return "[...]\n" + text.substr(start);
}

}  // namespace skillrt::issue_pipeline::detail
