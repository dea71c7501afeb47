// The only translation unit that includes Beast: it is heavy to compile.
#include "transport/http_transport.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <deque>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "transport/detail/http_text.hpp"
#include "transport/detail/poll_window.hpp"

namespace skillrt::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

using namespace detail;

namespace {

constexpr int kHttpError = -32000;  // JSON-RPC "server error" for HTTP-level refusals

// A JSON-RPC error object carried in the answer to an HTTP-level refusal.
std::string http_error_body(std::string_view message) {
  return mcp::Server::framing_error(kHttpError, message);
}

bool has_error_member(std::string_view message) {
  return message.find("\"error\":") != std::string_view::npos &&
         message.find("\"result\":") == std::string_view::npos;
}

class Connection;

// One MCP session as HTTP sees it: the protocol state plus the GET stream, if one is open.
struct HttpSession {
  std::shared_ptr<mcp::Session> mcp;
  std::mutex mutex;
  std::weak_ptr<Connection> get_stream;
};

}  // namespace

struct HttpServer::Impl {
  Impl(mcp::Server& s, HttpOptions o) : server(s), options(std::move(o)), acceptor(ioc) {}

  mcp::Server& server;
  HttpOptions options;
  // Open connections that carry requests (GET streams excluded). Polling at idle moments pays
  // when an I/O thread waits on one client's round trip; with more such connections than I/O
  // threads the thread is seldom idle for that, and polling would take CPU from the clients.
  // Declared before ioc: connections still held by its handlers count down as it is destroyed.
  std::atomic<size_t> request_connections{0};
  asio::io_context ioc;
  tcp::acceptor acceptor;
  bool loopback = true;

  std::mutex mutex;  // guards the two maps below
  std::map<std::string, std::shared_ptr<HttpSession>> sessions;
  std::vector<std::weak_ptr<mcp::Session>> opened;  // every MCP session, for shutdown

  // A quick call runs on the I/O thread that read its request (mcp::Release); when one turns
  // out slow, a spare thread joins the I/O loop so other connections are not held up, and
  // leaves again once that call is over. Spares that left are joined when the next one starts,
  // so a long-lived server keeps only as many as there are slow calls at once.
  struct Spare {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> left;
  };
  std::mutex spare_mutex;
  std::vector<Spare> spares;
  size_t spares_to_leave = 0;
  bool io_done = false;  // the loop has stopped: nothing more to join

  void add_spare() {
    std::lock_guard lock(spare_mutex);
    if (io_done) return;
    std::erase_if(spares, [](Spare& spare) {
      if (!spare.left->load()) return false;
      spare.thread.join();
      return true;
    });
    auto left = std::make_shared<std::atomic<bool>>(false);
    spares.push_back({std::thread([this, left] {
                        run_spare();
                        left->store(true);
                      }),
                      left});
  }

  // The slow call that summoned a spare is over: one spare may go.
  void release_spare() {
    std::lock_guard lock(spare_mutex);
    ++spares_to_leave;
  }

  void run_spare() {
    while (!ioc.stopped()) {
      ioc.run_one_for(std::chrono::milliseconds(50));
      std::lock_guard lock(spare_mutex);
      if (spares_to_leave > 0) {
        --spares_to_leave;
        // Work the last handler queued from this thread (a read completed, a write to start) is
        // put on the shared queue without waking anyone: Asio expects this thread to run it
        // next. Posted from outside the loop, this empty handler wakes the I/O thread, which
        // may be blocked in epoll_wait, so that it runs that work instead.
        asio::post(ioc, [] {});
        return;
      }
    }
  }

  std::shared_ptr<HttpSession> find_session(const std::string& id) {
    std::lock_guard lock(mutex);
    auto it = sessions.find(id);
    return it == sessions.end() ? nullptr : it->second;
  }
  std::shared_ptr<HttpSession> new_session();
  void accept();
  void serve();
};

namespace {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(HttpServer::Impl* impl, tcp::socket socket) : impl_(impl), socket_(std::move(socket)) {
    ++impl_->request_connections;
  }
  ~Connection() {
    if (!stream_) --impl_->request_connections;
  }

  void start() { read_request(); }

  // Called on this connection's strand.
  void push_event(const std::string& message) {
    if (closed_) return;
    queue(sse_event(message));
  }
  void close_stream() {
    if (closed_) return;
    queue("0\r\n\r\n");
    after_drain_ = AfterDrain::kClose;
    if (!writing_) pump();
  }
  asio::any_io_executor executor() { return socket_.get_executor(); }

 private:
  enum class AfterDrain { kNothing, kRead, kClose };

  void read_request() {
    parser_.emplace();
    parser_->body_limit(impl_->options.max_body_bytes);
    parser_->header_limit(64 * 1024);
    http::async_read(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_request(ec); });
  }

  void on_request(beast::error_code ec) {
    if (ec == http::error::body_limit) {
      keep_alive_ = false;
      respond(http::status::payload_too_large,
              http_error_body("Payload Too Large: the body exceeds the limit of " +
                              std::to_string(impl_->options.max_body_bytes) +
                              " bytes; send smaller messages"));
      return;
    }
    if (ec) {
      if (ec != http::error::end_of_stream && ec != asio::error::eof &&
          ec != asio::error::connection_reset && ec != asio::error::operation_aborted) {
        spdlog::debug("http: read failed: {}", ec.message());
        if (ec.category() == http::make_error_code(http::error::bad_target).category()) {
          keep_alive_ = false;
          respond(http::status::bad_request,
                  http_error_body("Bad Request: malformed HTTP request (" + ec.message() + ")"));
          return;
        }
      }
      shutdown();
      return;
    }
    request_ = parser_->release();
    keep_alive_ = request_.keep_alive();
    route();
  }

  std::string header(std::string_view name) const {
    auto it = request_.find(name);
    return it == request_.end() ? std::string() : std::string(it->value());
  }

  void route() {
    const std::string_view target = request_.target();
    const std::string_view path = target.substr(0, target.find('?'));
    const bool page = path != "/mcp";
    if (page && !impl_->options.page) {
      respond(http::status::not_found, http_error_body("Not Found: the MCP endpoint is /mcp"));
      return;
    }
    if (impl_->loopback) {
      // DNS rebinding defence: a loopback server answers only to loopback host names.
      const std::string host = header("Host");
      if (!is_loopback_name(lower(strip_port(host)))) {
        respond(http::status::forbidden,
                http_error_body("Forbidden: Host '" + host +
                                "' is not a loopback name; connect to localhost or 127.0.0.1"));
        return;
      }
    }
    origin_ = header("Origin");
    if (!origin_.empty() && !origin_allowed(origin_)) {
      respond(http::status::forbidden,
              http_error_body("Forbidden: Origin '" + origin_ +
                              "' is not allowed; start the server with --allow-origin " + origin_ +
                              " to allow it"));
      origin_.clear();
      return;
    }
    if (page) return serve_page(path, target);
    if (request_.method() == http::verb::options) {
      respond(http::status::no_content, {}, {}, true);
      return;
    }
    if (!impl_->options.token.empty() && !authorized()) {
      respond(http::status::unauthorized,
              http_error_body("Unauthorized: send 'Authorization: Bearer <token>' with the "
                              "token the server was started with (--token)"),
              "WWW-Authenticate: Bearer realm=\"skillrt\"\r\n");
      return;
    }
    const std::string version = header("MCP-Protocol-Version");
    // A stateless request (revision in its _meta) gets the JSON-RPC error of its revision, with
    // the supported versions in its data, from the server.
    const bool stateless_body =
        request_.method() == http::verb::post &&
        request_.body().find("io.modelcontextprotocol/protocolVersion") != std::string::npos;
    if (!version.empty() && !mcp::is_supported_protocol_version(version) && !stateless_body) {
      respond(http::status::bad_request,
              http_error_body("Bad Request: unsupported MCP-Protocol-Version '" + version +
                              "'; this server speaks 2026-07-28, 2025-11-25, 2025-06-18 and "
                              "2025-03-26"));
      return;
    }
    switch (request_.method()) {
      case http::verb::post:
        return on_post();
      case http::verb::get:
        return on_get();
      case http::verb::delete_:
        return on_delete();
      default:
        respond(http::status::method_not_allowed,
                http_error_body("Method Not Allowed: use POST, GET or DELETE on /mcp"),
                "Allow: GET, POST, DELETE, OPTIONS\r\n");
    }
  }

  // The web page: GET only, same token as /mcp (or ?token= from the link `serve` prints).
  void serve_page(std::string_view path, std::string_view target) {
    origin_.clear();  // no CORS headers: the page is opened, never read by other origins' scripts
    if (request_.method() != http::verb::get) {
      respond_as(http::status::method_not_allowed, "text/plain; charset=utf-8",
                 "Method Not Allowed: the page is read with GET; MCP clients use /mcp\n",
                 "Allow: GET\r\n");
      return;
    }
    if (!impl_->options.token.empty() && !authorized() &&
        !constant_time_equal(query_value(target, "token"), impl_->options.token)) {
      respond_as(http::status::unauthorized, "text/plain; charset=utf-8",
                 "Unauthorized: open the address that `skillrt serve` printed (it ends in "
                 "?token=...), or send 'Authorization: Bearer <token>'\n",
                 "WWW-Authenticate: Bearer realm=\"skillrt\"\r\n");
      return;
    }
    auto answer = impl_->options.page(path);
    if (!answer) {
      respond_as(http::status::not_found, "text/plain; charset=utf-8",
                 "Not Found: the page is at / and the MCP endpoint at /mcp\n");
      return;
    }
    respond_as(static_cast<http::status>(answer->status), answer->content_type,
               std::move(answer->body), answer->headers);
  }

  bool origin_allowed(const std::string& origin) const {
    for (const auto& allowed : impl_->options.allowed_origins) {
      if (allowed == "*" || allowed == origin) return true;
    }
    return is_loopback_name(lower(origin_host(origin)));
  }

  bool authorized() const {
    const std::string value = header("Authorization");
    if (value.size() < 7 || lower(value.substr(0, 7)) != "bearer ") return false;
    return constant_time_equal(std::string_view(value).substr(7), impl_->options.token);
  }

  // Looks up the session named by Mcp-Session-Id; answers the request itself when it cannot.
  std::shared_ptr<HttpSession> required_session() {
    const std::string id = header("Mcp-Session-Id");
    if (id.empty()) {
      respond(http::status::bad_request,
              http_error_body("Bad Request: Mcp-Session-Id header is required; send "
                              "initialize first to get one"));
      return nullptr;
    }
    auto session = impl_->find_session(id);
    if (!session) {
      respond(http::status::not_found,
              http_error_body("Not Found: session '" + id +
                              "' does not exist or has ended; initialize a new session"));
    }
    return session;
  }

  void on_post() {
    const std::string content_type = lower(header("Content-Type"));
    if (!content_type.starts_with("application/json")) {
      respond(http::status::unsupported_media_type,
              http_error_body("Unsupported Media Type: POST bodies must be application/json"));
      return;
    }
    const std::string accept = lower(header("Accept"));
    accepts_sse_ = accept.empty() || accept.find("text/event-stream") != std::string::npos ||
                   accept.find("*/*") != std::string::npos;
    if (!accept.empty() && !accepts_sse_ && accept.find("application/json") == std::string::npos) {
      respond(http::status::not_acceptable,
              http_error_body("Not Acceptable: Accept must list application/json and "
                              "text/event-stream"));
      return;
    }
    std::shared_ptr<HttpSession> session;
    session_id_.clear();
    if (!header("Mcp-Session-Id").empty()) {
      session = required_session();
      if (!session) return;
      session_id_ = header("Mcp-Session-Id");
      pending_session_.reset();
    } else {
      // Becomes a session only if this message initializes it.
      session = impl_->new_session();
      pending_session_ = session;
    }
    sse_started_ = false;
    auto self = shared_from_this();
    const mcp::Reply reply = [self](std::string message, bool last) {
      asio::post(self->socket_.get_executor(),
                 [self, message = std::move(message), last]() mutable {
                   self->on_reply(std::move(message), last);
                 });
    };
    // Set from the executor's watcher before the call ends, so final once handle() returns.
    auto summoned = std::make_shared<std::atomic<bool>>(false);
    const mcp::Server::HttpHeaders headers{header("MCP-Protocol-Version"), header("Mcp-Method"),
                                           header("Mcp-Name")};
    impl_->server.handle_http(session->mcp, request_.body(), headers, reply,
                              [impl = impl_, summoned] {
                                summoned->store(true);
                                impl->add_spare();
                              });
    if (summoned->load()) impl_->release_spare();
  }

  void on_reply(std::string message, bool last) {
    if (closed_) return;
    if (sse_started_) {
      if (!message.empty()) queue(sse_event(message));
      if (last) {
        queue("0\r\n\r\n");
        finish();
      }
      return;
    }
    if (!last) {
      if (!accepts_sse_) return;  // the client takes JSON only: notifications cannot reach it
      sse_started_ = true;
      queue(head(http::status::ok, "text/event-stream", std::nullopt, session_headers()));
      queue(sse_event(message));
      return;
    }
    http::status status = http::status::ok;
    if (pending_session_) {
      if (mcp::Server::initialized(*pending_session_->mcp)) {
        session_id_ = new_session_id();
        std::lock_guard lock(impl_->mutex);
        impl_->sessions.emplace(session_id_, pending_session_);
      } else if (has_error_member(message)) {
        // Anything but initialize (or ping) without a session is a bad request, and in the
        // stateless revision a method the server does not have is Not Found.
        status = message.find(R"("code":-32601)") != std::string::npos ? http::status::not_found
                                                                       : http::status::bad_request;
      }
      pending_session_.reset();
    }
    if (message.empty()) {
      respond(http::status::accepted, {}, session_headers(), true);
      return;
    }
    respond(status, message, session_headers());
  }

  std::string session_headers() const {
    return session_id_.empty() ? std::string() : "Mcp-Session-Id: " + session_id_ + "\r\n";
  }

  // 2026-07-28 has no session stream and no session to end: POST only.
  bool refuse_stateless_verb() {
    if (!mcp::is_stateless_protocol_version(header("MCP-Protocol-Version"))) return false;
    respond(http::status::method_not_allowed,
            http_error_body("Method Not Allowed: MCP 2026-07-28 uses POST only; GET and DELETE "
                            "belong to sessions of 2025-11-25 and older"),
            "Allow: POST, OPTIONS\r\n");
    return true;
  }

  void on_get() {
    if (refuse_stateless_verb()) return;
    const std::string accept = lower(header("Accept"));
    if (accept.find("text/event-stream") == std::string::npos) {
      respond(http::status::method_not_allowed,
              http_error_body("Method Not Allowed: GET opens an SSE stream; send "
                              "Accept: text/event-stream"),
              "Allow: GET, POST, DELETE, OPTIONS\r\n");
      return;
    }
    auto session = required_session();
    if (!session) return;
    {
      std::lock_guard lock(session->mutex);
      if (!session->get_stream.expired()) {
        respond(http::status::conflict,
                http_error_body("Conflict: this session already has a GET stream open"));
        return;
      }
      session->get_stream = weak_from_this();
    }
    if (!stream_) {
      // From now on this connection only carries server messages; it sends no requests.
      stream_ = true;
      --impl_->request_connections;
    }
    session_id_ = header("Mcp-Session-Id");
    queue(head(http::status::ok, "text/event-stream", std::nullopt, session_headers()));
    // The stream stays open; a read that only ends when the client hangs up keeps us alive.
    auto self = shared_from_this();
    socket_.async_read_some(asio::buffer(sink_),
                            [self](beast::error_code, size_t) { self->shutdown(); });
  }

  void on_delete() {
    if (refuse_stateless_verb()) return;
    auto session = required_session();
    if (!session) return;
    {
      std::lock_guard lock(impl_->mutex);
      impl_->sessions.erase(header("Mcp-Session-Id"));
    }
    impl_->server.close_session(session->mcp);
    std::shared_ptr<Connection> stream;
    {
      std::lock_guard lock(session->mutex);
      stream = session->get_stream.lock();
    }
    if (stream && stream.get() != this) {
      asio::post(stream->executor(), [stream] { stream->close_stream(); });
    }
    respond(http::status::ok, {}, {}, true);
  }

  std::string head(http::status status, std::string_view content_type, std::optional<size_t> length,
                   std::string_view extra) const {
    std::string out = "HTTP/1.1 ";
    out += std::to_string(static_cast<unsigned>(status));
    out += ' ';
    out += http::obsolete_reason(status);
    out += "\r\n";
    if (!content_type.empty()) {
      out += "Content-Type: ";
      out += content_type;
      out += "\r\n";
    }
    if (length) {
      out += "Content-Length: " + std::to_string(*length) + "\r\n";
    } else {
      out += "Transfer-Encoding: chunked\r\nCache-Control: no-cache\r\n";
    }
    if (!origin_.empty()) {
      out += "Access-Control-Allow-Origin: " + origin_ +
             "\r\nAccess-Control-Expose-Headers: Mcp-Session-Id\r\n"
             "Access-Control-Allow-Headers: Content-Type, Accept, Authorization, "
             "Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID\r\n"
             "Access-Control-Allow-Methods: GET, POST, DELETE, OPTIONS\r\n";
    }
    if (!keep_alive_) out += "Connection: close\r\n";
    out += extra;
    out += "\r\n";
    return out;
  }

  // A complete response; the next request is read once it is written.
  void respond(http::status status, std::string body, std::string_view extra = {},
               bool empty = false) {
    respond_as(status, empty ? std::string_view() : "application/json", std::move(body), extra);
  }

  void respond_as(http::status status, std::string_view type, std::string body,
                  std::string_view extra = {}) {
    std::string out = head(status, type, body.size(), extra);
    out += body;
    queue(std::move(out));
    finish();
  }

  void finish() {
    after_drain_ = keep_alive_ ? AfterDrain::kRead : AfterDrain::kClose;
    if (!writing_) pump();
  }

  void queue(std::string data) {
    writes_.push_back(std::move(data));
    if (!writing_) pump();
  }

  void pump() {
    if (writes_.empty()) {
      writing_ = false;
      const AfterDrain next = after_drain_;
      after_drain_ = AfterDrain::kNothing;
      if (next == AfterDrain::kRead) read_request();
      if (next == AfterDrain::kClose) shutdown();
      return;
    }
    writing_ = true;
    asio::async_write(socket_, asio::buffer(writes_.front()),
                      [self = shared_from_this()](beast::error_code ec, size_t) {
                        self->writes_.pop_front();
                        if (ec) {
                          self->writes_.clear();
                          self->writing_ = false;
                          self->shutdown();
                          return;
                        }
                        self->pump();
                      });
  }

  void shutdown() {
    if (closed_) return;
    closed_ = true;
    beast::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  HttpServer::Impl* impl_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::request<http::string_body> request_;
  std::deque<std::string> writes_;
  bool writing_ = false;
  bool closed_ = false;
  bool keep_alive_ = true;
  bool accepts_sse_ = true;
  bool sse_started_ = false;
  AfterDrain after_drain_ = AfterDrain::kNothing;
  std::string origin_;
  std::string session_id_;
  std::shared_ptr<HttpSession> pending_session_;
  bool stream_ = false;  // a GET stream: not counted in request_connections
  char sink_[1];
};

}  // namespace

std::shared_ptr<HttpSession> HttpServer::Impl::new_session() {
  auto session = std::make_shared<HttpSession>();
  std::weak_ptr<HttpSession> weak = session;
  session->mcp = server.open_session([weak](std::string message) {
    auto s = weak.lock();
    if (!s) return;
    std::shared_ptr<Connection> stream;
    {
      std::lock_guard lock(s->mutex);
      stream = s->get_stream.lock();
    }
    // Without a GET stream there is nowhere to send a message that answers no request.
    if (!stream) return;
    asio::post(stream->executor(),
               [stream, message = std::move(message)] { stream->push_event(message); });
  });
  std::lock_guard lock(mutex);
  std::erase_if(opened, [](const auto& w) { return w.expired(); });
  opened.push_back(session->mcp);
  return session;
}

// io_context::run() with adaptive polling at idle moments (detail/poll_window.hpp).
void HttpServer::Impl::serve() {
  detail::PollWindow poll(options.idle_poll);
  while (!ioc.stopped()) {
    if (ioc.poll_one() > 0) continue;
    // Idle: nothing is ready.
    const auto idle_since = detail::PollWindow::Clock::now();
    size_t ran = 0;
    if (request_connections.load() <= options.threads) {
      poll.poll(idle_since, [&] {
        ran = ioc.poll_one();
        return ran > 0 || ioc.stopped();
      });
    }
    if (ran == 0 && ioc.run_one() == 0) return;  // stopped, or out of work
    poll.idle_ended(idle_since);
  }
}

void HttpServer::Impl::accept() {
  // `this` outlives every handler: the io_context is a member and destroys them with itself.
  acceptor.async_accept(asio::make_strand(ioc),
                        [self = this](beast::error_code ec, tcp::socket socket) {
                          if (ec == asio::error::operation_aborted || !self->acceptor.is_open())
                            return;
                          if (!ec) {
                            beast::error_code ignored;
                            socket.set_option(tcp::no_delay(true), ignored);
                            std::make_shared<Connection>(self, std::move(socket))->start();
                          }
                          self->accept();
                        });
}

HttpServer::HttpServer(mcp::Server& server, HttpOptions options)
    : impl_(std::make_shared<Impl>(server, std::move(options))) {}

HttpServer::~HttpServer() {
  stop();
  beast::error_code ignored;
  impl_->acceptor.close(ignored);
  // Calls still running hold replies that post into our io_context: let them finish first.
  std::vector<std::shared_ptr<mcp::Session>> sessions;
  {
    std::lock_guard lock(impl_->mutex);
    for (const auto& w : impl_->opened) {
      if (auto s = w.lock()) sessions.push_back(std::move(s));
    }
  }
  for (const auto& s : sessions) {
    impl_->server.close_session(s);
    impl_->server.wait_idle(s);
  }
}

Result<uint16_t> HttpServer::listen() {
  beast::error_code ec;
  std::string host = impl_->options.host;
  if (host == "localhost") host = "127.0.0.1";
  const auto address = asio::ip::make_address(host, ec);
  if (ec) {
    return fail(Code::kInvalidArgument, "--http host '" + impl_->options.host +
                                            "' is not an IP address; use 127.0.0.1 or 0.0.0.0");
  }
  impl_->loopback = address.is_loopback();
  const tcp::endpoint endpoint(address, impl_->options.port);
  auto& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return fail(Code::kUnavailable, "cannot listen on " + impl_->options.host + ":" +
                                        std::to_string(impl_->options.port) + ": " + ec.message() +
                                        "; choose another port with --http");
  }
  impl_->accept();
  return acceptor.local_endpoint().port();
}

void HttpServer::run() {
  std::vector<std::thread> extra;
  for (size_t i = 1; i < impl_->options.threads; ++i) {
    extra.emplace_back([this] { impl_->serve(); });
  }
  impl_->serve();
  for (auto& t : extra) t.join();
  std::vector<Impl::Spare> spares;
  {
    std::lock_guard lock(impl_->spare_mutex);
    impl_->io_done = true;
    spares = std::move(impl_->spares);
  }
  for (auto& spare : spares) spare.thread.join();
}

void HttpServer::stop() { impl_->ioc.stop(); }

int run_http(mcp::Server& server, const HttpOptions& options) {
  HttpServer http_server(server, options);
  auto port = http_server.listen();
  if (!port) {
    std::cerr << "skillrt: " << port.error().message << "\n";
    return 1;
  }
  if (options.on_listening) options.on_listening(*port);
  asio::io_context signals_context;
  asio::signal_set signals(signals_context, SIGINT, SIGTERM);
  signals.async_wait([&](const beast::error_code&, int) { http_server.stop(); });
  std::thread signal_thread([&] { signals_context.run(); });
  http_server.run();
  signals_context.stop();
  signal_thread.join();
  return 0;
}

}  // namespace skillrt::transport
