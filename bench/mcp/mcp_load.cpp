// Load client for MCP servers: initialize, then a fixed number of tools/call requests, with the
// latency of every call. Written in C++ with plain POSIX I/O so the client is not what limits.
//
//   mcp_load stdio <calls> <in-flight> <tool> <arguments-json> -- <server command...>
//   mcp_load http  <calls> <connections> <tool> <arguments-json> <host:port>
//
// Prints one JSON line: {"calls", "seconds", "calls_per_s", "p50_us", "p99_us",
// "server_cpu_us"}. server_cpu_us is the server's CPU time (user + system, all its threads) per
// call over the timed part, read from /proc: the stdio server is our child; for HTTP, set
// MCP_LOAD_SERVER_PID to the server's pid (else it is left out).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "mcp_load: %s\n", why.c_str());
  std::exit(2);
}

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) die(std::string("write failed: ") + std::strerror(errno));
    data.remove_prefix(static_cast<size_t>(n));
  }
}

// Reads '\n'-terminated lines from a descriptor.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  // True when a whole line is already buffered: next() will not block.
  bool has_line() const { return buffer_.find('\n', start_) != std::string::npos; }

  bool next(std::string& line) {
    while (true) {
      const size_t nl = buffer_.find('\n', start_);
      if (nl != std::string::npos) {
        line.assign(buffer_, start_, nl - start_);
        start_ = nl + 1;
        return true;
      }
      buffer_.erase(0, start_);
      start_ = 0;
      char chunk[65536];
      const ssize_t n = ::read(fd_, chunk, sizeof(chunk));
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
  size_t start_ = 0;
};

// The integer id of a response line; -1 for notifications and anything else.
long response_id(std::string_view line) {
  if (line.find("\"method\"") != std::string_view::npos) return -1;
  const size_t at = line.find("\"id\":");
  if (at == std::string_view::npos) return -1;
  return std::strtol(line.data() + at + 5, nullptr, 10);
}

// Writes the tools/call request `id` into `out`, replacing what it held: a sender that keeps
// one string builds every request in the same buffer.
void write_call_message(std::string& out, long id, std::string_view tool, std::string_view args) {
  out.assign(R"({"jsonrpc":"2.0","id":)");
  char digits[24];
  const auto [digits_end, ec] = std::to_chars(digits, digits + sizeof(digits), id);
  out.append(digits, digits_end);
  out.append(R"(,"method":"tools/call","params":{"name":")");
  out.append(tool);
  out.append(R"(","arguments":)");
  out.append(args);
  out.append("}}");
}

const char* kInitialize =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
    R"("capabilities":{},"clientInfo":{"name":"mcp_load","version":"1"}}})";
const char* kInitialized = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";

struct Stats {
  std::vector<double> latencies_us;
  double seconds = 0;
  double server_cpu_s = -1;  // over the timed part; negative: unknown
};

// CPU seconds (user + system) a process has used so far; negative when it cannot be read.
double cpu_seconds(pid_t pid) {
  if (pid <= 0) return -1;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  // utime and stime are the 12th and 13th fields after the command name, which is in
  // parentheses and may hold spaces.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(stat.substr(close + 1));
  std::string skipped;
  for (int i = 0; i < 11; ++i) fields >> skipped;
  double utime = 0;
  double stime = 0;
  if (!(fields >> utime >> stime)) return -1;
  return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

void report(Stats& s) {
  std::sort(s.latencies_us.begin(), s.latencies_us.end());
  const auto at = [&](double q) {
    return s.latencies_us[std::min(s.latencies_us.size() - 1,
                                   static_cast<size_t>(q * s.latencies_us.size()))];
  };
  std::string cpu;
  if (s.server_cpu_s >= 0) {
    char text[64];
    std::snprintf(text, sizeof(text), ",\"server_cpu_us\":%.2f",
                  s.server_cpu_s * 1e6 / static_cast<double>(s.latencies_us.size()));
    cpu = text;
  }
  std::printf(
      "{\"calls\":%zu,\"seconds\":%.3f,\"calls_per_s\":%.0f,\"p50_us\":%.1f,\"p99_us\":%.1f%s}"
      "\n",
      s.latencies_us.size(), s.seconds, s.latencies_us.size() / s.seconds, at(0.50), at(0.99),
      cpu.c_str());
}

Stats run_stdio(long calls, long inflight, const std::string& tool, const std::string& args,
                char** command) {
  int to_server[2];
  int from_server[2];
  if (::pipe(to_server) != 0 || ::pipe(from_server) != 0) die("pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) die("fork failed");
  if (pid == 0) {
    ::dup2(to_server[0], 0);
    ::dup2(from_server[1], 1);
    for (int fd : {to_server[0], to_server[1], from_server[0], from_server[1]}) ::close(fd);
    ::execvp(command[0], command);
    die(std::string("cannot run ") + command[0]);
  }
  ::close(to_server[0]);
  ::close(from_server[1]);
  const int out = to_server[1];
  LineReader reader(from_server[0]);
  std::string line;
  write_all(out, std::string(kInitialize) + "\n");
  while (reader.next(line) && response_id(line) != 0) {
  }
  write_all(out, std::string(kInitialized) + "\n");

  // When each request went out, in steady-clock ticks. Written by the writer without the lock
  // and read by the reader once the answer is in: release and acquire order the two.
  std::vector<std::atomic<Clock::rep>> sent(static_cast<size_t>(calls) + 1);
  Stats stats;
  stats.latencies_us.reserve(static_cast<size_t>(calls));
  std::mutex mutex;
  std::condition_variable cv;
  long outstanding = 0;
  const double cpu_start = cpu_seconds(pid);
  const auto start = Clock::now();
  // Still one write per request, as a real client sends them; but every slot free at a wake-up
  // is taken under one lock, and each message is built in a reused buffer.
  std::thread writer([&] {
    std::string message;
    long id = 1;
    while (id <= calls) {
      long free_slots = 0;
      {
        std::unique_lock lock(mutex);
        cv.wait(lock, [&] { return outstanding < inflight; });
        free_slots = std::min(inflight - outstanding, calls - id + 1);
        outstanding += free_slots;
      }
      for (long end = id + free_slots; id < end; ++id) {
        write_call_message(message, id, tool, args);
        message += '\n';
        sent[static_cast<size_t>(id)].store(Clock::now().time_since_epoch().count(),
                                            std::memory_order_release);
        write_all(out, message);
      }
    }
  });
  // The answers of one read are taken together: one clock reading, one lock and one wake-up of
  // the writer for all of them. Taken one by one, the reader and the writer fought over the lock
  // after every answer, and a server that writes its answers in groups paid for that in the
  // client's CPU, which shares the cores with it.
  long received = 0;
  std::vector<long> ids;
  while (received < calls && reader.next(line)) {
    ids.clear();
    while (true) {
      const long id = response_id(line);
      if (id > 0 && id <= calls) ids.push_back(id);
      if (!reader.has_line()) break;
      reader.next(line);
    }
    if (ids.empty()) continue;
    const auto now = Clock::now();
    {
      std::lock_guard lock(mutex);
      for (const long id : ids) {
        stats.latencies_us.push_back(
            std::chrono::duration<double, std::micro>(
                now - Clock::time_point(Clock::duration(
                          sent[static_cast<size_t>(id)].load(std::memory_order_acquire))))
                .count());
      }
      outstanding -= static_cast<long>(ids.size());
      received += static_cast<long>(ids.size());
    }
    cv.notify_one();
  }
  stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (const double cpu_end = cpu_seconds(pid); cpu_start >= 0 && cpu_end >= 0) {
    stats.server_cpu_s = cpu_end - cpu_start;
  }
  writer.join();
  ::close(out);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (received < calls) die("the server stopped answering after " + std::to_string(received));
  return stats;
}

// One keep-alive HTTP/1.1 connection speaking MCP.
class HttpConnection {
 public:
  HttpConnection(const std::string& host, int port) : host_(host + ":" + std::to_string(port)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      die("cannot connect to " + host_);
    }
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~HttpConnection() { ::close(fd_); }

  // POSTs one message and returns the body (JSON, or the SSE stream's text).
  std::string post(const std::string& body) {
    std::string req = "POST /mcp HTTP/1.1\r\nHost: " + host_ +
                      "\r\nContent-Type: application/json\r\n"
                      "Accept: application/json, text/event-stream\r\n"
                      "MCP-Protocol-Version: 2025-06-18\r\n";
    if (!session_.empty()) req += "Mcp-Session-Id: " + session_ + "\r\n";
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    write_all(fd_, req);
    size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) fill();
    const std::string head = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    std::string lower = head;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    if (const size_t s = lower.find("mcp-session-id: "); s != std::string::npos) {
      session_ = head.substr(s + 16, head.find("\r\n", s) - s - 16);
    }
    if (const size_t cl = lower.find("content-length: "); cl != std::string::npos) {
      const size_t length = std::strtoul(lower.c_str() + cl + 16, nullptr, 10);
      while (buffer_.size() < length) fill();
      std::string out = buffer_.substr(0, length);
      buffer_.erase(0, length);
      return out;
    }
    // Chunked (an SSE stream): read chunks until the last one.
    std::string out;
    while (true) {
      size_t eol;
      while ((eol = buffer_.find("\r\n")) == std::string::npos) fill();
      const size_t size = std::strtoul(buffer_.c_str(), nullptr, 16);
      while (buffer_.size() < eol + 2 + size + 2) fill();
      out.append(buffer_, eol + 2, size);
      buffer_.erase(0, eol + 2 + size + 2);
      if (size == 0) return out;
    }
  }

 private:
  void fill() {
    char chunk[65536];
    const ssize_t n = ::read(fd_, chunk, sizeof(chunk));
    if (n <= 0) die("connection to " + host_ + " closed");
    buffer_.append(chunk, static_cast<size_t>(n));
  }

  std::string host_;
  int fd_ = -1;
  std::string buffer_;
  std::string session_;
};

Stats run_http(long calls, long connections, const std::string& tool, const std::string& args,
               const std::string& address) {
  const size_t colon = address.rfind(':');
  const std::string host = address.substr(0, colon);
  const int port = std::atoi(address.c_str() + colon + 1);
  std::vector<std::vector<double>> per_thread(static_cast<size_t>(connections));
  std::atomic<long> next{1};
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  for (long c = 0; c < connections; ++c) {
    threads.emplace_back([&, c] {
      HttpConnection conn(host, port);
      conn.post(kInitialize);
      conn.post(kInitialized);
      ++ready;
      while (!go) std::this_thread::yield();
      auto& lat = per_thread[static_cast<size_t>(c)];
      std::string request;
      for (long id; (id = next++) <= calls;) {
        const auto t0 = Clock::now();
        write_call_message(request, id, tool, args);
        const std::string body = conn.post(request);
        if (body.find("\"result\"") == std::string::npos) die("call failed: " + body);
        lat.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
    });
  }
  while (ready < connections) std::this_thread::yield();
  const char* server_pid = std::getenv("MCP_LOAD_SERVER_PID");
  const pid_t pid = server_pid ? static_cast<pid_t>(std::atol(server_pid)) : 0;
  const double cpu_start = cpu_seconds(pid);
  const auto start = Clock::now();
  go = true;
  for (auto& t : threads) t.join();
  Stats stats;
  stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (const double cpu_end = cpu_seconds(pid); cpu_start >= 0 && cpu_end >= 0) {
    stats.server_cpu_s = cpu_end - cpu_start;
  }
  for (auto& v : per_thread)
    stats.latencies_us.insert(stats.latencies_us.end(), v.begin(), v.end());
  return stats;
}

}  // namespace

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);
  if (argc < 7) {
    die("usage: mcp_load stdio|http <calls> <in-flight|connections> <tool> <args-json> "
        "(-- <command...> | <host:port>)");
  }
  const std::string mode = argv[1];
  const long calls = std::atol(argv[2]);
  const long parallel = std::max(1L, std::atol(argv[3]));
  const std::string tool = argv[4];
  const std::string args = argv[5];
  Stats stats;
  if (mode == "stdio") {
    if (std::string(argv[6]) != "--" || argc < 8) die("stdio needs -- <server command>");
    stats = run_stdio(calls, parallel, tool, args, argv + 7);
  } else if (mode == "http") {
    stats = run_http(calls, parallel, tool, args, argv[6]);
  } else {
    die("mode must be stdio or http");
  }
  report(stats);
  return 0;
}
