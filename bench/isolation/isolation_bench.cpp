// Per-call cost of process isolation: the same no-op skill (fx-echo with empty arguments) called
// through two `skillrt serve` processes over stdio, one running the plugin in-process and one in
// a worker process. The calls alternate between the two servers, one in flight at a time, so
// both see the same machine load.
//
//   isolation_bench <skillrt> <fixtures-dir> [calls] [warmup]
//
// Prints one JSON line per mode and one with the difference and the ratio of the medians.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "mcp_client.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using skillrt_load::die;

class StdioServer {
 public:
  explicit StdioServer(const std::vector<std::string>& argv)
      : child_(skillrt_load::spawn(argv, /*quiet=*/true)), lines_(child_.out) {
    request(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":)"
            R"("2025-11-25","capabilities":{},"clientInfo":{"name":"isolation_bench",)"
            R"("version":"1"}}})",
            0);
    if (!skillrt_load::write_all(child_.in,
                                 R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                                 "\n")) {
      die("the server closed its stdin");
    }
  }
  ~StdioServer() {
    ::close(child_.in);
    int status = 0;
    ::waitpid(child_.pid, &status, 0);
  }
  StdioServer(const StdioServer&) = delete;
  StdioServer& operator=(const StdioServer&) = delete;

  // One no-op call; returns its round trip in microseconds.
  double call(long id) {
    const std::string body = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                             R"(,"method":"tools/call","params":{"name":"fx-echo",)"
                             R"("arguments":{}}})";
    const auto start = Clock::now();
    const std::string& answer = request(body, id);
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    if (answer.find(R"("isError":false)") == std::string::npos) die("call failed: " + answer);
    return us;
  }

 private:
  const std::string& request(const std::string& body, long id) {
    if (!skillrt_load::write_all(child_.in, body + "\n")) die("the server closed its stdin");
    const std::string want = "\"id\":" + std::to_string(id) + ",";
    const std::string want_last = "\"id\":" + std::to_string(id) + "}";
    while (lines_.next(line_)) {
      if (line_.find("\"method\"") != std::string::npos) continue;  // a notification
      if (line_.find(want) != std::string::npos || line_.find(want_last) != std::string::npos) {
        return line_;
      }
    }
    die("the server ended before answering request " + std::to_string(id));
  }

  skillrt_load::Child child_;
  skillrt_load::LineReader lines_;
  std::string line_;
};

struct Summary {
  double median = 0, p99 = 0, mean = 0, min = 0;
};

Summary summarize(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  Summary s;
  s.median = us[us.size() / 2];
  s.p99 = us[std::min(us.size() - 1, us.size() * 99 / 100)];
  s.min = us.front();
  for (double v : us) s.mean += v;
  s.mean /= static_cast<double>(us.size());
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) die("usage: isolation_bench <skillrt> <fixtures-dir> [calls] [warmup]");
  const std::string skillrt = argv[1];
  const std::string fixtures = argv[2];
  const long calls = argc > 3 ? std::atol(argv[3]) : 5000;
  const long warmup = argc > 4 ? std::atol(argv[4]) : 200;
  if (calls < 1 || warmup < 0) die("calls must be positive and warmup not negative");
  const auto argv_for = [&](const char* mode) {
    return std::vector<std::string>{
        skillrt, "--no-default-plugins", "--isolation", mode, "--plugin-path", fixtures, "serve"};
  };
  StdioServer in_process(argv_for("in-process"));
  StdioServer isolated(argv_for("process"));
  std::vector<double> a, b;
  a.reserve(static_cast<size_t>(calls));
  b.reserve(static_cast<size_t>(calls));
  for (long i = 1; i <= warmup + calls; ++i) {
    // Alternate which goes first, so neither always follows the other's wake-up.
    const bool a_first = (i % 2) == 0;
    const double first = (a_first ? in_process : isolated).call(i);
    const double second = (a_first ? isolated : in_process).call(i);
    if (i <= warmup) continue;
    a.push_back(a_first ? first : second);
    b.push_back(a_first ? second : first);
  }
  const Summary sa = summarize(a);
  const Summary sb = summarize(b);
  for (const auto& [name, s] : {std::pair{"in-process", sa}, std::pair{"process", sb}}) {
    std::printf(
        "{\"mode\":\"%s\",\"calls\":%ld,\"median_us\":%.1f,\"p99_us\":%.1f,\"mean_us\":%.1f,"
        "\"min_us\":%.1f}\n",
        name, calls, s.median, s.p99, s.mean, s.min);
  }
  std::printf(
      "{\"overhead_median_us\":%.1f,\"overhead_p99_us\":%.1f,\"ratio_median\":%.2f,"
      "\"ratio_p99\":%.2f}\n",
      sb.median - sa.median, sb.p99 - sa.p99, sb.median / sa.median, sb.p99 / sa.p99);
  return 0;
}
