#include "transport/stdio_transport.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

namespace skillrt::transport {

namespace {

// Writes whole lines to the protocol descriptor; messages from different threads never
// interleave. After the peer goes away, writes are dropped quietly: the reader sees EOF next.
class LineWriter {
 public:
  explicit LineWriter(int fd) : fd_(fd) {}

  void write_line(std::string message) {
    message += '\n';
    std::lock_guard lock(mutex_);
    if (broken_) return;
    const char* p = message.data();
    size_t left = message.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        broken_ = true;
        return;
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
  }

 private:
  int fd_;
  std::mutex mutex_;
  bool broken_ = false;
};

std::string limit_message(size_t limit) {
  return "Invalid Request: a message exceeds the stdio line limit of " + std::to_string(limit) +
         " bytes and was dropped; send smaller messages (the server keeps serving)";
}

}  // namespace

int serve_stdio_fds(mcp::Server& server, int in_fd, int out_fd, const StdioOptions& options) {
  auto writer = std::make_shared<LineWriter>(out_fd);
  auto session = server.open_session([writer](std::string m) { writer->write_line(std::move(m)); });
  const mcp::Reply reply = [writer](std::string message, bool) {
    if (!message.empty()) writer->write_line(std::move(message));
  };
  auto handle_line = [&](std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    server.handle(session, line, reply);
  };

  std::string pending;
  bool discarding = false;  // inside a line that went over the limit
  std::string chunk(64 * 1024, '\0');
  while (true) {
    const ssize_t n = ::read(in_fd, chunk.data(), chunk.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      spdlog::error("stdio: reading stdin failed: {}", std::strerror(errno));
      break;
    }
    if (n == 0) break;
    std::string_view data(chunk.data(), static_cast<size_t>(n));
    while (!data.empty()) {
      const size_t nl = data.find('\n');
      const std::string_view part = data.substr(0, nl);
      if (discarding) {
        if (nl == std::string_view::npos) break;
        discarding = false;
        data.remove_prefix(nl + 1);
        continue;
      }
      if (pending.size() + part.size() > options.max_line_bytes) {
        writer->write_line(
            mcp::Server::framing_error(-32600, limit_message(options.max_line_bytes)));
        pending.clear();
        if (nl == std::string_view::npos) {
          discarding = true;
          break;
        }
        data.remove_prefix(nl + 1);
        continue;
      }
      if (nl == std::string_view::npos) {
        pending.append(part);
        break;
      }
      if (pending.empty()) {
        handle_line(part);
      } else {
        pending.append(part);
        handle_line(pending);
        pending.clear();
      }
      data.remove_prefix(nl + 1);
    }
  }
  // A last message without its newline is still a message; a cut-off one gets a parse error.
  if (!discarding && !pending.empty()) handle_line(pending);
  server.wait_idle(session);
  return 0;
}

int run_stdio(mcp::Server& server, const StdioOptions& options) {
  // A client that exits early must not kill us with SIGPIPE mid-write.
  std::signal(SIGPIPE, SIG_IGN);
  const int protocol_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (protocol_fd < 0) {
    spdlog::error("stdio: cannot duplicate stdout: {}", std::strerror(errno));
    return 1;
  }
  // From here on whatever writes to fd 1 (plugins, child processes) lands on stderr.
  if (::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    spdlog::error("stdio: cannot point stdout at stderr: {}", std::strerror(errno));
    return 1;
  }
  // Whatever sat in the stdout buffer was not protocol: it goes to stderr too.
  std::fflush(stdout);
  const int code = serve_stdio_fds(server, STDIN_FILENO, protocol_fd, options);
  ::close(protocol_fd);
  return code;
}

}  // namespace skillrt::transport
