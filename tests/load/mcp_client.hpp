// Small POSIX helpers for driving `skillrt serve` from tests and benchmarks: start the server
// with pipes, split its output into lines, speak HTTP/1.1 to it, read its resident memory.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt_load {

[[noreturn]] inline void die(const std::string& why) {
  std::fprintf(stderr, "mcp client: %s\n", why.c_str());
  std::exit(2);
}

inline bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// '\n'-separated lines from a descriptor; searches each byte for the separator once.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  bool next(std::string& line) {
    for (;;) {
      const size_t nl = buffer_.find('\n', scanned_);
      if (nl != std::string::npos) {
        line.assign(buffer_, start_, nl - start_);
        start_ = nl + 1;
        scanned_ = start_;
        return true;
      }
      if (start_ > 0) {
        buffer_.erase(0, start_);
        start_ = 0;
      }
      scanned_ = buffer_.size();
      char chunk[1 << 16];
      const ssize_t n = ::read(fd_, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
  size_t start_ = 0;
  size_t scanned_ = 0;
};

// A child process with its stdin, stdout and stderr on pipes.
struct Child {
  pid_t pid = -1;
  int in = -1;   // its stdin
  int out = -1;  // its stdout
  int err = -1;  // its stderr
};

// With `quiet`, its stderr goes to /dev/null instead (Child::err is then -1).
inline Child spawn(const std::vector<std::string>& argv, bool quiet = false) {
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    die(std::string("pipe: ") + std::strerror(errno));
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) die(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    const int null_fd = quiet ? ::open("/dev/null", O_WRONLY) : -1;
    ::dup2(quiet ? null_fd : err[1], 2);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (quiet) {
    ::close(err[0]);
    err[0] = -1;
  }
  return Child{pid, in[1], out[0], err[0]};
}

// VmRSS of a process in KiB, from /proc/<pid>/status; 0 when it cannot be read.
inline long rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmRSS:")) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return 0;
}

// One keep-alive HTTP/1.1 connection to 127.0.0.1:port.
class HttpConnection {
 public:
  struct Response {
    int status = 0;
    std::string session;  // Mcp-Session-Id, when the server sent one
    std::string body;
  };

  explicit HttpConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) die(std::string("socket: ") + std::strerror(errno));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      die("connect to 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(errno));
    }
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~HttpConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Sends a POST of one JSON-RPC message without waiting for the answer.
  bool send_post(std::string_view body, std::string_view session) {
    std::string req =
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Accept: application/json\r\n";
    if (!session.empty()) {
      req += "Mcp-Session-Id: ";
      req += session;
      req += "\r\n";
    }
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
    req += body;
    return write_all(fd_, req);
  }

  // Reads one response with a Content-Length body (this client never asks for SSE).
  std::optional<Response> read_response() {
    size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill()) return std::nullopt;
    }
    Response r;
    const std::string head = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    if (head.size() < 12 || !head.starts_with("HTTP/1.1 ")) return std::nullopt;
    r.status = std::atoi(head.c_str() + 9);
    size_t length = 0;
    size_t pos = head.find("\r\n");
    while (pos != std::string::npos && pos < head.size()) {
      const size_t next = head.find("\r\n", pos + 2);
      const std::string line =
          head.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::string value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        if (name == "content-length") length = std::strtoul(value.c_str(), nullptr, 10);
        if (name == "mcp-session-id") r.session = value;
        if (name == "transfer-encoding") return std::nullopt;  // SSE: not asked for
      }
      pos = next;
    }
    while (buffer_.size() < length) {
      if (!fill()) return std::nullopt;
    }
    r.body = buffer_.substr(0, length);
    buffer_.erase(0, length);
    return r;
  }

  std::optional<Response> post(std::string_view body, std::string_view session) {
    if (!send_post(body, session)) return std::nullopt;
    return read_response();
  }

 private:
  bool fill() {
    char chunk[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd_, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<size_t>(n));
      return true;
    }
  }

  int fd_ = -1;
  std::string buffer_;
};

}  // namespace skillrt_load
