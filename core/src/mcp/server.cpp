#include "mcp/server.hpp"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>

#include "mcp/detail/call_scan.hpp"
#include "mcp/detail/catalog.hpp"
#include "mcp/detail/jsonrpc.hpp"
#include "mcp/detail/skill_package.hpp"
#include "mcp/detail/stateless.hpp"
#include "mcp/tool_definition.hpp"

namespace skillrt::mcp {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace detail;

namespace {

// Revisions with the initialize handshake and a session.
constexpr std::array<std::string_view, 3> kVersions = {"2025-11-25", "2025-06-18", "2025-03-26"};

// The revision that still had JSON-RPC batches.
constexpr std::string_view kBatchVersion = "2025-03-26";
constexpr std::array<std::string_view, 8> kLevels = {"debug", "info",     "notice", "warning",
                                                     "error", "critical", "alert",  "emergency"};
constexpr int kDefaultLogLevel = 1;  // info: until the client picks a level
constexpr size_t kMaxCompletionValues = 100;
constexpr size_t kMaxReportScan = 1000;
// Cancellations remembered per session for requests not seen yet.
constexpr size_t kMaxEarlyCancels = 1024;
// The largest answer buffer a thread keeps for its next answer.
constexpr size_t kMaxSpareAnswer = 64 * 1024;
// Map nodes a session keeps for reuse: about what a busy client keeps in flight.
constexpr size_t kSpareNodes = 64;
// tools/call's per-call deadline: "_meta": {"skillrt/timeoutMs": N}, at most a day.
constexpr const char* kTimeoutMetaKey = "skillrt/timeoutMs";
constexpr int64_t kMaxTimeoutMs = 24LL * 60 * 60 * 1000;

int level_index(std::string_view level) {
  for (size_t i = 0; i < kLevels.size(); ++i) {
    if (kLevels[i] == level) return static_cast<int>(i);
  }
  return -1;
}

std::string id_key(const json& id) { return dump(id); }

std::string default_instructions() {
  return "skillrt serves agent skills for PyTorch-on-Ascend-NPU work as tools. Every tool "
         "checks its arguments against inputSchema and answers with structuredContent (the same "
         "JSON is in the text content). Read skill://<tool-name>/SKILL.md for when and how to "
         "use a tool; report files a tool writes become readable resources.";
}

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

}  // namespace

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
  int log_level = kDefaultLogLevel;
  std::map<std::string, InFlight> inflight;
  // Nodes of finished calls, reused by the next ones: a call then allocates no map node.
  std::vector<std::map<std::string, InFlight>::node_type> spare_nodes;
  std::map<std::string, fs::path> reports;  // file:// URI -> path
  std::set<std::string> subscriptions;
  // Cancellations that came before their request: over HTTP they travel on another
  // connection and can overtake it. A session never reuses a request id, so remembering
  // them is safe; the oldest are forgotten.
  std::set<std::string> early_cancels;
  std::deque<std::string> early_cancel_order;
  Notify notify;
};

bool is_supported_protocol_version(std::string_view version) {
  return version == kStatelessVersion ||
         std::find(kVersions.begin(), kVersions.end(), version) != kVersions.end();
}

bool is_stateless_protocol_version(std::string_view version) {
  return version == kStatelessVersion;
}

// Forwards host log records (plugins log through spdlog) to the sessions as
// notifications/message.
class LogForwarder : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit LogForwarder(Server* server) : server_(server) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::string_view text(msg.payload.data(), msg.payload.size());
    std::string logger = "skillrt";
    // Plugin records look like "[plugin-name] message".
    if (text.starts_with('[')) {
      const size_t close = text.find("] ");
      if (close != std::string_view::npos) {
        logger = std::string(text.substr(1, close - 1));
        text.remove_prefix(close + 2);
      }
    }
    std::string_view level = "debug";
    switch (msg.level) {
      case spdlog::level::info:
        level = "info";
        break;
      case spdlog::level::warn:
        level = "warning";
        break;
      case spdlog::level::err:
        level = "error";
        break;
      case spdlog::level::critical:
        level = "critical";
        break;
      default:
        break;
    }
    server_->broadcast_log(level, logger, text);
  }
  void flush_() override {}

 private:
  Server* server_;
};

struct Server::Impl {
  Impl(exec::Executor& e, ServerOptions o) : executor(e), options(std::move(o)) {}

  exec::Executor& executor;
  ServerOptions options;
  Catalog catalog;
  std::vector<json> tools;              // every tool descriptor, in list order
  std::vector<std::string> tool_pages;  // pre-serialized tools/list results
  std::string initialize_capabilities;
  std::mutex sessions_mutex;
  std::vector<std::weak_ptr<Session>> sessions;
  std::shared_ptr<LogForwarder> forwarder;

  void build_tools();
  void dispatch(const std::shared_ptr<Session>& s, const json& msg, const Reply& reply,
                const Release& release);
  // A batch's calls always run on the pool: it is answered as one message.
  void dispatch_batch(const std::shared_ptr<Session>& s, const json& batch, const Reply& reply);
  void request(const std::shared_ptr<Session>& s, const std::string& id_text,
               const std::string& method, const json& params, const Reply& reply,
               const Release& release);
  void notification(const std::shared_ptr<Session>& s, const std::string& method,
                    const json& params);

  std::string initialize(Session& s, const std::string& id_text, const json& params);
  // 2026-07-28: true when the request is stateless (it carries io.modelcontextprotocol/ keys in
  // _meta, or is server/discover), answered or passed on to serve() with its results marked.
  bool stateless_request(const std::shared_ptr<Session>& s, const std::string& id_text,
                         const std::string& method, const json& params, const Reply& reply,
                         const Release& release);
  // The methods every revision shares, after the lifecycle checks.
  void serve(const std::shared_ptr<Session>& s, const std::string& id_text,
             const std::string& method, const json& params, const Reply& reply,
             const Release& release);
  std::string discover_body;  // the server/discover result, built once
  void call_tool(const std::shared_ptr<Session>& s, const std::string& id_text, const json& params,
                 const Reply& reply, const Release& release);
  void run_fixture(Session& s, const FixtureTool& tool, const std::string& id_text,
                   const json& token, const Reply& reply);
  std::string list_page(const std::vector<json>& items, const char* key, const json& params,
                        const std::string& id_text);
  std::string read_resource(Session& s, const std::string& id_text, const json& params);
  bool resource_known(Session& s, const std::string& uri);
  bool call_tool_text(const std::shared_ptr<Session>& s, const ToolsCallText& text,
                      const Reply& reply, const Release& release);
  // Reads progressToken and the per-call deadline; false after answering a bad one.
  bool read_meta(const json& meta, ToolCall& call, const std::string& id_text, const Reply& reply);
  void start_call(const std::shared_ptr<Session>& s, const std::string& id_text, ToolCall call,
                  const Reply& reply, const Release& release);
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
    std::map<std::string, InFlight>::iterator entry;  // valid until finish() erases it
    Reply reply;
    std::shared_ptr<CallStream> stream;  // only for a call with progress

    // The executor's completion: answers unless the client cancelled, then lets the entry go.
    void finish(exec::Outcome&& out);
  };
  // Keeps `record` in `spare` for the thread's next call when nothing else holds it.
  static void keep_record(std::shared_ptr<PendingCall>& spare, std::shared_ptr<PendingCall> record);
};

namespace {

// The text an agent reads when a call did not produce a result.
std::string failure_text(const std::string& tool, const exec::Outcome& out) {
  std::string text;
  switch (out.code) {
    case Code::kInvalidArgument:
      text = "Invalid arguments for tool '" + tool + "': " + out.message;
      if (!out.violations.empty() &&
          out.message.find(out.violations.front().message) == std::string::npos) {
        for (const auto& v : out.violations) text += "\n- " + v.message;
      }
      text +=
          "\nFix the arguments to match the tool's inputSchema (see tools/list) and call again.";
      return text;
    case Code::kDeadlineExceeded:
      return "Tool '" + tool + "' missed its deadline: " + out.message +
             "\nNarrow the input (fewer files, a smaller range) or retry later.";
    case Code::kCancelled:
      return "Tool '" + tool + "' was cancelled: " + out.message;
    default:
      text = "Tool '" + tool + "' failed (" + code_name(out.code) + "): " + out.message;
      for (const auto& v : out.violations) text += "\n- " + v.message;
      return text;
  }
}

// Appends the whole response to a tools/call to `message`, in one string: the result is most
// of it.
void append_tool_result(std::string& message, std::string_view id_text, const std::string& tool,
                        const exec::Outcome& out) {
  if (!out.ok()) {
    const json result = {
        {"content", json::array({{{"type", "text"}, {"text", failure_text(tool, out)}}})},
        {"isError", true}};
    message += result_message(id_text, dump(result));
    return;
  }
  // The skill's own text, checked against the output schema already, is used as it is instead
  // of being serialized again. Valid JSON holds line breaks only as whitespace, so they can turn
  // into spaces to keep the message on one line.
  std::string own;
  std::string_view text = out.result_text;
  // Two searches for one byte each: find_first_of() would test every byte against the set.
  if (text.empty() || text.find('\n') != std::string_view::npos ||
      text.find('\r') != std::string_view::npos) {
    own = text.empty() ? dump(out.result) : out.result_text;
    for (char& c : own) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    text = own;
  }
  const size_t first = text.find_first_not_of(" \t");
  const bool object = first != std::string::npos && text[first] == '{';
  // Pieces as views: appending a char pointer measures it (strlen) every time.
  using namespace std::string_view_literals;
  message.reserve(message.size() + id_text.size() + 3 * text.size() + 120);
  message += R"({"jsonrpc":"2.0","id":)"sv;
  message += id_text;
  message += R"(,"result":{"content":[{"type":"text","text":)"sv;
  append_quoted(message, text);
  message += "}]"sv;
  if (object) {
    message += R"(,"structuredContent":)"sv;
    message += text;
  }
  message += R"(,"isError":false}})"sv;
}

std::optional<size_t> parse_cursor(const json& params, size_t size) {
  if (!params.contains("cursor") || params["cursor"].is_null()) return 0;
  if (!params["cursor"].is_string()) return std::nullopt;
  const std::string& c = params["cursor"].get_ref<const std::string&>();
  size_t offset = 0;
  const auto [ptr, ec] = std::from_chars(c.data(), c.data() + c.size(), offset);
  if (ec != std::errc() || ptr != c.data() + c.size() || offset > size) return std::nullopt;
  return offset;
}

}  // namespace

void Server::Impl::build_tools() {
  for (const auto& skill : executor.registry().all()) {
    const std::string guide = "skill://" + skill->name + "/SKILL.md";
    const bool has_guide = std::any_of(
        catalog.resources().begin(), catalog.resources().end(),
        [&](const detail::Resource& r) { return r.descriptor.value("uri", "") == guide; });
    tools.push_back(tool_definition(*skill, has_guide).tool);
  }
  for (const auto& fixture : catalog.fixture_tools()) tools.push_back(fixture.descriptor);
  const size_t page = std::max<size_t>(1, options.page_size);
  for (size_t offset = 0; offset < tools.size() || offset == 0; offset += page) {
    json result = {{"tools", json::array()}};
    for (size_t i = offset; i < std::min(tools.size(), offset + page); ++i) {
      result["tools"].push_back(tools[i]);
    }
    if (offset + page < tools.size()) result["nextCursor"] = std::to_string(offset + page);
    tool_pages.push_back(dump(result));
    if (tools.empty()) break;
  }
  const json capabilities = {
      {"tools", {{"listChanged", false}}},
      {"resources", {{"subscribe", true}, {"listChanged", true}}},
      {"prompts", {{"listChanged", false}}},
      {"logging", json::object()},
      {"completions", json::object()},
  };
  json declared = capabilities;
  if (!catalog.skill_entries().empty()) {
    declared["extensions"] = {{std::string(detail::kSkillsExtension), json::object()}};
  }
  initialize_capabilities = dump(declared);
  // 2026-07-28 has no subscriptions here (resources/subscribe and logging/setLevel are gone, and
  // subscriptions/listen is not served), so discovery declares no listChanged or subscribe.
  json discovered = {{"tools", json::object()},
                     {"resources", json::object()},
                     {"prompts", json::object()},
                     {"completions", json::object()}};
  if (declared.contains("extensions")) discovered["extensions"] = declared["extensions"];
  json versions = json::array({kStatelessVersion});
  for (const auto v : kVersions) versions.push_back(v);
  const json server_info = {
      {"name", options.name},
      {"title", "skillrt"},
      {"version", options.version.empty() ? SKILLRT_VERSION : options.version}};
  discover_body = dump(json{{"supportedVersions", versions},
                            {"capabilities", discovered},
                            {"serverInfo", server_info},
                            {"instructions", options.instructions.empty() ? default_instructions()
                                                                          : options.instructions},
                            {"_meta", {{"io.modelcontextprotocol/serverInfo", server_info}}},
                            {"resultType", "complete"},
                            {"ttlMs", 0},
                            {"cacheScope", "private"}});
}

Server::Server(exec::Executor& executor, ServerOptions options)
    : impl_(std::make_unique<Impl>(executor, std::move(options))) {
  auto catalog =
      Catalog::load(executor.registry(), impl_->options.skills_dir, impl_->options.fixtures_file);
  if (catalog) {
    impl_->catalog = std::move(*catalog);
  } else {
    spdlog::error("mcp: {}", catalog.error().message);
  }
  impl_->build_tools();
  impl_->forwarder = std::make_shared<LogForwarder>(this);
  if (auto logger = spdlog::default_logger()) logger->sinks().push_back(impl_->forwarder);
}

Server::~Server() {
  if (auto logger = spdlog::default_logger()) {
    auto& sinks = logger->sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), impl_->forwarder), sinks.end());
  }
}

std::shared_ptr<Session> Server::open_session(Notify notify) {
  auto session = std::make_shared<Session>(std::move(notify));
  std::lock_guard lock(impl_->sessions_mutex);
  std::erase_if(impl_->sessions, [](const auto& w) { return w.expired(); });
  impl_->sessions.push_back(session);
  return session;
}

std::string Server::framing_error(int code, std::string_view message) {
  return error_message("null", code, message);
}

void Server::close_session(const std::shared_ptr<Session>& session) {
  std::lock_guard lock(session->mutex);
  session->closed = true;
  for (auto& [key, call] : session->inflight) {
    call.cancelled_by_client.store(true);
    call.cancel->store(true);
  }
}

void Server::wait_idle(const std::shared_ptr<Session>& session) {
  std::unique_lock lock(session->mutex);
  ++session->idle_waiters;
  session->idle.wait(lock, [&] { return session->inflight.empty(); });
  --session->idle_waiters;
}

bool Server::initialized(const Session& session) {
  std::lock_guard lock(const_cast<Session&>(session).mutex);
  return session.initialized;
}

std::string Server::protocol_version(const Session& session) {
  std::lock_guard lock(const_cast<Session&>(session).mutex);
  return session.version;
}

void Server::broadcast_log(std::string_view level, std::string_view logger, std::string_view text) {
  const int index = level_index(level);
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard lock(impl_->sessions_mutex);
    for (const auto& w : impl_->sessions) {
      if (auto s = w.lock()) live.push_back(std::move(s));
    }
  }
  if (live.empty()) return;
  const std::string message = notification_message(
      "notifications/message", {{"level", level}, {"logger", logger}, {"data", text}});
  for (const auto& s : live) {
    {
      std::lock_guard lock(s->mutex);
      if (!s->initialized || s->closed || index < s->log_level) continue;
    }
    if (s->notify) s->notify(message);
  }
}

void Server::handle_http(const std::shared_ptr<Session>& session, std::string_view text,
                         const HttpHeaders& headers, Reply reply, const Release& release) {
  // Only a stateless request reads the headers; others take the usual path unchanged, without
  // a second parse.
  const bool maybe_stateless = is_stateless_protocol_version(headers.protocol_version) ||
                               text.find(kMetaVersion) != std::string_view::npos ||
                               text.find("server/discover") != std::string_view::npos;
  if (!maybe_stateless) {
    handle(session, text, std::move(reply), release);
    return;
  }
  const json msg = json::parse(text, nullptr, false);
  if (msg.is_object() && msg.contains("method") && msg["method"].is_string()) {
    const std::string& method = msg["method"].get_ref<const std::string&>();
    const json params = msg.value("params", json::object());
    if (is_stateless_request(method, params) ||
        is_stateless_protocol_version(headers.protocol_version)) {
      const std::string id_text =
          msg.contains("id") && is_valid_id(msg["id"]) ? dump(msg["id"]) : "null";
      if (auto problem = header_mismatch(method, params, headers.protocol_version, headers.method,
                                         headers.name)) {
        reply(error_message(id_text, kHeaderMismatch, *problem), true);
        return;
      }
    }
  }
  handle(session, text, std::move(reply), release);
}

void Server::handle(const std::shared_ptr<Session>& session, std::string_view text, Reply reply,
                    const Release& release) {
  try {
    // The common request, a tools/call, goes without a DOM of the message.
    if (const auto call = scan_tools_call(text)) {
      if (impl_->call_tool_text(session, *call, reply, release)) return;
    }
    const json msg = json::parse(text, nullptr, false);
    if (msg.is_discarded()) {
      reply(error_message("null", kParseError,
                          "Parse error: the message is not valid JSON in UTF-8; send one "
                          "JSON-RPC 2.0 object per message"),
            true);
      return;
    }
    if (msg.is_array()) {
      impl_->dispatch_batch(session, msg, reply);
      return;
    }
    impl_->dispatch(session, msg, reply, release);
  } catch (const std::exception& e) {
    // A host bug must not end the session: answer and go on.
    reply(error_message("null", kInternalError, std::string("Internal error: ") + e.what()), true);
  }
}

void Server::Impl::dispatch_batch(const std::shared_ptr<Session>& s, const json& batch,
                                  const Reply& reply) {
  std::string version;
  {
    std::lock_guard lock(s->mutex);
    version = s->version;
  }
  if (version != kBatchVersion) {
    reply(error_message("null", kInvalidRequest,
                        "Invalid Request: JSON-RPC batches are not part of MCP revision " +
                            (version.empty() ? std::string(kLatestProtocolVersion) : version) +
                            "; send each message on its own"),
          true);
    return;
  }
  if (batch.empty()) {
    reply(error_message("null", kInvalidRequest, "Invalid Request: the batch is empty"), true);
    return;
  }
  // Answers are gathered into one array sent when the last element is done.
  struct Gather {
    std::mutex mutex;
    size_t pending;
    json answers = json::array();
  };
  auto gather = std::make_shared<Gather>();
  gather->pending = batch.size();
  for (const auto& element : batch) {
    const Reply gathered = [gather, reply](std::string message, bool last) {
      if (!last) {
        reply(std::move(message), false);
        return;
      }
      std::string out;
      {
        std::lock_guard lock(gather->mutex);
        if (!message.empty()) gather->answers.push_back(json::parse(message));
        if (--gather->pending != 0) return;
        if (!gather->answers.empty()) out = dump(gather->answers);
      }
      reply(std::move(out), true);
    };
    dispatch(s, element, gathered, {});  // batches (an old revision) always use the pool
  }
}

void Server::Impl::dispatch(const std::shared_ptr<Session>& s, const json& msg, const Reply& reply,
                            const Release& release) {
  if (!msg.is_object()) {
    reply(error_message("null", kInvalidRequest,
                        "Invalid Request: a JSON-RPC message must be an object"),
          true);
    return;
  }
  const bool has_id = msg.contains("id");
  const json id = has_id ? msg["id"] : json();
  const std::string id_text = has_id && is_valid_id(id) ? dump(id) : "null";
  if (msg.value("jsonrpc", json()) != "2.0") {
    reply(error_message(id_text, kInvalidRequest, "Invalid Request: \"jsonrpc\" must be \"2.0\""),
          true);
    return;
  }
  auto method_it = msg.find("method");
  if (method_it == msg.end()) {
    if (msg.contains("result") || msg.contains("error")) {
      // A response from the client: this server sends no requests, so nothing waits for it.
      spdlog::debug("mcp: ignored a response from the client (id {})", id_text);
      reply({}, true);
      return;
    }
    reply(error_message(id_text, kInvalidRequest, "Invalid Request: the message has no \"method\""),
          true);
    return;
  }
  if (!method_it->is_string()) {
    reply(error_message(id_text, kInvalidRequest, "Invalid Request: \"method\" must be a string"),
          true);
    return;
  }
  const std::string& method = method_it->get_ref<const std::string&>();
  static const json kEmpty = json::object();
  const auto params_it = msg.find("params");
  const json& params = params_it == msg.end() || params_it->is_null() ? kEmpty : *params_it;
  if (!params.is_object()) {
    if (!has_id) {
      reply({}, true);
      return;
    }
    reply(error_message(id_text, kInvalidParams, "Invalid params: \"params\" must be an object"),
          true);
    return;
  }
  if (!has_id) {
    notification(s, method, params);
    reply({}, true);
    return;
  }
  if (!is_valid_id(id)) {
    reply(error_message("null", kInvalidRequest,
                        "Invalid Request: \"id\" must be a string or an integer"),
          true);
    return;
  }
  if (method.starts_with("notifications/")) {
    // Do what the notification asks, but tell the client its message was malformed.
    notification(s, method, params);
    reply(error_message(id_text, kInvalidRequest,
                        "Invalid Request: notification '" + method +
                            "' must not carry an id; drop the \"id\" member"),
          true);
    return;
  }
  request(s, id_text, method, params, reply, release);
}

void Server::Impl::notification(const std::shared_ptr<Session>& s, const std::string& method,
                                const json& params) {
  if (method == "notifications/initialized") {
    std::lock_guard lock(s->mutex);
    s->client_ready = true;
    return;
  }
  if (method == "notifications/cancelled") {
    const auto it = params.find("requestId");
    if (it == params.end() || !is_valid_id(*it)) return;
    std::lock_guard lock(s->mutex);
    auto call = s->inflight.find(id_key(*it));
    if (call == s->inflight.end()) {
      // Already answered, never ours, or not here yet: remembered for the last case.
      const std::string key = id_key(*it);
      if (s->early_cancels.insert(key).second) {
        s->early_cancel_order.push_back(key);
        if (s->early_cancel_order.size() > kMaxEarlyCancels) {
          s->early_cancels.erase(s->early_cancel_order.front());
          s->early_cancel_order.pop_front();
        }
      }
      return;
    }
    call->second.cancelled_by_client.store(true);
    call->second.cancel->store(true);
    return;
  }
  // Other notifications (roots/list_changed, progress from the client, ...) need nothing here.
}

// `id_text` is the request's id as JSON text, also the key of its call in flight.
void Server::Impl::request(const std::shared_ptr<Session>& s, const std::string& id_text,
                           const std::string& method, const json& params, const Reply& reply,
                           const Release& release) {
  if (stateless_request(s, id_text, method, params, reply, release)) return;
  if (method == "initialize") {
    reply(initialize(*s, id_text, params), true);
    return;
  }
  if (method == "ping") {
    reply(result_message(id_text, "{}"), true);
    return;
  }
  {
    std::lock_guard lock(s->mutex);
    if (!s->initialized) {
      reply(error_message(id_text, kInvalidRequest,
                          "Invalid Request: the session is not initialized; send 'initialize' "
                          "first (only 'ping' is allowed before it)"),
            true);
      return;
    }
  }
  serve(s, id_text, method, params, reply, release);
}

void Server::Impl::serve(const std::shared_ptr<Session>& s, const std::string& id_text,
                         const std::string& method, const json& params, const Reply& reply,
                         const Release& release) {
  if (method == "tools/call") {
    call_tool(s, id_text, params, reply, release);
    return;
  }
  if (method == "tools/list") {
    const auto offset = parse_cursor(params, tools.size());
    const size_t page = std::max<size_t>(1, options.page_size);
    if (!offset || (*offset % page) != 0 ||
        (*offset / page) >= std::max<size_t>(1, tool_pages.size())) {
      reply(error_message(id_text, kInvalidParams,
                          "Invalid params: unknown cursor; pass the nextCursor of the previous "
                          "page, or none for the first"),
            true);
      return;
    }
    reply(result_message(id_text, tool_pages[*offset / page]), true);
    return;
  }
  if (method == "resources/list") {
    std::vector<json> items;
    for (const auto& r : catalog.resources()) items.push_back(r.descriptor);
    {
      std::lock_guard lock(s->mutex);
      for (const auto& [uri, path] : s->reports) {
        items.push_back(
            {{"uri", uri},
             {"name", path.filename().string()},
             {"description", "Report written by a tool during this session: " + path.string()},
             {"mimeType", mime_type_for(path)}});
      }
    }
    reply(list_page(items, "resources", params, id_text), true);
    return;
  }
  if (method == "resources/templates/list") {
    std::vector<json> items;
    for (const auto& t : catalog.templates()) items.push_back(t.descriptor);
    reply(list_page(items, "resourceTemplates", params, id_text), true);
    return;
  }
  if (method == "resources/read") {
    reply(read_resource(*s, id_text, params), true);
    return;
  }
  if (method == "skills/list") {
    reply(list_page(catalog.skill_entries(), "skills", params, id_text), true);
    return;
  }
  if (method == "skills/get") {
    const auto uri = params.find("uri");
    const json* entry = uri != params.end() && uri->is_string()
                            ? catalog.skill_entry(uri->get<std::string>())
                            : nullptr;
    if (entry == nullptr) {
      reply(error_message(id_text, kInvalidParams,
                          "Invalid params: skills/get needs \"uri\", the skill:// URI of a "
                          "SKILL.md that skills/list returns"),
            true);
      return;
    }
    reply(result_message(id_text, dump(json{{"skill", *entry}})), true);
    return;
  }
  if (method == "resources/subscribe" || method == "resources/unsubscribe") {
    const std::string uri = params.value("uri", "");
    if (uri.empty()) {
      reply(
          error_message(id_text, kInvalidParams, "Invalid params: \"uri\" (a string) is required"),
          true);
      return;
    }
    if (!resource_known(*s, uri)) {
      const json data = {{"uri", uri}};
      reply(
          error_message(id_text, kResourceNotFound,
                        "Resource not found: '" + uri + "'; list them with resources/list", &data),
          true);
      return;
    }
    {
      std::lock_guard lock(s->mutex);
      if (method == "resources/subscribe") {
        s->subscriptions.insert(uri);
      } else {
        s->subscriptions.erase(uri);
      }
    }
    reply(result_message(id_text, "{}"), true);
    return;
  }
  if (method == "prompts/list") {
    std::vector<json> items;
    for (const auto& p : catalog.prompts()) items.push_back(p.descriptor);
    reply(list_page(items, "prompts", params, id_text), true);
    return;
  }
  if (method == "prompts/get") {
    if (!params.contains("name") || !params["name"].is_string()) {
      reply(error_message(id_text, kInvalidParams,
                          "Invalid params: \"name\" (a string) is required; see prompts/list"),
            true);
      return;
    }
    auto result = catalog.get_prompt(params["name"].get<std::string>(),
                                     params.value("arguments", json::object()));
    if (!result) {
      reply(error_message(id_text, kInvalidParams, "Invalid params: " + result.error().message),
            true);
      return;
    }
    reply(result_message(id_text, dump(*result)), true);
    return;
  }
  if (method == "logging/setLevel") {
    const int index = level_index(params.value("level", ""));
    if (index < 0) {
      reply(error_message(id_text, kInvalidParams,
                          "Invalid params: \"level\" must be one of debug, info, notice, "
                          "warning, error, critical, alert, emergency"),
            true);
      return;
    }
    {
      std::lock_guard lock(s->mutex);
      s->log_level = index;
    }
    reply(result_message(id_text, "{}"), true);
    return;
  }
  if (method == "completion/complete") {
    const json ref = params.value("ref", json::object());
    const json argument = params.value("argument", json::object());
    if (!ref.is_object() || !argument.is_object() || !argument.contains("name")) {
      reply(error_message(id_text, kInvalidParams,
                          "Invalid params: completion/complete needs \"ref\" and "
                          "\"argument\": {name, value}"),
            true);
      return;
    }
    auto values = catalog.complete(ref, argument.value("name", ""), argument.value("value", ""));
    const size_t total = values.size();
    if (values.size() > kMaxCompletionValues) values.resize(kMaxCompletionValues);
    const json result = {
        {"completion",
         {{"values", values}, {"total", total}, {"hasMore", total > kMaxCompletionValues}}}};
    reply(result_message(id_text, dump(result)), true);
    return;
  }
  reply(error_message(id_text, kMethodNotFound,
                      "Method not found: '" + method +
                          "'; this server answers initialize, ping, tools/*, resources/*, "
                          "prompts/*, logging/setLevel and completion/complete"),
        true);
}

bool Server::Impl::stateless_request(const std::shared_ptr<Session>& s, const std::string& id_text,
                                     const std::string& method, const json& params,
                                     const Reply& reply, const Release& release) {
  if (!is_stateless_request(method, params)) return false;
  if (auto error = meta_error(params)) {
    reply(error_response(id_text, *error), true);
    return true;
  }
  if (method == "server/discover") {
    reply(result_message(id_text, discover_body), true);
    return true;
  }
  if (removed_in_stateless(method)) {
    reply(error_message(id_text, kMethodNotFound,
                        "Method not found: '" + method + "' is not part of MCP " +
                            std::string(kStatelessVersion) +
                            "; clients of 2025-11-25 and older send it after initialize, without "
                            "io.modelcontextprotocol/ keys in _meta"),
          true);
    return true;
  }
  if (method == "tools/call" && params.contains("name") && params["name"].is_string()) {
    // What a tool needs from the client is checked against what this request declares: there
    // is no session that could have declared it earlier.
    const std::string& name = params["name"].get_ref<const std::string&>();
    if (const FixtureTool* tool = catalog.fixture_tool(name)) {
      if (auto error = missing_capability_error(name, tool->required_capabilities, params)) {
        reply(error_response(id_text, *error), true);
        return true;
      }
    }
  }
  {
    // Log records reach a stateless client only when a request asks for them.
    std::lock_guard lock(s->mutex);
    const int off = static_cast<int>(kLevels.size());
    s->log_level = requested_log_level(params, kLevels.data(), kLevels.size(), off);
  }
  const Reply marked_reply = [reply, method](std::string&& message, bool last) {
    if (!last) {
      reply(std::move(message), false);
      return;
    }
    reply(mark_stateless_answer(std::move(message), method), true);
  };
  serve(s, id_text, method, params, marked_reply, release);
  return true;
}

std::string Server::Impl::initialize(Session& s, const std::string& id_text, const json& params) {
  const auto it = params.find("protocolVersion");
  if (it == params.end() || !it->is_string()) {
    return error_message(id_text, kInvalidParams,
                         "Invalid params: initialize needs \"protocolVersion\" (a string such as "
                         "\"2025-11-25\")");
  }
  const std::string requested = it->get<std::string>();
  // The client's revision when we speak it; otherwise our latest, and the client decides.
  // A client asking for the stateless revision through initialize gets the latest stateful one.
  const bool stateful = std::find(kVersions.begin(), kVersions.end(), requested) != kVersions.end();
  const std::string version = stateful ? requested : std::string(kLatestProtocolVersion);
  {
    std::lock_guard lock(s.mutex);
    if (s.initialized) {
      return error_message(id_text, kInvalidRequest,
                           "Invalid Request: this session is already initialized; start a new "
                           "connection to initialize again");
    }
    s.initialized = true;
    s.version = version;
  }
  json server_info = {{"name", options.name},
                      {"title", "skillrt"},
                      {"version", options.version.empty() ? SKILLRT_VERSION : options.version}};
  std::string body = R"({"protocolVersion":)";
  body += dump(json(version));
  body += R"(,"capabilities":)";
  body += initialize_capabilities;
  body += R"(,"serverInfo":)";
  body += dump(server_info);
  body += R"(,"instructions":)";
  body += dump(json(options.instructions.empty() ? default_instructions() : options.instructions));
  body += '}';
  return result_message(id_text, body);
}

void Server::Impl::call_tool(const std::shared_ptr<Session>& s, const std::string& id_text,
                             const json& params, const Reply& reply, const Release& release) {
  const auto name_it = params.find("name");
  if (name_it == params.end() || !name_it->is_string()) {
    reply(error_message(id_text, kInvalidParams,
                        "Invalid params: tools/call needs \"name\" (a string); see tools/list"),
          true);
    return;
  }
  ToolCall call;
  call.name = name_it->get_ref<const std::string&>();
  call.arguments = params.value("arguments", json::object());
  if (call.arguments.is_null()) call.arguments = json::object();
  if (!call.arguments.is_object()) {
    reply(error_message(id_text, kInvalidParams,
                        "Invalid params: \"arguments\" of tool '" + std::string(call.name) +
                            "' must be an object"),
          true);
    return;
  }
  if (const auto meta = params.find("_meta"); meta != params.end() && meta->is_object()) {
    if (!read_meta(*meta, call, id_text, reply)) return;
  }
  start_call(s, id_text, std::move(call), reply, release);
}

bool Server::Impl::call_tool_text(const std::shared_ptr<Session>& s, const ToolsCallText& text,
                                  const Reply& reply, const Release& release) {
  if (!s->initialized.load()) return false;  // the general path refuses it in its own words
  const std::string id_text(text.id);
  ToolCall call;
  call.name = text.name;
  // A view into the request: the transport keeps its text until handle() returns, and the
  // executor copies it for a call that goes to the pool.
  call.arguments_text = text.arguments.empty() ? std::string_view("{}") : text.arguments;
  if (!text.meta.empty()) {
    // Scanned already, so it parses; _meta is small and rare on the hot path.
    if (!read_meta(json::parse(text.meta), call, id_text, reply)) return true;
  }
  start_call(s, id_text, std::move(call), reply, release);
  return true;
}

bool Server::Impl::read_meta(const json& meta, ToolCall& call, const std::string& id_text,
                             const Reply& reply) {
  if (const auto t = meta.find("progressToken"); t != meta.end() && is_valid_id(*t)) {
    call.token = *t;
  }
  // The per-call deadline, as `skillrt run --timeout` gives it on the command line; a _meta key
  // because the arguments belong to the skill's own schema.
  if (const auto t = meta.find(kTimeoutMetaKey); t != meta.end()) {
    const bool whole = t->is_number_unsigned() || (t->is_number_integer() && *t > 0);
    if (!whole || *t < 1 || *t > kMaxTimeoutMs) {
      reply(error_message(id_text, kInvalidParams,
                          std::string("Invalid params: _meta \"") + kTimeoutMetaKey +
                              "\" of tool '" + std::string(call.name) +
                              "' must be a whole number of milliseconds from 1 to " +
                              std::to_string(kMaxTimeoutMs) + ", got " + t->dump()),
            true);
      return false;
    }
    call.timeout = std::chrono::milliseconds(t->get<int64_t>());
  }
  return true;
}

void Server::Impl::start_call(const std::shared_ptr<Session>& s, const std::string& id_text,
                              ToolCall call, const Reply& reply, const Release& release) {
  const std::string_view name = call.name;
  if (const FixtureTool* fixture = catalog.fixture_tool(name)) {
    run_fixture(*s, *fixture, id_text, call.token, reply);
    return;
  }
  auto skill = executor.registry().find(name);
  if (!skill) {
    std::string message = "Invalid params: unknown tool '" + std::string(name) + "'";
    const auto near = executor.registry().suggest(name);
    if (!near.empty()) {
      message += "; did you mean";
      for (size_t i = 0; i < near.size(); ++i) message += (i ? ", '" : " '") + near[i] + "'";
      message += "?";
    } else {
      message += "; list the tools with tools/list";
    }
    reply(error_message(id_text, kInvalidParams, message), true);
    return;
  }
  // This thread's record of its last call when nothing holds it any more (a quick call on the
  // reading thread is over before start_call() returns): no allocation for the next one.
  thread_local std::shared_ptr<PendingCall> spare_record;
  std::shared_ptr<PendingCall> pending = std::move(spare_record);
  if (pending) {
    pending->cancel.store(false, std::memory_order_relaxed);
  } else {
    pending = std::make_shared<PendingCall>();
  }
  exec::CallOptions call_options;
  call_options.timeout = call.timeout;
  call_options.cancel = exec::CancelFlag(pending, &pending->cancel);
  call_options.release_caller = release;
  call_options.result_text_only = true;
  // From the tools/call scan, which checked the whole message.
  call_options.input_well_formed = !call.arguments_text.empty();
  {
    std::lock_guard lock(s->mutex);
    bool fresh = false;
    if (s->spare_nodes.empty()) {
      std::tie(pending->entry, fresh) = s->inflight.try_emplace(id_text, call_options.cancel);
    } else {
      auto node = std::move(s->spare_nodes.back());
      s->spare_nodes.pop_back();
      node.key() = id_text;
      node.mapped().cancel = call_options.cancel;
      node.mapped().cancelled_by_client.store(false);
      auto placed = s->inflight.insert(std::move(node));
      pending->entry = placed.position;
      fresh = placed.inserted;
      if (!fresh) {
        placed.node.mapped().cancel = nullptr;
        s->spare_nodes.push_back(std::move(placed.node));
      }
    }
    if (!fresh) {
      reply(error_message(id_text, kInvalidRequest,
                          "Invalid Request: request id " + id_text +
                              " is already in use by a call in flight; use a fresh id"),
            true);
      return;
    }
    if (!s->early_cancels.empty() && s->early_cancels.erase(id_text) != 0) {
      // Cancelled before it arrived: it stops at once and gets no response.
      pending->entry->second.cancelled_by_client.store(true);
      pending->cancel.store(true);
    }
  }
  pending->impl = this;
  pending->session = s;
  pending->reply = reply;
  // Only a call with progress can race its own response; the others need no stream.
  if (!call.token.is_null()) {
    auto stream = std::make_shared<CallStream>();
    pending->stream = stream;
    call_options.on_progress = [stream, reply, token = call.token](const exec::Progress& p) {
      std::lock_guard lock(stream->mutex);
      // The spec wants progress to increase with every notification.
      if (stream->finished || !(p.done > stream->last_progress)) return;
      stream->last_progress = p.done;
      json params = {{"progressToken", token}, {"progress", p.done}};
      if (p.total > 0) params["total"] = p.total;
      if (!p.message.empty()) params["message"] = p.message;
      reply(notification_message("notifications/progress", params), false);
    };
  }
  // A bare pointer: small enough for std::function to hold without allocating. The entry keeps
  // the record alive until finish() is done with it.
  auto done = [call_record = pending.get()](exec::Outcome&& out) {
    call_record->finish(std::move(out));
  };
  if (!call.arguments_text.empty()) {
    executor.call_async_text(name, call.arguments_text, std::move(call_options), std::move(done),
                             std::move(skill));
  } else {
    executor.call_async(name, std::move(call.arguments), std::move(call_options), std::move(done));
  }
  keep_record(spare_record, std::move(pending));
}

void Server::Impl::keep_record(std::shared_ptr<PendingCall>& spare,
                               std::shared_ptr<PendingCall> record) {
  // Another holder (the call still running on the pool, its cancel flag in the entry or the
  // call handle) may still use it.
  if (record.use_count() != 1) return;
  // Pairs with the release of the other holders' last decrement: their work on it is visible.
  std::atomic_thread_fence(std::memory_order_acquire);
  // Kept without what would outlive the session: the transport's reply (it may hold a
  // connection) and the progress stream; finish() let go of the session.
  record->reply = nullptr;
  record->stream.reset();
  record->session.reset();
  spare = std::move(record);
}

void Server::Impl::PendingCall::finish(exec::Outcome&& out) {
  // This record may go with its entry at the end; the session must not. Moved, not copied:
  // nothing reads the record's own pointer after this.
  const std::shared_ptr<Session> s = std::move(session);
  const bool drop = entry->second.cancelled_by_client.load();
  if (!drop && out.ok()) impl->note_reports(*s, out);
  // The answer is built in this thread's buffer of the last one, unless the transport took that
  // over: one allocation less per call where the transport copies answers out (stdio).
  thread_local std::string spare;
  std::string message = std::move(spare);
  message.clear();
  // No response for a request the client cancelled. The entry's key is the request id; only
  // this call erases it, so it can be read without the lock.
  if (!drop) append_tool_result(message, entry->first, out.skill, out);
  {
    // Under the stream's lock, so no progress notification follows the response.
    std::unique_lock<std::mutex> streaming;
    if (stream) {
      streaming = std::unique_lock(stream->mutex);
      stream->finished = true;
    }
    reply(std::move(message), true);
  }
  // Reply takes an rvalue reference: `message` is whatever the transport left of it, empty if it
  // took it over. A buffer grown for a large answer is not kept.
  if (message.capacity() <= kMaxSpareAnswer) {
    spare = std::move(message);  // NOLINT(bugprone-use-after-move)
  }
  exec::CancelFlag last;  // released after the lock: it may hold this record's last reference
  std::lock_guard lock(s->mutex);
  last = std::move(entry->second.cancel);
  if (s->spare_nodes.size() < kSpareNodes) {
    s->spare_nodes.push_back(s->inflight.extract(entry));
  } else {
    s->inflight.erase(entry);
  }
  if (s->idle_waiters > 0 && s->inflight.empty()) s->idle.notify_all();
}

void Server::Impl::run_fixture(Session& s, const FixtureTool& tool, const std::string& id_text,
                               const json& token, const Reply& reply) {
  int level = 0;
  {
    std::lock_guard lock(s.mutex);
    level = s.log_level;
  }
  for (const auto& step : tool.steps) {
    if (const auto log = step.find("log"); log != step.end()) {
      if (level_index(log->value("level", "info")) >= level) {
        json p = *log;
        if (!p.contains("logger")) p["logger"] = tool.descriptor.value("name", "fixture");
        reply(notification_message("notifications/message", p), false);
      }
    }
    if (const auto progress = step.find("progress"); progress != step.end() && !token.is_null()) {
      json p = *progress;
      p["progressToken"] = token;
      reply(notification_message("notifications/progress", p), false);
    }
  }
  reply(result_message(id_text, dump(tool.result)), true);
}

std::string Server::Impl::list_page(const std::vector<json>& items, const char* key,
                                    const json& params, const std::string& id_text) {
  const auto offset = parse_cursor(params, items.size());
  if (!offset) {
    return error_message(id_text, kInvalidParams,
                         "Invalid params: unknown cursor; pass the nextCursor of the previous "
                         "page, or none for the first");
  }
  const size_t page = std::max<size_t>(1, options.page_size);
  json result = {{key, json::array()}};
  for (size_t i = *offset; i < std::min(items.size(), *offset + page); ++i) {
    result[key].push_back(items[i]);
  }
  if (*offset + page < items.size()) result["nextCursor"] = std::to_string(*offset + page);
  return result_message(id_text, dump(result));
}

bool Server::Impl::resource_known(Session& s, const std::string& uri) {
  {
    std::lock_guard lock(s.mutex);
    if (s.reports.contains(uri)) return true;
  }
  for (const auto& r : catalog.resources()) {
    if (r.descriptor.value("uri", "") == uri) return true;
  }
  std::map<std::string, std::string> vars;
  for (const auto& t : catalog.templates()) {
    if (match_uri_template(t.descriptor.value("uriTemplate", ""), uri, vars)) return true;
  }
  return false;
}

std::string Server::Impl::read_resource(Session& s, const std::string& id_text,
                                        const json& params) {
  const auto uri_it = params.find("uri");
  if (uri_it == params.end() || !uri_it->is_string()) {
    return error_message(id_text, kInvalidParams,
                         "Invalid params: resources/read needs \"uri\" (a string)");
  }
  const std::string uri = uri_it->get<std::string>();
  std::optional<fs::path> report;
  {
    std::lock_guard lock(s.mutex);
    if (auto it = s.reports.find(uri); it != s.reports.end()) report = it->second;
  }
  if (report) {
    std::ifstream in(*report, std::ios::binary);
    if (!in) {
      return error_message(id_text, kInternalError,
                           "Internal error: cannot read '" + report->string() +
                               "' any more; run the tool that wrote it again");
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string mime = mime_type_for(*report);
    json content = {{"uri", uri}, {"mimeType", mime}};
    if (is_text_mime(mime)) {
      content["text"] = bytes;
    } else {
      content["blob"] = base64_encode(bytes);
    }
    return result_message(id_text, dump(json{{"contents", json::array({content})}}));
  }
  auto found = catalog.read(uri);
  if (!found) {
    const json data = {{"uri", uri}};
    return error_message(id_text, kResourceNotFound,
                         "Resource not found: '" + uri + "'; list them with resources/list", &data);
  }
  if (!*found) {
    return error_message(id_text, kInternalError, "Internal error: " + found->error().message);
  }
  return result_message(id_text, dump(json{{"contents", **found}}));
}

void Server::Impl::note_reports(Session& s, const exec::Outcome& out) {
  // A report is a file the result names by absolute path and that was written during the call;
  // only such files are readable, never arbitrary paths.
  json parsed;
  const json* root = &out.result;
  if (out.result.is_null()) {
    // Checked as text only: a result naming no absolute path needs no DOM.
    if (!may_name_path(out.result_text)) return;
    parsed = json::parse(out.result_text, nullptr, false);
    root = &parsed;
  }
  const json& result = *root;
  // When the call started, on the file system's clock.
  const auto since = fs::file_time_type::clock::now() -
                     std::chrono::duration_cast<fs::file_time_type::duration>(
                         std::chrono::duration<double, std::milli>(out.elapsed_ms));
  std::vector<fs::path> found;
  size_t scanned = 0;
  std::vector<const json*> stack = {&result};
  while (!stack.empty() && scanned < kMaxReportScan) {
    const json* v = stack.back();
    stack.pop_back();
    if (v->is_string()) {
      ++scanned;
      const auto& text = v->get_ref<const std::string&>();
      if (text.size() < 2 || text.size() > 4096 || text.front() != '/') continue;
      std::error_code ec;
      const fs::path path(text);
      if (!fs::is_regular_file(path, ec)) continue;
      const auto written = fs::last_write_time(path, ec);
      // File systems keep coarse timestamps; a second of slack keeps fresh files in.
      if (!ec && written + std::chrono::seconds(1) >= since) found.push_back(path);
    } else if (v->is_structured()) {
      for (const auto& item : *v) stack.push_back(&item);
    }
  }
  if (found.empty()) return;
  bool added = false;
  Notify notify;
  {
    std::lock_guard lock(s.mutex);
    for (const auto& path : found) {
      added |= s.reports.emplace("file://" + path.string(), path).second;
    }
    notify = s.notify;
  }
  if (added && notify) {
    notify(notification_message("notifications/resources/list_changed", json::object()));
  }
}

}  // namespace skillrt::mcp
