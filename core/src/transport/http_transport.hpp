// MCP over Streamable HTTP (Boost.Beast/Asio): one endpoint, /mcp. POST carries client messages
// and is answered with JSON or an SSE stream; GET opens the session's SSE stream; DELETE ends a
// session. Sessions are issued at initialize through Mcp-Session-Id. Other paths are left to
// HttpOptions::page (the web page), when set.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "mcp/server.hpp"

namespace skillrt::transport {

// A complete answer to a GET of a path other than /mcp (HttpOptions::page).
struct PageResponse {
  unsigned status = 200;
  std::string content_type;
  std::string body;
  std::string headers;  // extra header lines, each ending in "\r\n"
};

struct HttpOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0: any free port (reported through on_listening)
  // When set, every request needs "Authorization: Bearer <token>".
  std::string token;
  // Origins allowed besides the loopback ones (http://localhost:*, http://127.0.0.1:*, ...).
  std::vector<std::string> allowed_origins;
  size_t max_body_bytes = 16u << 20;
  std::function<void(uint16_t)> on_listening;
  // I/O threads. A quick tool call runs on the I/O thread that read it; one that turns slow
  // adds an I/O thread and its skill moves to the executor's pool.
  size_t threads = 1;
  // The longest an idle I/O thread polls for the next request before it sleeps. The window
  // adapts (transport/detail/poll_window.hpp): it opens only while requests keep arriving
  // within it, so a client that pauses between calls costs no polling. Zero: never poll.
  std::chrono::microseconds idle_poll{50};
  // GETs of paths other than /mcp (the web page, core/src/web), after the same Host, Origin and
  // token checks as /mcp. The token may also come as ?token=, because a browser opening a link
  // cannot send a header. nullopt: 404. Unset: only /mcp is served.
  std::function<std::optional<PageResponse>(std::string_view path)> page;
};

// Listens on host:port and serves until SIGINT or SIGTERM. Returns the process exit code (1 when
// the address cannot be bound, with the reason on stderr).
int run_http(mcp::Server& server, const HttpOptions& options);

// The server behind run_http, for embedding and tests: listen(), then run() on some thread, then
// stop() from any thread.
class HttpServer {
 public:
  HttpServer(mcp::Server& server, HttpOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens; the port actually bound (useful with port 0).
  Result<uint16_t> listen();
  // Serves until stop(); blocks the calling thread (and uses options.threads - 1 more).
  void run();
  void stop();

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace skillrt::transport
