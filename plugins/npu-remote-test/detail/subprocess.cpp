#include "detail/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace skillrt::npu_remote::detail {

namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

Subprocess::Subprocess(const std::vector<std::string>& argv, std::string_view input)
    : input_(input) {
  if (argv.empty()) throw std::runtime_error("no program to run");
  // stdin is a socket so that writing to a child that already exited fails with EPIPE
  // (MSG_NOSIGNAL) instead of raising SIGPIPE in the whole host process.
  int in_pair[2];
  int out_pipe[2];
  int err_pipe[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_pair) != 0) {
    throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
  }
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    ::setpgid(0, 0);
    ::dup2(in_pair[1], 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    // Only async-signal-safe calls between fork and exec: the host runs calls on threads.
    ::close_range(3, ~0U, 0);
    ::execvp(args[0], args.data());
    static constexpr char kMsg[] = "cannot start the program: not found or not executable\n";
    (void)!::write(2, kMsg, sizeof kMsg - 1);
    ::_exit(127);
  }
  ::setpgid(pid_, pid_);  // also from here, so kill_group works before the child gets to it
  ::close(in_pair[1]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  in_fd_ = in_pair[0];
  out_fd_ = out_pipe[0];
  err_fd_ = err_pipe[0];
  set_nonblocking(in_fd_);
  set_nonblocking(out_fd_);
  set_nonblocking(err_fd_);
  if (input_.empty()) ::shutdown(in_fd_, SHUT_WR);
}

Subprocess::~Subprocess() {
  close_fd(in_fd_);
  close_fd(out_fd_);
  close_fd(err_fd_);
  if (!reaped_ && pid_ > 0) {
    kill_group(SIGKILL);
    wait();
  }
}

void Subprocess::feed_input() {
  while (in_fd_ >= 0 && input_pos_ < input_.size()) {
    const ssize_t n =
        ::send(in_fd_, input_.data() + input_pos_, input_.size() - input_pos_, MSG_NOSIGNAL);
    if (n > 0) {
      input_pos_ += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    input_pos_ = input_.size();  // the child stopped reading; the rest is not needed
  }
  if (in_fd_ >= 0 && input_pos_ >= input_.size()) {
    ::shutdown(in_fd_, SHUT_WR);
    close_fd(in_fd_);
  }
}

Subprocess::Pump Subprocess::pump(const std::function<void(std::string_view)>& on_line,
                                  const std::function<bool()>& stop,
                                  std::chrono::milliseconds poll_every) {
  char buf[8192];
  while (out_fd_ >= 0 || err_fd_ >= 0) {
    if (stop && stop()) return Pump::kStopped;
    feed_input();
    pollfd fds[3];
    nfds_t n = 0;
    if (out_fd_ >= 0) fds[n++] = {out_fd_, POLLIN, 0};
    if (err_fd_ >= 0) fds[n++] = {err_fd_, POLLIN, 0};
    if (in_fd_ >= 0) fds[n++] = {in_fd_, POLLOUT, 0};
    const int ready = ::poll(fds, n, static_cast<int>(poll_every.count()));
    if (ready < 0 && errno != EINTR) break;
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].fd == in_fd_ || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const bool is_out = fds[i].fd == out_fd_;
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (got <= 0) {
        if (is_out) {
          if (!out_partial_.empty() && on_line) on_line(out_partial_);
          out_partial_.clear();
          close_fd(out_fd_);
        } else {
          close_fd(err_fd_);
        }
        continue;
      }
      if (!is_out) {
        err_.append(buf, static_cast<size_t>(got));
        continue;
      }
      out_partial_.append(buf, static_cast<size_t>(got));
      size_t start = 0;
      for (size_t nl; (nl = out_partial_.find('\n', start)) != std::string::npos; start = nl + 1) {
        if (on_line) on_line(std::string_view(out_partial_).substr(start, nl - start));
      }
      out_partial_.erase(0, start);
    }
  }
  return Pump::kExited;
}

void Subprocess::kill_group(int sig) {
  if (pid_ > 0 && !reaped_) ::kill(-pid_, sig);
}

int Subprocess::wait() {
  if (!reaped_) {
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  }
  if (WIFEXITED(status_)) return WEXITSTATUS(status_);
  if (WIFSIGNALED(status_)) return 128 + WTERMSIG(status_);
  return 255;
}

CommandResult run_command(const std::vector<std::string>& argv, std::string_view input,
                          const std::function<bool()>& stop) {
  CommandResult r;
  Subprocess p(argv, input);
  const auto pumped = p.pump([&r](std::string_view line) { (r.out += line) += '\n'; }, stop);
  if (pumped == Subprocess::Pump::kStopped) {
    r.stopped = true;
    p.kill_group(SIGKILL);
  }
  r.status = p.wait();
  r.err = p.err();
  return r;
}

}  // namespace skillrt::npu_remote::detail
