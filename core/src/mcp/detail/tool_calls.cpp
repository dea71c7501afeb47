// tools/call from the request to its answer: the arguments and _meta read, the skill found, the
// call registered among the session's calls in flight and handed to the executor, progress
// relayed, and the answer built when the executor is done.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <tuple>

#include "mcp/detail/jsonrpc.hpp"
#include "mcp/detail/server_impl.hpp"

namespace skillrt::mcp {

using nlohmann::json;
using namespace detail;

namespace {

// The largest answer buffer a thread keeps for its next answer.
constexpr size_t kMaxSpareAnswer = 64 * 1024;
// Map nodes a session keeps for reuse: about what a busy client keeps in flight.
constexpr size_t kSpareNodes = 64;
// tools/call's per-call deadline: "_meta": {"skillrt/timeoutMs": N}, at most a day.
constexpr const char* kTimeoutMetaKey = "skillrt/timeoutMs";
constexpr int64_t kMaxTimeoutMs = 24LL * 60 * 60 * 1000;

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

}  // namespace

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

}  // namespace skillrt::mcp
