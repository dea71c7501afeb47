// The web page's seam (core/src/web) and its hook in the HTTP transport: what the page is, and
// who may read it (the same Host, Origin and token rules as /mcp, plus ?token= for a link).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "transport/http_transport.hpp"
#include "unit/mcp/support.hpp"
#include "web/page.hpp"

namespace transport = skillrt::transport;
namespace web = skillrt::web;

namespace {

struct Reply {
  int status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// One request on its own connection (Connection: close), read to the end.
Reply fetch(uint16_t port, const std::string& method, const std::string& target,
            const std::map<std::string, std::string>& headers = {}, const std::string& body = {}) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0);
  std::string request = method + " " + target + " HTTP/1.1\r\nConnection: close\r\n";
  if (!headers.contains("Host")) request += "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
  for (const auto& [name, value] : headers) request += name + ": " + value + "\r\n";
  if (!body.empty()) request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  request += "\r\n" + body;
  REQUIRE(::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size()));
  std::string raw;
  char buffer[8192];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0;) raw.append(buffer, n);
  ::close(fd);
  Reply reply;
  const size_t head_end = raw.find("\r\n\r\n");
  REQUIRE(head_end != std::string::npos);
  reply.body = raw.substr(head_end + 4);
  std::istringstream head(raw.substr(0, head_end));
  std::string line;
  std::getline(head, line);
  reply.status = std::stoi(line.substr(9, 3));
  while (std::getline(head, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    reply.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
  }
  return reply;
}

struct Server {
  explicit Server(transport::HttpOptions options)
      : mcp(*host.executor, {}), http(mcp, std::move(options)) {
    auto bound = http.listen();
    REQUIRE(bound);
    port = *bound;
    thread = std::thread([this] { http.run(); });
  }
  ~Server() {
    http.stop();
    thread.join();
  }
  skillrt::testing::TestHost host;
  skillrt::mcp::Server mcp;
  transport::HttpServer http;
  uint16_t port = 0;
  std::thread thread;
};

transport::HttpOptions with_page(std::string token) {
  transport::HttpOptions options;
  options.token = std::move(token);
  options.page = web::serve;
  return options;
}

std::string nonce_of(const std::string& policy) {
  std::smatch match;
  const std::regex script("script-src 'nonce-([0-9a-f]+)'");
  REQUIRE(std::regex_search(policy, match, script));
  return match[1];
}

const std::string kInitialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
    R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";

}  // namespace

TEST_CASE("the page is one document: style and script inlined under a fresh nonce") {
  const auto first = web::serve("/");
  REQUIRE(first);
  CHECK(first->status == 200);
  CHECK(first->content_type == "text/html; charset=utf-8");
  const std::string& html = first->body;
  for (const char* marker : {"@NONCE@", "@STYLE@", "@SCRIPT@"}) {
    INFO(marker);
    CHECK(html.find(marker) == std::string::npos);
  }
  const std::string nonce = nonce_of(first->headers);
  CHECK(nonce.size() == 32);
  CHECK(first->headers.find("style-src 'nonce-" + nonce + "'") != std::string::npos);
  CHECK(first->headers.find("default-src 'none'") != std::string::npos);
  CHECK(first->headers.find("connect-src 'self'") != std::string::npos);
  CHECK(first->headers.find("Referrer-Policy: no-referrer") != std::string::npos);
  CHECK(html.find("<script nonce=\"" + nonce + "\">") != std::string::npos);
  CHECK(html.find("<style nonce=\"" + nonce + "\">") != std::string::npos);
  // The script and the style are in it, and the page asks for nothing else (no src, no href to
  // another document, no icon request).
  CHECK(html.find("tools/call") != std::string::npos);
  CHECK(html.find("--accent") != std::string::npos);
  CHECK(html.find(" src=") == std::string::npos);
  CHECK(html.find("rel=\"icon\" href=\"data:,\"") != std::string::npos);

  const auto second = web::serve("/");
  REQUIRE(second);
  CHECK(nonce_of(second->headers) != nonce);
}

TEST_CASE("only / is the page") {
  for (const char* path : {"/app.js", "/favicon.ico", "/index.html", "//", "/mcp/"}) {
    INFO(path);
    CHECK_FALSE(web::serve(path));
  }
}

TEST_CASE("page_url: the token percent-encoded, a wildcard host shown as loopback") {
  CHECK(web::page_url("127.0.0.1", 8765, "") == "http://127.0.0.1:8765/");
  CHECK(web::page_url("127.0.0.1", 8765, "a+b/c d~_.-Z9") ==
        "http://127.0.0.1:8765/?token=a%2Bb%2Fc%20d~_.-Z9");
  CHECK(web::page_url("0.0.0.0", 80, "t") == "http://127.0.0.1:80/?token=t");
  CHECK(web::page_url("::1", 80, "") == "http://[::1]:80/");
  CHECK(web::page_url("localhost", 1, "\xe4\xbd\xa0") == "http://localhost:1/?token=%E4%BD%A0");
}

TEST_CASE("HTTP: the page needs the token, from the header or the address") {
  Server server(with_page("t0k+en/1"));
  const uint16_t port = server.port;

  const Reply none = fetch(port, "GET", "/");
  CHECK(none.status == 401);
  CHECK(none.header("content-type") == "text/plain; charset=utf-8");
  CHECK(none.header("www-authenticate") == "Bearer realm=\"skillrt\"");
  CHECK(none.body.find("?token=") != std::string::npos);
  CHECK(fetch(port, "GET", "/?token=wrong").status == 401);
  CHECK(fetch(port, "GET", "/?token=").status == 401);
  CHECK(fetch(port, "GET", "/?tokens=t0k%2Ben%2F1").status == 401);
  CHECK(fetch(port, "GET", "/", {{"Authorization", "Bearer wrong"}}).status == 401);

  const Reply by_query = fetch(port, "GET", "/?lang=zh&token=t0k%2Ben%2F1");
  CHECK(by_query.status == 200);
  CHECK(by_query.header("content-type") == "text/html; charset=utf-8");
  CHECK(by_query.header("content-security-policy").starts_with("default-src 'none'"));
  CHECK(by_query.header("cache-control") == "no-store");
  CHECK(by_query.body.starts_with("<!doctype html>"));
  // No CORS headers: another origin's script may not read the page.
  CHECK_FALSE(by_query.headers.contains("access-control-allow-origin"));
  const Reply by_header = fetch(port, "GET", "/", {{"Authorization", "Bearer t0k+en/1"}});
  CHECK(by_header.status == 200);

  const Reply unknown = fetch(port, "GET", "/secret.txt?token=t0k%2Ben%2F1");
  CHECK(unknown.status == 404);
  CHECK(unknown.body.find("/mcp") != std::string::npos);
  const Reply post = fetch(port, "POST", "/?token=t0k%2Ben%2F1", {}, "{}");
  CHECK(post.status == 405);
  CHECK(post.header("allow") == "GET");
}

TEST_CASE("HTTP: the page refuses other origins and non-loopback Host names, as /mcp does") {
  Server server(with_page("tok"));
  const uint16_t port = server.port;
  const Reply foreign = fetch(port, "GET", "/?token=tok", {{"Origin", "http://evil.example"}});
  CHECK(foreign.status == 403);
  CHECK(foreign.body.find("--allow-origin") != std::string::npos);
  CHECK(fetch(port, "GET", "/?token=tok", {{"Host", "evil.example:80"}}).status == 403);
  CHECK(fetch(port, "GET", "/?token=tok", {{"Origin", "http://localhost:3000"}}).status == 200);
}

TEST_CASE("HTTP: /mcp keeps its rules, and the address token opens the page only") {
  Server server(with_page("tok"));
  const uint16_t port = server.port;
  const std::map<std::string, std::string> json = {
      {"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}};
  CHECK(fetch(port, "POST", "/mcp?token=tok", json, kInitialize).status == 401);
  auto with_bearer = json;
  with_bearer["Authorization"] = "Bearer tok";
  const Reply ok = fetch(port, "POST", "/mcp", with_bearer, kInitialize);
  CHECK(ok.status == 200);
  CHECK(ok.body.find("\"protocolVersion\"") != std::string::npos);
  with_bearer["Origin"] = "http://evil.example";
  CHECK(fetch(port, "POST", "/mcp", with_bearer, kInitialize).status == 403);
}

TEST_CASE("HTTP: without a page, every other path is 404 as before") {
  Server server(transport::HttpOptions{});
  const Reply reply = fetch(server.port, "GET", "/");
  CHECK(reply.status == 404);
  CHECK(reply.header("content-type") == "application/json");
  CHECK(reply.body.find("the MCP endpoint is /mcp") != std::string::npos);
}

TEST_CASE("HTTP: without a token the page is open to loopback clients") {
  Server server(with_page(""));
  CHECK(fetch(server.port, "GET", "/").status == 200);
}
