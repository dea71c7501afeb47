// Streamable HTTP: sessions, headers, SSE, limits and many concurrent sessions, driven by a raw
// Beast client over loopback.
#include <atomic>
#include <catch2/catch.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../mcp/support.hpp"
#include "transport/http_transport.hpp"

using namespace skillrt::testing;
namespace transport = skillrt::transport;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

struct Response {
  unsigned status = 0;
  std::string content_type;
  std::string session;
  std::string body;
  // The JSON-RPC messages in the body, whether it was JSON or an SSE stream.
  std::vector<json> messages() const {
    std::vector<json> out;
    if (content_type.starts_with("application/json")) {
      out.push_back(json::parse(body));
      return out;
    }
    size_t pos = 0;
    while ((pos = body.find("data: ", pos)) != std::string::npos) {
      const size_t end = body.find('\n', pos);
      out.push_back(json::parse(body.substr(pos + 6, end - pos - 6)));
      pos = end;
    }
    return out;
  }
};

// One keep-alive connection.
class HttpClient {
 public:
  explicit HttpClient(uint16_t port) : port_(port), socket_(ioc_) {
    socket_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  }

  Response send(http::verb verb, const std::string& body,
                const std::map<std::string, std::string>& headers = {}) {
    http::request<http::string_body> req{verb, "/mcp", 11};
    req.set(http::field::host, "127.0.0.1:" + std::to_string(port_));
    req.set(http::field::content_type, "application/json");
    req.set(http::field::accept, "application/json, text/event-stream");
    for (const auto& [k, v] : headers) req.set(k, v);
    req.body() = body;
    req.prepare_payload();
    http::write(socket_, req);
    http::response_parser<http::string_body> parser;
    parser.body_limit(boost::none);
    http::read(socket_, buffer_, parser);
    const auto& res = parser.get();
    Response out;
    out.status = res.result_int();
    out.content_type = std::string(res[http::field::content_type]);
    out.session = std::string(res["Mcp-Session-Id"]);
    out.body = res.body();
    return out;
  }

  Response post(const json& message, const std::map<std::string, std::string>& headers = {}) {
    return send(http::verb::post, message.dump(), headers);
  }

  tcp::socket& socket() { return socket_; }

 private:
  uint16_t port_;
  asio::io_context ioc_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
};

json init_message() {
  return req(0, "initialize",
             {{"protocolVersion", "2025-11-25"},
              {"capabilities", json::object()},
              {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
}

struct Fixture {
  explicit Fixture(transport::HttpOptions options = {})
      : server(*host.executor, {}), http(server, std::move(options)) {
    auto bound = http.listen();
    REQUIRE(bound);
    port = *bound;
    thread = std::thread([this] { http.run(); });
  }
  ~Fixture() {
    http.stop();
    thread.join();
  }
  // Initializes a session on `client` and returns its id.
  std::string open(HttpClient& client) {
    auto r = client.post(init_message());
    REQUIRE(r.status == 200);
    REQUIRE(!r.session.empty());
    auto n = client.post(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
                         {{"Mcp-Session-Id", r.session}, {"MCP-Protocol-Version", "2025-11-25"}});
    REQUIRE(n.status == 202);
    return r.session;
  }
  TestHost host;
  skillrt::mcp::Server server;
  transport::HttpServer http;
  uint16_t port = 0;
  std::thread thread;
};

}  // namespace

TEST_CASE("HTTP: initialize issues a session that later requests need") {
  Fixture f;
  HttpClient client(f.port);
  auto init = client.post(init_message());
  CHECK(init.status == 200);
  CHECK(init.content_type == "application/json");
  REQUIRE(init.session.size() >= 32);
  CHECK(init.messages()[0]["result"]["protocolVersion"] == "2025-11-25");

  auto no_session = client.post(req(1, "tools/list"));
  CHECK(no_session.status == 400);
  auto unknown = client.post(req(1, "tools/list"), {{"Mcp-Session-Id", "feedface"}});
  CHECK(unknown.status == 404);
  auto list = client.post(req(2, "tools/list"), {{"Mcp-Session-Id", init.session}});
  CHECK(list.status == 200);
  CHECK(list.messages()[0]["result"]["tools"].size() == f.host.registry.all().size());
  auto bad_version = client.post(
      req(3, "ping"), {{"Mcp-Session-Id", init.session}, {"MCP-Protocol-Version", "1900-01-01"}});
  CHECK(bad_version.status == 400);
  auto notification = client.post(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
                                  {{"Mcp-Session-Id", init.session}});
  CHECK(notification.status == 202);
  CHECK(notification.body.empty());
  auto garbage = client.send(http::verb::post, "{nope", {{"Mcp-Session-Id", init.session}});
  CHECK(garbage.messages()[0]["error"]["code"] == -32700);

  auto del = client.send(http::verb::delete_, "", {{"Mcp-Session-Id", init.session}});
  CHECK(del.status == 200);
  auto after = client.post(req(4, "ping"), {{"Mcp-Session-Id", init.session}});
  CHECK(after.status == 404);
}

TEST_CASE("HTTP: progress streams as SSE on the POST, the result last") {
  Fixture f;
  HttpClient client(f.port);
  const std::string session = f.open(client);
  auto r = client.post(call("c", "progress", {{"text", "x"}}, {{"progressToken", 9}}),
                       {{"Mcp-Session-Id", session}});
  CHECK(r.status == 200);
  CHECK(r.content_type == "text/event-stream");
  const auto messages = r.messages();
  REQUIRE(messages.size() == 4);
  for (int i = 0; i < 3; ++i) CHECK(messages[i]["method"] == "notifications/progress");
  CHECK(messages[3]["id"] == "c");
  CHECK(messages[3]["result"]["structuredContent"]["text"] == "done");
  // Without progress the answer is plain JSON.
  auto plain = client.post(call("d", "echo", {{"text", "x"}}), {{"Mcp-Session-Id", session}});
  CHECK(plain.content_type == "application/json");
}

TEST_CASE("HTTP: Host and Origin are validated") {
  transport::HttpOptions options;
  options.allowed_origins = {"https://app.example.com"};
  Fixture f(options);
  HttpClient client(f.port);
  CHECK(client.post(init_message(), {{"Origin", "https://evil.example.com"}}).status == 403);
  CHECK(client.post(init_message(), {{"Host", "evil.example.com"}}).status == 403);
  CHECK(client.post(init_message(), {{"Origin", "http://localhost:5173"}}).status == 200);
  CHECK(client.post(init_message(), {{"Origin", "https://app.example.com"}}).status == 200);
  CHECK(client.post(init_message(), {{"Host", "localhost:1"}}).status == 200);
}

TEST_CASE("HTTP: --token requires a bearer token") {
  transport::HttpOptions options;
  options.token = "s3cret";
  Fixture f(options);
  HttpClient client(f.port);
  CHECK(client.post(init_message()).status == 401);
  CHECK(client.post(init_message(), {{"Authorization", "Bearer wrong"}}).status == 401);
  CHECK(client.post(init_message(), {{"Authorization", "Bearer s3cret"}}).status == 200);
}

TEST_CASE("HTTP: a body over the limit is refused with 413") {
  transport::HttpOptions options;
  options.max_body_bytes = 1024;
  Fixture f(options);
  HttpClient client(f.port);
  auto r = client.post(call("big", "echo", {{"text", std::string(4000, 'z')}}));
  CHECK(r.status == 413);
  CHECK(r.body.find("1024") != std::string::npos);
  HttpClient again(f.port);
  CHECK(again.post(init_message()).status == 200);
}

TEST_CASE("HTTP: the GET stream carries messages that answer no request") {
  Fixture f;
  HttpClient client(f.port);
  const std::string session = f.open(client);
  HttpClient stream(f.port);
  http::request<http::empty_body> get{http::verb::get, "/mcp", 11};
  get.set(http::field::host, "127.0.0.1");
  get.set(http::field::accept, "text/event-stream");
  get.set("Mcp-Session-Id", session);
  http::write(stream.socket(), get);
  // Wait for the headers before logging, so the stream is registered.
  std::string seen;
  char buf[4096];
  while (seen.find("\r\n\r\n") == std::string::npos) {
    const size_t n = stream.socket().read_some(asio::buffer(buf));
    seen.append(buf, n);
  }
  CHECK(seen.starts_with("HTTP/1.1 200"));
  CHECK(seen.find("text/event-stream") != std::string::npos);
  f.server.broadcast_log("error", "tests", "to the GET stream");
  while (seen.find("to the GET stream") == std::string::npos) {
    const size_t n = stream.socket().read_some(asio::buffer(buf));
    seen.append(buf, n);
  }
  CHECK(seen.find("notifications/message") != std::string::npos);
  // A second GET stream for the same session is a conflict.
  HttpClient second(f.port);
  CHECK(
      second
          .send(http::verb::get, "", {{"Mcp-Session-Id", session}, {"Accept", "text/event-stream"}})
          .status == 409);
  // DELETE ends the session and closes its stream.
  CHECK(client.send(http::verb::delete_, "", {{"Mcp-Session-Id", session}}).status == 200);
  beast::error_code ec;
  while (!ec) {
    stream.socket().read_some(asio::buffer(buf), ec);
  }
  CHECK((ec == asio::error::eof || ec == asio::error::connection_reset));
}

TEST_CASE("HTTP: many concurrent sessions over keep-alive connections") {
  Fixture f;
  constexpr int kClients = 8;
  constexpr int kCalls = 25;
  std::vector<std::thread> threads;
  std::vector<std::string> sessions(kClients);
  std::vector<int> ok(kClients, 0);
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([&, c] {
      HttpClient client(f.port);
      auto init = client.post(init_message());
      sessions[c] = init.session;
      for (int i = 0; i < kCalls; ++i) {
        const std::string text = std::to_string(c) + ":" + std::to_string(i);
        auto r =
            client.post(call(text, "echo", {{"text", text}}), {{"Mcp-Session-Id", init.session}});
        const auto m = r.messages();
        if (r.status == 200 && m.size() == 1 &&
            m[0]["result"]["structuredContent"]["text"] == text) {
          ++ok[c];
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int c = 0; c < kClients; ++c) CHECK(ok[c] == kCalls);
  CHECK(std::set<std::string>(sessions.begin(), sessions.end()).size() == kClients);
}

TEST_CASE("HTTP: a slow call does not hold up other connections on the one I/O thread") {
  Fixture f;  // one I/O thread: a call started there must not keep it
  HttpClient a(f.port);
  const std::string session = f.open(a);
  const std::map<std::string, std::string> headers = {{"Mcp-Session-Id", session},
                                                      {"MCP-Protocol-Version", "2025-11-25"}};
  // `slow` runs until cancelled (20 s at most); the first call of a skill starts on the I/O
  // thread.
  int slow_status = 0;
  std::atomic<bool> answered{false};
  std::thread slow([&] {
    slow_status = a.post(call("slow", "slow", {{"text", "x"}}), headers).status;
    answered = true;
  });
  // Another connection is served meanwhile: its ping is answered, and its cancellation (sent
  // until the call has started and taken it) ends the slow call.
  HttpClient b(f.port);
  const auto ping = b.post(req("p1", "ping"), headers);
  CHECK(ping.status == 200);
  CHECK(ping.messages().at(0)["id"] == "p1");
  const json cancel = {{"jsonrpc", "2.0"},
                       {"method", "notifications/cancelled"},
                       {"params", {{"requestId", "slow"}}}};
  int refused = 0;
  while (!answered) {
    if (b.post(cancel, headers).status != 202) ++refused;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  slow.join();
  CHECK(refused == 0);
  CHECK(slow_status == 202);  // cancelled: no JSON-RPC answer, so the call did not run its 20 s
}

namespace {
size_t thread_count() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator("/proc/self/task")) {
    ++n;
  }
  return n;
}
}  // namespace

TEST_CASE("HTTP: spare I/O threads leave once the slow calls that summoned them are over") {
  Fixture f;
  HttpClient a(f.port);
  const std::string session = f.open(a);
  const std::map<std::string, std::string> headers = {{"Mcp-Session-Id", session},
                                                      {"MCP-Protocol-Version", "2025-11-25"}};
  // `nap` alternates: a quick run on the pool makes it eligible for the I/O thread again, and a
  // 30 ms run there overruns the budget and summons a spare. Twelve rounds would leave twelve
  // spares if none ever left.
  const size_t before = thread_count();
  for (int round = 0; round < 12; ++round) {
    const auto slow = a.post(call("s" + std::to_string(round), "nap", {{"text", "30"}}), headers);
    CHECK(slow.status == 200);
    const auto quick = a.post(call("q" + std::to_string(round), "nap", {{"text", "0"}}), headers);
    CHECK(quick.status == 200);
  }
  // A spare notices that it may leave within one 50 ms poll.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(thread_count() <= before + 2);
}

TEST_CASE("HTTP: the same answers with idle polling off, on, and on several I/O threads") {
  transport::HttpOptions off;
  off.idle_poll = std::chrono::microseconds(0);
  transport::HttpOptions wide;
  wide.idle_poll = std::chrono::microseconds(2000);
  wide.threads = 3;
  for (auto options : {off, wide}) {
    Fixture f(options);
    HttpClient client(f.port);
    const std::string session = f.open(client);
    // Back-to-back calls open the window (with polling on); a pause closes it again.
    for (int i = 0; i < 200; ++i) {
      if (i == 100) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      const std::string text = "t" + std::to_string(i);
      const auto r =
          client.post(call(text, "echo", {{"text", text}}), {{"Mcp-Session-Id", session}});
      REQUIRE(r.status == 200);
      CHECK(r.messages().at(0)["result"]["structuredContent"]["text"] == text);
    }
  }
}
