// What the server's files share: a session's protocol state, one call in flight, and the
// server's own state (Server::Impl). server.cpp holds the lifecycle and the method table,
// detail/tool_calls.cpp a tools/call from its start to its answer, detail/resources.cpp the
// resources, report files and list paging.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mcp/detail/call_scan.hpp"
#include "mcp/detail/catalog.hpp"
#include "mcp/server.hpp"

namespace skillrt::mcp {

namespace detail {

using nlohmann::json;

constexpr int kDefaultLogLevel = 1;  // info: until the client picks a level

// The index of an MCP log level name (debug ... emergency), -1 for an unknown one.
int level_index(std::string_view level);

// The offset a list request's cursor names, 0 without one; nothing for a cursor this server did
// not hand out.
std::optional<size_t> parse_cursor(const json& params, size_t size);

struct InFlight {
  explicit InFlight(exec::CancelFlag flag) : cancel(std::move(flag)) {}
  exec::CancelFlag cancel;
  // Set under the session's lock; the call's own finish() reads it without.
  std::atomic<bool> cancelled_by_client{false};
};

// A tools/call request, read from the DOM or straight from the text.
struct ToolCall {
  std::string_view name;            // in the request's text or DOM, which outlive start_call()
  json arguments;                   // used when arguments_text is empty
  std::string_view arguments_text;  // the arguments as JSON text (the text path), in the request
  json token;                       // progressToken, or null
  std::optional<std::chrono::milliseconds> timeout;
};

// Serializes a call's notifications and its final answer, so that no progress notification
// follows the response (a skill past its deadline may still report progress).
struct CallStream {
  std::mutex mutex;
  double last_progress = -std::numeric_limits<double>::infinity();
  bool finished = false;
};

}  // namespace detail

class LogForwarder;

class Session {
 public:
  explicit Session(Notify n) : notify(std::move(n)) {}
  std::mutex mutex;
  std::condition_variable idle;
  // Threads in wait_idle(), under `mutex`: a call that ends wakes `idle` only when one waits.
  int idle_waiters = 0;
  // Also read without the mutex by the tools/call text path.
  std::atomic<bool> initialized = false;
  bool client_ready = false;
  bool closed = false;
  std::string version;
  int log_level = detail::kDefaultLogLevel;
  std::map<std::string, detail::InFlight> inflight;
  // Nodes of finished calls, reused by the next ones: a call then allocates no map node.
  std::vector<std::map<std::string, detail::InFlight>::node_type> spare_nodes;
  std::map<std::string, std::filesystem::path> reports;  // file:// URI -> path
  std::set<std::string> subscriptions;
  // Cancellations that came before their request: over HTTP they travel on another
  // connection and can overtake it. A session never reuses a request id, so remembering
  // them is safe; the oldest are forgotten.
  std::set<std::string> early_cancels;
  std::deque<std::string> early_cancel_order;
  Notify notify;
};

struct Server::Impl {
  Impl(exec::Executor& e, ServerOptions o) : executor(e), options(std::move(o)) {}

  exec::Executor& executor;
  ServerOptions options;
  detail::Catalog catalog;
  std::vector<nlohmann::json> tools;    // every tool descriptor, in list order
  std::vector<std::string> tool_pages;  // pre-serialized tools/list results
  std::string initialize_capabilities;
  std::mutex sessions_mutex;
  std::vector<std::weak_ptr<Session>> sessions;
  std::shared_ptr<LogForwarder> forwarder;

  void build_tools();
  void dispatch(const std::shared_ptr<Session>& s, const nlohmann::json& msg, const Reply& reply,
                const Release& release);
  // A batch's calls always run on the pool: it is answered as one message.
  void dispatch_batch(const std::shared_ptr<Session>& s, const nlohmann::json& batch,
                      const Reply& reply);
  void request(const std::shared_ptr<Session>& s, const std::string& id_text,
               const std::string& method, const nlohmann::json& params, const Reply& reply,
               const Release& release);
  void notification(const std::shared_ptr<Session>& s, const std::string& method,
                    const nlohmann::json& params);

  std::string initialize(Session& s, const std::string& id_text, const nlohmann::json& params);
  // 2026-07-28: true when the request is stateless (it carries io.modelcontextprotocol/ keys in
  // _meta, or is server/discover), answered or passed on to serve() with its results marked.
  bool stateless_request(const std::shared_ptr<Session>& s, const std::string& id_text,
                         const std::string& method, const nlohmann::json& params,
                         const Reply& reply, const Release& release);
  // The methods every revision shares, after the lifecycle checks.
  void serve(const std::shared_ptr<Session>& s, const std::string& id_text,
             const std::string& method, const nlohmann::json& params, const Reply& reply,
             const Release& release);
  std::string discover_body;  // the server/discover result, built once
  void call_tool(const std::shared_ptr<Session>& s, const std::string& id_text,
                 const nlohmann::json& params, const Reply& reply, const Release& release);
  void run_fixture(Session& s, const detail::FixtureTool& tool, const std::string& id_text,
                   const nlohmann::json& token, const Reply& reply);
  std::string list_page(const std::vector<nlohmann::json>& items, const char* key,
                        const nlohmann::json& params, const std::string& id_text);
  std::string read_resource(Session& s, const std::string& id_text, const nlohmann::json& params);
  bool resource_known(Session& s, const std::string& uri);
  bool call_tool_text(const std::shared_ptr<Session>& s, const detail::ToolsCallText& text,
                      const Reply& reply, const Release& release);
  // Reads progressToken and the per-call deadline; false after answering a bad one.
  bool read_meta(const nlohmann::json& meta, detail::ToolCall& call, const std::string& id_text,
                 const Reply& reply);
  void start_call(const std::shared_ptr<Session>& s, const std::string& id_text,
                  detail::ToolCall call, const Reply& reply, const Release& release);
  void note_reports(Session& s, const exec::Outcome& out);

  // One tools/call from its start to its answer: the cancel flag the skill polls, what the
  // answer needs, and the call's entry among the session's calls in flight. The entry owns it
  // (through the cancel flag, which points into it), and so does the executor's call; finish()
  // erases the entry last. At most one allocation per call (none when the reading thread's
  // last record is free again, see keep_record()), and the executor's completion function
  // carries only a pointer to it.
  struct PendingCall {
    std::atomic<bool> cancel{false};
    Impl* impl = nullptr;
    std::shared_ptr<Session> session;
    std::map<std::string, detail::InFlight>::iterator entry;  // valid until finish() erases it
    Reply reply;
    std::shared_ptr<detail::CallStream> stream;  // only for a call with progress

    // The executor's completion: answers unless the client cancelled, then lets the entry go.
    void finish(exec::Outcome&& out);
  };
  // Keeps `record` in `spare` for the thread's next call when nothing else holds it.
  static void keep_record(std::shared_ptr<PendingCall>& spare, std::shared_ptr<PendingCall> record);
};

}  // namespace skillrt::mcp
