// Load test of `skillrt serve`: many mixed tools/call requests (fast, slow, failing, cancelled)
// from concurrent clients, over stdio (clients multiplexed on the one pipe, distinct ids) or
// over HTTP (one session per client). Checks that every request that was not cancelled gets
// exactly one response with the right content, that a cancelled one gets at most one, that no
// response carries an id nobody sent, and that the server's resident memory after the run is
// within the allowed growth of what it was after the first 1,000 calls.
//
//   mcp_load_test --transport stdio|http [--calls N] [--clients C] [--rss-growth 0.10]
//                 [--no-rss-check]
//                 -- <server command...>
//
// For HTTP the server command must listen on 127.0.0.1:0; the port is read from its log.
// Prints one summary line; exits 0 when every check holds, 1 otherwise, 2 on usage errors.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <thread>
#include <unordered_map>

#include "mcp_client.hpp"

namespace {

using nlohmann::json;
using skillrt_load::die;

enum class Kind { kFast, kSlow, kFailing, kCancelSlow, kCancelFast };

// A fixed mix, so a run is the same every time: 40% fast, 20% slow, 20% failing, 10% cancelled
// while sleeping, 10% cancelled right after a fast call (the response may win the race).
Kind kind_of(long index) {
  switch (index % 10) {
    case 0:
    case 1:
    case 2:
    case 3:
      return Kind::kFast;
    case 4:
    case 5:
      return Kind::kSlow;
    case 6:
    case 7:
      return Kind::kFailing;
    case 8:
      return Kind::kCancelSlow;
    default:
      return Kind::kCancelFast;
  }
}

bool cancelled(Kind k) { return k == Kind::kCancelSlow || k == Kind::kCancelFast; }

constexpr int kSlowMs = 5;
constexpr int kCancelledSleepMs = 60000;  // ends only because it is cancelled

std::string call_body(long id, Kind kind) {
  json params;
  switch (kind) {
    case Kind::kFast:
    case Kind::kCancelFast:
      params = {{"name", "fx-echo"}, {"arguments", {{"n", id}}}};
      break;
    case Kind::kSlow:
      params = {{"name", "fx-sleep"}, {"arguments", {{"ms", kSlowMs}}}};
      break;
    case Kind::kFailing:
      params = {{"name", "fx-fail"}, {"arguments", json::object()}};
      break;
    case Kind::kCancelSlow:
      params = {{"name", "fx-sleep"}, {"arguments", {{"ms", kCancelledSleepMs}}}};
      break;
  }
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", params}}.dump();
}

std::string cancel_body(long id) {
  return json{{"jsonrpc", "2.0"},
              {"method", "notifications/cancelled"},
              {"params", {{"requestId", id}, {"reason", "load test"}}}}
      .dump();
}

const std::string kInitialize =
    R"({"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":)"
    R"("2025-11-25","capabilities":{},"clientInfo":{"name":"mcp_load_test","version":"1"}}})";
const std::string kInitialized = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";

// What is wrong with the response to call `id` of `kind`; empty when it is right.
std::string judge(const json& response, long id, Kind kind) {
  if (!response.contains("result")) return "not a result: " + response.dump().substr(0, 200);
  const json& result = response["result"];
  const bool is_error = result.value("isError", false);
  const json structured = result.value("structuredContent", json());
  switch (kind) {
    case Kind::kFast:
    case Kind::kCancelFast:
      if (is_error || structured != json{{"n", id}}) return "fast call: " + result.dump();
      return {};
    case Kind::kSlow:
      if (is_error || structured != json{{"slept_ms", kSlowMs}})
        return "slow call: " + result.dump();
      return {};
    case Kind::kFailing:
      if (!is_error || result.dump().find("fx-fail") == std::string::npos) {
        return "failing call: " + result.dump();
      }
      return {};
    case Kind::kCancelSlow:
      // Only a response for a call that ended before the cancellation arrived is allowed.
      if (is_error && result.dump().find("cancel") != std::string::npos) {
        return "a cancelled call was answered with its cancellation: " + result.dump();
      }
      return {};
  }
  return {};
}

struct Run {
  long calls = 10000;
  int clients = 32;
  double rss_growth = 0.10;
  std::vector<std::string> server;

  std::atomic<long> next{0};
  // The next call to make, marked as sent; nullopt once every call has been claimed.
  struct Claim {
    long id;
    Kind kind;
  };
  std::optional<Claim> claim() {
    const long index = next.fetch_add(1);
    if (index >= calls) return std::nullopt;
    std::lock_guard lock(mutex);
    sent[static_cast<size_t>(index)] = 1;
    return Claim{index + 1, kind_of(index)};
  }
  std::atomic<long> done{0};
  std::atomic<long> rss_first{0};  // KiB after the first 1,000 calls

  std::mutex mutex;
  std::condition_variable answered;
  std::vector<int> responses;  // per call index
  std::vector<char> sent;
  std::unordered_map<long, json> waiting;  // stdio: responses not yet taken by their client
  long unknown = 0;
  long notifications = 0;
  std::vector<std::string> problems;
  // The slowest call of each kind (for the report; no check depends on time).
  std::array<double, 5> slowest_ms{};
  std::array<long, 5> slowest_id{};

  void timed(long id, Kind kind, std::chrono::steady_clock::time_point since) {
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
    std::lock_guard lock(mutex);
    const auto k = static_cast<size_t>(kind);
    if (ms > slowest_ms[k]) {
      slowest_ms[k] = ms;
      slowest_id[k] = id;
    }
  }

  void problem(std::string what) {
    std::lock_guard lock(mutex);
    if (problems.size() < 20) problems.push_back(std::move(what));
  }

  // Records one response; false when its id was never sent (or is not a call of ours).
  bool record(long id) {
    std::lock_guard lock(mutex);
    if (id < 1 || id > calls || !sent[static_cast<size_t>(id - 1)]) {
      ++unknown;
      return false;
    }
    ++responses[static_cast<size_t>(id - 1)];
    return true;
  }

  void finish_one(pid_t server_pid) {
    if (done.fetch_add(1) + 1 == std::min<long>(1000, calls))
      rss_first = skillrt_load::rss_kib(server_pid);
  }
};

// Keeps the server's stderr drained (a full pipe would stall it); keeps its tail for errors.
class StderrTail {
 public:
  explicit StderrTail(int fd) : fd_(fd) {}
  ~StderrTail() {
    if (thread_.joinable()) thread_.join();
  }
  // Reads until a line contains `needle`; returns that line, or empty at EOF.
  std::string wait_for(std::string_view needle) {
    std::string line;
    skillrt_load::LineReader reader(fd_);
    while (reader.next(line)) {
      keep(line);
      if (line.find(needle) != std::string::npos) {
        thread_ = std::thread([this, r = std::move(reader)]() mutable { drain(r); });
        return line;
      }
    }
    return {};
  }
  void start() {
    thread_ = std::thread([this] {
      skillrt_load::LineReader reader(fd_);
      drain(reader);
    });
  }
  std::string tail() {
    std::lock_guard lock(mutex_);
    return tail_;
  }

 private:
  void drain(skillrt_load::LineReader& reader) {
    std::string line;
    while (reader.next(line)) keep(line);
  }
  void keep(const std::string& line) {
    std::lock_guard lock(mutex_);
    tail_ += line + "\n";
    if (tail_.size() > 4000) tail_.erase(0, tail_.size() - 4000);
  }
  int fd_;
  std::mutex mutex_;
  std::string tail_;
  std::thread thread_;
};

// Returns the server's resident memory (KiB) at the end of the run, before its stdin closes.
long run_stdio(Run& run, const skillrt_load::Child& child) {
  std::mutex write_mutex;
  auto send = [&](const std::string& line) {
    std::lock_guard lock(write_mutex);
    if (!skillrt_load::write_all(child.in, line + "\n")) die("the server closed its stdin");
  };
  std::optional<json> init_response;
  bool end_answered = false;
  std::thread reader([&] {
    skillrt_load::LineReader lines(child.out);
    std::string line;
    while (lines.next(line)) {
      json msg = json::parse(line, nullptr, false);
      if (msg.is_discarded()) {
        run.problem("stdout line is not JSON: " + line.substr(0, 200));
        continue;
      }
      if (msg.contains("method")) {
        std::lock_guard lock(run.mutex);
        ++run.notifications;
        continue;
      }
      const json id = msg.value("id", json());
      if (id == "init" || id == "end") {
        std::lock_guard lock(run.mutex);
        if (id == "init") init_response = msg;
        if (id == "end") end_answered = true;
        run.answered.notify_all();
        continue;
      }
      if (!id.is_number_integer() || !run.record(id.get<long>())) {
        run.problem("response with an id that was never sent: " + line.substr(0, 200));
        continue;
      }
      std::lock_guard lock(run.mutex);
      run.waiting[id.get<long>()] = std::move(msg);
      run.answered.notify_all();
    }
  });

  send(kInitialize);
  {
    std::unique_lock lock(run.mutex);
    run.answered.wait(lock, [&] { return init_response.has_value(); });
  }
  if (!init_response->contains("result")) die("initialize failed: " + init_response->dump());
  send(kInitialized);

  std::vector<std::thread> clients;
  for (int c = 0; c < run.clients; ++c) {
    clients.emplace_back([&] {
      while (const auto claim = run.claim()) {
        const long id = claim->id;
        const Kind kind = claim->kind;
        const auto sent_at = std::chrono::steady_clock::now();
        send(call_body(id, kind));
        if (cancelled(kind)) {
          send(cancel_body(id));
          run.finish_one(child.pid);
          continue;
        }
        json response;
        {
          std::unique_lock lock(run.mutex);
          run.answered.wait(lock, [&] { return run.waiting.contains(id); });
          response = std::move(run.waiting[id]);
          run.waiting.erase(id);
        }
        run.timed(id, kind, sent_at);
        if (auto bad = judge(response, id, kind); !bad.empty()) {
          run.problem("id " + std::to_string(id) + ": " + bad);
        }
        run.finish_one(child.pid);
      }
    });
  }
  for (auto& t : clients) t.join();
  // The run is over once the server has answered a request sent after every call.
  send(R"({"jsonrpc":"2.0","id":"end","method":"ping"})");
  {
    std::unique_lock lock(run.mutex);
    run.answered.wait(lock, [&] { return end_answered; });
  }
  const long rss_end = skillrt_load::rss_kib(child.pid);
  ::close(child.in);  // EOF: the server finishes what is in flight and exits
  reader.join();      // late responses (cancelled calls that won the race) are counted too
  return rss_end;
}

int http_port(const std::string& line) {
  // "... listening on http://127.0.0.1:PORT/mcp"
  const size_t at = line.find("http://");
  const size_t slash = line.find("/mcp", at);
  const size_t colon = line.rfind(':', slash);
  if (at == std::string::npos || slash == std::string::npos || colon == std::string::npos) {
    die("cannot find the port in the server's log line: " + line);
  }
  return std::atoi(line.c_str() + colon + 1);
}

void run_http_client(Run& run, int port, pid_t pid) {
  skillrt_load::HttpConnection calls(port);
  skillrt_load::HttpConnection side(port);  // cancellations, while a call waits on `calls`
  auto init = calls.post(kInitialize, {});
  if (!init || init->status != 200 || init->session.empty()) {
    run.problem("initialize over HTTP failed");
    return;
  }
  const std::string session = init->session;
  auto ready = calls.post(kInitialized, session);
  if (!ready || ready->status != 202) run.problem("notifications/initialized not accepted");
  while (const auto claim = run.claim()) {
    const long id = claim->id;
    const Kind kind = claim->kind;
    const auto sent_at = std::chrono::steady_clock::now();
    if (!calls.send_post(call_body(id, kind), session)) {
      run.problem("id " + std::to_string(id) + ": the connection closed");
      return;
    }
    if (cancelled(kind)) {
      auto ack = side.post(cancel_body(id), session);
      if (!ack || ack->status != 202) {
        run.problem("id " + std::to_string(id) + ": notifications/cancelled not accepted");
      }
    }
    auto answer = calls.read_response();
    if (!answer) {
      run.problem("id " + std::to_string(id) + ": no HTTP response");
      return;
    }
    run.timed(id, kind, sent_at);
    if (answer->status == 202 && answer->body.empty()) {
      // No JSON-RPC response: right for a cancelled call only.
      if (!cancelled(kind)) run.problem("id " + std::to_string(id) + ": answered with nothing");
      run.finish_one(pid);
      continue;
    }
    const json msg = json::parse(answer->body, nullptr, false);
    const json rid = msg.is_discarded() ? json() : msg.value("id", json());
    if (answer->status != 200 || !rid.is_number_integer() || rid.get<long>() != id ||
        !run.record(id)) {
      run.problem("id " + std::to_string(id) + ": HTTP " + std::to_string(answer->status) + " " +
                  answer->body.substr(0, 200));
      std::lock_guard lock(run.mutex);
      ++run.unknown;
    } else if (auto bad = judge(msg, id, kind); !bad.empty()) {
      run.problem("id " + std::to_string(id) + ": " + bad);
    }
    run.finish_one(pid);
  }
}

[[noreturn]] void usage() {
  die("usage: mcp_load_test --transport stdio|http [--calls N] [--clients C] "
      "[--rss-growth F | --no-rss-check] -- <server command...>");
}

}  // namespace

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);
  Run run;
  std::string transport;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (i + 1 >= argc) usage();
    if (arg == "--transport") {
      transport = argv[++i];
    } else if (arg == "--calls") {
      run.calls = std::atol(argv[++i]);
    } else if (arg == "--clients") {
      run.clients = std::atoi(argv[++i]);
    } else if (arg == "--rss-growth") {
      run.rss_growth = std::atof(argv[++i]);
    } else if (arg == "--no-rss-check") {
      // Sanitizer builds: the allocator's quarantine keeps freed memory resident on purpose.
      run.rss_growth = -1;
    } else {
      usage();
    }
  }
  for (; i < argc; ++i) run.server.emplace_back(argv[i]);
  if ((transport != "stdio" && transport != "http") || run.server.empty() || run.calls < 1 ||
      run.clients < 1) {
    usage();
  }
  run.responses.assign(static_cast<size_t>(run.calls), 0);
  run.sent.assign(static_cast<size_t>(run.calls), 0);

  const auto start = std::chrono::steady_clock::now();
  const skillrt_load::Child child = skillrt_load::spawn(run.server);
  StderrTail stderr_tail(child.err);
  long rss_end = 0;
  int exit_code = -1;
  if (transport == "stdio") {
    stderr_tail.start();
    rss_end = run_stdio(run, child);
  } else {
    const std::string line = stderr_tail.wait_for("listening on http://");
    if (line.empty()) die("the HTTP server did not start:\n" + stderr_tail.tail());
    const int port = http_port(line);
    std::vector<std::thread> clients;
    for (int c = 0; c < run.clients; ++c) {
      clients.emplace_back([&run, port, &child] { run_http_client(run, port, child.pid); });
    }
    for (auto& t : clients) t.join();
    rss_end = skillrt_load::rss_kib(child.pid);
    ::close(child.in);
    ::kill(child.pid, SIGTERM);
  }
  int status = 0;
  ::waitpid(child.pid, &status, 0);
  exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  long total = 0, lost = 0, duplicated = 0, cancelled_answered = 0, cancelled_calls = 0;
  for (long index = 0; index < run.calls; ++index) {
    const int n = run.responses[static_cast<size_t>(index)];
    total += n;
    if (!run.sent[static_cast<size_t>(index)]) {
      ++lost;
      continue;
    }
    if (cancelled(kind_of(index))) {
      ++cancelled_calls;
      cancelled_answered += n;
      if (n > 1) ++duplicated;
    } else if (n == 0) {
      ++lost;
    } else if (n > 1) {
      ++duplicated;
    }
  }
  const long rss_first = run.rss_first.load();
  const bool rss_checked = run.rss_growth >= 0;
  const bool rss_ok = !rss_checked || (rss_first > 0 && static_cast<double>(rss_end) <=
                                                            static_cast<double>(rss_first) *
                                                                (1 + run.rss_growth));
  const bool stdio_exit_ok = transport != "stdio" || exit_code == 0;
  std::printf(
      "{\"transport\":\"%s\",\"calls\":%ld,\"clients\":%d,\"responses\":%ld,"
      "\"cancelled_calls\":%ld,\"cancelled_answered\":%ld,\"lost\":%ld,\"duplicated\":%ld,"
      "\"unknown_ids\":%ld,\"notifications\":%ld,\"rss_after_1000_kib\":%ld,\"rss_end_kib\":%ld,"
      "\"rss_growth\":%.4f,\"server_exit\":%d,\"seconds\":%.2f}\n",
      transport.c_str(), run.calls, run.clients, total, cancelled_calls, cancelled_answered, lost,
      duplicated, run.unknown, run.notifications, rss_first, rss_end,
      rss_first > 0 ? static_cast<double>(rss_end) / static_cast<double>(rss_first) - 1 : 0.0,
      exit_code, seconds);
  const char* names[] = {"fast", "slow", "failing", "cancelled-slow", "cancelled-fast"};
  std::printf("slowest call of each kind (ms, id):");
  for (size_t k = 0; k < run.slowest_ms.size(); ++k) {
    if (run.slowest_id[k] > 0) {
      std::printf(" %s %.1f (%ld)", names[k], run.slowest_ms[k], run.slowest_id[k]);
    }
  }
  std::printf("\n");
  for (const auto& p : run.problems) std::printf("problem: %s\n", p.c_str());
  if (!rss_checked) {
    std::printf("resident memory not checked (--no-rss-check: a sanitizer build)\n");
  }
  if (!rss_ok)
    std::printf("problem: resident memory grew past the allowed %.0f%%\n", run.rss_growth * 100);
  if (!stdio_exit_ok) std::printf("problem: the stdio server exited with %d\n", exit_code);
  const bool ok = run.problems.empty() && lost == 0 && duplicated == 0 && run.unknown == 0 &&
                  rss_ok && stdio_exit_ok;
  if (!ok) std::printf("server stderr (tail):\n%s\n", stderr_tail.tail().c_str());
  std::fflush(stdout);
  return ok ? 0 : 1;
}
