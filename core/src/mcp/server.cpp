#include "mcp/server.hpp"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <mutex>

#include "mcp/detail/jsonrpc.hpp"
#include "mcp/detail/server_impl.hpp"
#include "mcp/detail/skill_package.hpp"
#include "mcp/detail/stateless.hpp"
#include "mcp/tool_definition.hpp"

namespace skillrt::mcp {

using nlohmann::json;
using namespace detail;

namespace {

// Revisions with the initialize handshake and a session.
constexpr std::array<std::string_view, 3> kVersions = {"2025-11-25", "2025-06-18", "2025-03-26"};

// The revision that still had JSON-RPC batches.
constexpr std::string_view kBatchVersion = "2025-03-26";
constexpr std::array<std::string_view, 8> kLevels = {"debug", "info",     "notice", "warning",
                                                     "error", "critical", "alert",  "emergency"};
constexpr size_t kMaxCompletionValues = 100;
// Cancellations remembered per session for requests not seen yet.
constexpr size_t kMaxEarlyCancels = 1024;

std::string id_key(const json& id) { return dump(id); }

std::string default_instructions() {
  return "skillrt serves agent skills for PyTorch-on-Ascend-NPU work as tools. Every tool "
         "checks its arguments against inputSchema and answers with structuredContent (the same "
         "JSON is in the text content). Read skill://<tool-name>/SKILL.md for when and how to "
         "use a tool; report files a tool writes become readable resources.";
}

}  // namespace

namespace detail {

int level_index(std::string_view level) {
  for (size_t i = 0; i < kLevels.size(); ++i) {
    if (kLevels[i] == level) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace detail

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

}  // namespace skillrt::mcp
