// stdio framing: fault injection through pipes, and the fd 1 discipline in a child process.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../mcp/support.hpp"
#include "transport/stdio_transport.hpp"

using namespace skillrt::testing;
namespace transport = skillrt::transport;

namespace {

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    REQUIRE(n > 0);
    data.remove_prefix(static_cast<size_t>(n));
  }
}

std::vector<json> read_lines(int fd) {
  std::string all;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;) all.append(buf, static_cast<size_t>(n));
  std::vector<json> out;
  size_t start = 0;
  for (size_t nl; (nl = all.find('\n', start)) != std::string::npos; start = nl + 1) {
    const std::string line = all.substr(start, nl - start);
    INFO("line: " << line);
    REQUIRE_NOTHROW(out.push_back(json::parse(line)));  // only JSON on the protocol stream
  }
  CHECK(start == all.size());  // and every message ends with a newline
  return out;
}

const char* kInit =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
    "\n";

// serve_stdio_fds() on a pair of pipes, with the session initialized: write requests to in[1],
// read answers from out[0]. After close_input(), finish() returns every line that is left once
// the server has stopped.
struct PipedSession {
  explicit PipedSession(skillrt::mcp::Server& server) {
    REQUIRE(::pipe(in) == 0);
    REQUIRE(::pipe(out) == 0);
    serving = std::thread([this, &server] {
      transport::serve_stdio_fds(server, in[0], out[1], {});
      ::close(out[1]);
    });
    write_all(in[1], kInit);
    write_all(in[1], "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
  }
  void close_input() { ::close(in[1]); }
  std::vector<json> finish() {
    std::vector<json> lines = read_lines(out[0]);
    serving.join();
    ::close(in[0]);
    ::close(out[0]);
    return lines;
  }
  int in[2];
  int out[2];
  std::thread serving;
};

}  // namespace

TEST_CASE("stdio survives every malformed input and answers the next valid request") {
  TestHost host;
  skillrt::mcp::Server server(*host.executor, {});
  transport::StdioOptions options;
  options.max_line_bytes = 4096;
  // With idle polling off, and on (the default window).
  const int poll_us = GENERATE(0, 50);
  options.idle_poll = std::chrono::microseconds(poll_us);
  // Input from a pipe (what clients use), a socket and a regular file: the reader first takes
  // what is waiting without blocking, which each of them supports differently.
  const std::string input_kind = GENERATE("pipe", "socket", "file");
  INFO("idle poll " << poll_us << " us, input from a " << input_kind);

  std::vector<std::string> pieces = {
      kInit,
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
      // A message split across writes.
      R"({"jsonrpc":"2.0","id":"split",)",
      "\"method\":\"ping\"}\n",
      // A line over the limit, in one write and then across several.
      std::string(5000, 'x') + "\n",
  };
  for (int i = 0; i < 3; ++i) pieces.push_back(std::string(3000, 'y'));
  pieces.insert(
      pieces.end(),
      {"\n", "{\"jsonrpc\":\"2.0\",\"id\":\"utf8\",\"method\":\"\xc3\x28\"}\n",
       "{this is not json}\n",
       R"([{"jsonrpc":"2.0","id":"b1","method":"ping"}])"
       "\n",
       R"({"jsonrpc":"2.0","id":"nid","method":"notifications/initialized"})"
       "\n",
       R"({"jsonrpc":"2.0","id":55,"result":{"from":"client"}})"
       "\n",
       "\n   \n", "{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":\"ping\"}\r\n",
       R"({"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"}}})"
       "\n",
       R"({"jsonrpc":"2.0","id":"cut","method":)"});  // EOF mid-message

  int in[2] = {-1, -1};
  if (input_kind == "pipe") {
    REQUIRE(::pipe(in) == 0);
  } else if (input_kind == "socket") {
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, in) == 0);
  } else {
    const auto dir = temp_dir("stdio-file");
    const auto path = dir / "input.jsonl";
    {
      std::ofstream file(path, std::ios::binary);
      for (const auto& piece : pieces) file << piece;
    }
    in[0] = ::open(path.c_str(), O_RDONLY);
    std::filesystem::remove_all(dir);  // the open descriptor keeps the file readable
    REQUIRE(in[0] >= 0);
  }
  int out[2];
  REQUIRE(::pipe(out) == 0);
  int code = -1;
  std::thread serving([&] {
    code = transport::serve_stdio_fds(server, in[0], out[1], options);
    ::close(out[1]);
  });
  std::vector<json> lines;
  std::thread reading([&] { lines = read_lines(out[0]); });
  if (in[1] >= 0) {
    for (const auto& piece : pieces) write_all(in[1], piece);
    ::close(in[1]);
  }
  serving.join();
  reading.join();
  ::close(in[0]);
  ::close(out[0]);

  CHECK(code == 0);
  REQUIRE(lines.size() == 11);
  CHECK(lines[0]["id"] == 0);
  CHECK(lines[1]["id"] == "split");
  CHECK(lines[1]["result"] == json::object());
  CHECK(lines[2]["error"]["code"] == -32600);
  CHECK(lines[2]["error"]["message"].get<std::string>().find("4096") != std::string::npos);
  CHECK(lines[3]["error"]["code"] == -32600);
  CHECK(lines[4]["error"]["code"] == -32700);  // invalid UTF-8
  CHECK(lines[5]["error"]["code"] == -32700);  // invalid JSON
  CHECK(lines[6]["error"]["code"] == -32600);  // batch on 2025-11-25
  CHECK(lines[7]["id"] == "nid");
  CHECK(lines[7]["error"]["code"] == -32600);
  CHECK(lines[8]["id"] == "crlf");  // the client's response got no answer
  // The tool call answers from the pool, so it may come before or after the cut message's error.
  const json& call = lines[9]["id"] == "call" ? lines[9] : lines[10];
  const json& cut = lines[9]["id"] == "call" ? lines[10] : lines[9];
  CHECK(call["result"]["structuredContent"]["text"] == "ok");
  CHECK(cut["error"]["code"] == -32700);  // the message cut by EOF
}

TEST_CASE("run_stdio keeps plugin writes to fd 1 off the protocol stream") {
  int in[2];
  int out[2];
  REQUIRE(::pipe(in) == 0);
  REQUIRE(::pipe(out) == 0);
  std::fflush(stdout);  // what the test runner printed so far stays the runner's
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
    int code = 1;
    std::printf("buffered before serving: must not reach the protocol stream\n");
    {
      TestHost host;
      skillrt::mcp::Server server(*host.executor, {});
      code = transport::run_stdio(server, {});
    }
    ::_exit(code);
  }
  ::close(in[0]);
  ::close(out[1]);
  write_all(in[1], kInit);
  write_all(
      in[1],
      R"({"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"print","arguments":{"text":"x"}}})"
      "\n");
  write_all(in[1], R"({"jsonrpc":"2.0","id":"ping","method":"ping"})"
                   "\n");
  ::close(in[1]);
  const auto lines = read_lines(out[0]);
  ::close(out[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::set<json> ids;
  for (const auto& l : lines) {
    CHECK(l.value("id", json()) != 999);  // the line the plugin printed
    ids.insert(l["id"]);
  }
  CHECK(lines.size() == 3);
  CHECK(ids == std::set<json>{0, "p", "ping"});
}

TEST_CASE("a slow call does not hold up reading: later requests are answered while it runs") {
  TestHost host;
  skillrt::mcp::Server server(*host.executor, {});
  PipedSession piped(server);
  const int* in = piped.in;
  const int* out = piped.out;
  // `slow` runs until cancelled; the first call of a skill starts on the reading thread.
  write_all(
      in[1],
      R"({"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"slow","arguments":{"text":"x"}}})"
      "\n");
  write_all(in[1], R"({"jsonrpc":"2.0","id":"p1","method":"ping"})"
                   "\n");
  // The ping is answered while the slow call still runs (it only ends when cancelled).
  std::string seen;
  char buf[4096];
  while (seen.find(R"("id":"p1")") == std::string::npos) {
    const ssize_t n = ::read(out[0], buf, sizeof(buf));
    REQUIRE(n > 0);
    seen.append(buf, static_cast<size_t>(n));
  }
  CHECK(seen.find(R"("id":"slow")") == std::string::npos);
  write_all(in[1],
            R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow"}})"
            "\n");
  write_all(in[1], R"({"jsonrpc":"2.0","id":"p2","method":"ping"})"
                   "\n");
  piped.close_input();
  const std::vector<json> rest = piped.finish();
  REQUIRE(rest.size() == 1);
  CHECK(rest[0]["id"] == "p2");  // and no answer for the cancelled call
}

// Reads its input only after sleeping past the inline budget: by then the reading thread has
// handed reading over and the next requests have come in.
int32_t late_echo_invoke(void*, skillrt_call* call, skillrt_str input) {
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const json in = json::parse(std::string_view(input.ptr, input.len));
  return write_json(call, {{"text", in.at("text")}});
}

TEST_CASE("a call released to the pool still reads its own arguments while reading goes on") {
  TestHost host(0, {make_skill("late-echo", late_echo_invoke)});
  skillrt::mcp::Server server(*host.executor, {});
  PipedSession piped(server);
  const int* in = piped.in;
  const std::string text = "late " + std::string(300, 'x') + " end";
  write_all(
      in[1],
      R"({"jsonrpc":"2.0","id":"late","method":"tools/call","params":{"name":"late-echo","arguments":{"text":")" +
          text + "\"}}}\n");
  // While it sleeps, enough requests to make the next reader reuse and move its buffer.
  std::thread feeding([&] {
    for (int i = 0; i < 2000; ++i) {
      write_all(in[1], R"({"jsonrpc":"2.0","id":"p)" + std::to_string(i) +
                           R"(","method":"ping","params":{"pad":")" + std::string(100, 'y') +
                           "\"}}\n");
    }
    piped.close_input();
  });
  // Read while the requests go in: the answers would fill the pipe otherwise.
  const std::vector<json> lines = piped.finish();
  feeding.join();
  size_t pings = 0;
  bool late = false;
  for (const json& line : lines) {
    if (line.value("id", json()) == "late") {
      late = true;
      CHECK(line["result"]["structuredContent"]["text"] == text);
    } else if (line.contains("id") && line["id"].is_string() &&
               line["id"].get<std::string>().starts_with("p")) {
      ++pings;
    }
  }
  CHECK(late);
  CHECK(pings == 2000);
}

TEST_CASE("stdio: request after answer, with and without idle polling, pauses in between") {
  TestHost host;
  skillrt::mcp::Server server(*host.executor, {});
  const int poll_us = GENERATE(0, 50, 5000);
  INFO("idle poll " << poll_us << " us");
  int in[2];
  int out[2];
  REQUIRE(::pipe(in) == 0);
  REQUIRE(::pipe(out) == 0);
  transport::StdioOptions options;
  options.idle_poll = std::chrono::microseconds(poll_us);
  std::thread serving([&] {
    transport::serve_stdio_fds(server, in[0], out[1], options);
    ::close(out[1]);
  });
  // One answer at a time, as a sequential client reads them.
  std::string pending;
  const auto next_line = [&] {
    char buf[4096];
    while (pending.find('\n') == std::string::npos) {
      const ssize_t n = ::read(out[0], buf, sizeof(buf));
      REQUIRE(n > 0);
      pending.append(buf, static_cast<size_t>(n));
    }
    const size_t nl = pending.find('\n');
    const json line = json::parse(pending.substr(0, nl));
    pending.erase(0, nl + 1);
    return line;
  };
  write_all(in[1], kInit);
  CHECK(next_line()["id"] == 0);
  for (int i = 1; i <= 300; ++i) {
    // Back to back opens the window; a pause now and then closes it again.
    if (i % 100 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const std::string text = "t" + std::to_string(i);
    write_all(in[1], json{{"jsonrpc", "2.0"},
                          {"id", i},
                          {"method", "tools/call"},
                          {"params", {{"name", "echo"}, {"arguments", {{"text", text}}}}}}
                             .dump() +
                         "\n");
    const json answer = next_line();
    CHECK(answer["id"] == i);
    CHECK(answer["result"]["structuredContent"]["text"] == text);
  }
  ::close(in[1]);
  serving.join();
  ::close(in[0]);
  ::close(out[0]);
}
