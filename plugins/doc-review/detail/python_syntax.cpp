#include "detail/python_syntax.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

extern char** environ;

namespace skillrt::doc_review::detail {

namespace {

// Reads a JSON list of snippets, answers a JSON list of null or [line, message]. Parsing only:
// ast.parse builds a tree and stops; nothing is compiled to bytecode or executed.
constexpr const char* kChecker =
    "import ast, json, sys\n"
    "out = []\n"
    "for src in json.load(sys.stdin):\n"
    "    try:\n"
    "        ast.parse(src)\n"
    "        out.append(None)\n"
    "    except SyntaxError as e:\n"
    "        out.append([e.lineno or 0, e.msg])\n"
    "    except Exception as e:\n"
    "        out.append([0, type(e).__name__ + ': ' + str(e)])\n"
    "json.dump(out, sys.stdout)\n";

bool executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string find_python() {
  if (executable("/usr/bin/python3")) return "/usr/bin/python3";
  const char* path = std::getenv("PATH");
  const std::string p = path ? path : "";
  size_t b = 0;
  while (b < p.size()) {
    size_t e = p.find(':', b);
    if (e == std::string::npos) e = p.size();
    const std::string cand = p.substr(b, e - b) + "/python3";
    if (e > b && executable(cand)) return cand;
    b = e + 1;
  }
  return "";
}

std::vector<std::optional<SyntaxError>> check_python_syntax(
    const std::string& python, const std::vector<std::string>& snippets, int timeout_s) {
  std::vector<std::optional<SyntaxError>> results(snippets.size());
  if (snippets.empty()) return results;
  const std::string input =
      nlohmann::json(snippets).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  // -I: isolated mode, so no PYTHONPATH, user site or current folder module is imported.
  std::vector<std::string> argv = {python, "-I", "-c", kChecker};
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, python.c_str(), &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  if (rc != 0) {
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    throw std::runtime_error("cannot start " + python + ": " + std::strerror(rc));
  }
  // Writing and reading at once: a large input must not fill the pipe while output waits.
  // SIGPIPE (the checker died before reading everything) is held back for this thread and
  // cleared afterwards, so it can never end the host process.
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  ::fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  size_t written = 0;
  std::string output;
  int write_fd = in_pipe[1], read_fd = out_pipe[0];
  bool timed_out = false;
  char buf[65536];
  while (read_fd >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timed_out = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    pollfd fds[2] = {{read_fd, POLLIN, 0}, {write_fd, POLLOUT, 0}};
    const int nfds = write_fd >= 0 ? 2 : 1;
    const int n = ::poll(fds, nfds, static_cast<int>(std::min<long long>(left, INT_MAX)));
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (nfds == 2 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t w = ::write(write_fd, input.data() + written, input.size() - written);
      if (w > 0) written += static_cast<size_t>(w);
      if (w < 0 && errno != EAGAIN && errno != EINTR) written = input.size();
      if (written >= input.size()) {
        ::close(write_fd);
        write_fd = -1;
      }
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t got = ::read(read_fd, buf, sizeof buf);
      if (got > 0) {
        output.append(buf, static_cast<size_t>(got));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        ::close(read_fd);
        read_fd = -1;
      }
    }
  }
  if (write_fd >= 0) ::close(write_fd);
  if (read_fd >= 0) ::close(read_fd);
  sigset_t pending;
  sigpending(&pending);
  if (sigismember(&pending, SIGPIPE) && !sigismember(&old_set, SIGPIPE)) {
    const timespec zero{0, 0};
    sigtimedwait(&pipe_set, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    throw std::runtime_error(python + " did not finish parsing the examples within " +
                             std::to_string(timeout_s) + " s");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error(python + " failed while parsing the examples (exit status " +
                             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                             "); check that it is a working Python 3");
  }
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(output);
  } catch (const std::exception&) {
    throw std::runtime_error(python +
                             " answered something that is not JSON; check that it is "
                             "a working Python 3");
  }
  if (!parsed.is_array() || parsed.size() != snippets.size()) {
    throw std::runtime_error(python + " answered " + std::to_string(parsed.size()) +
                             " results for " + std::to_string(snippets.size()) + " snippets");
  }
  for (size_t k = 0; k < parsed.size(); ++k) {
    if (parsed[k].is_null()) continue;
    SyntaxError e;
    e.line = parsed[k].at(0).get<int>();
    e.message = parsed[k].at(1).get<std::string>();
    results[k] = e;
  }
  return results;
}

}  // namespace skillrt::doc_review::detail
