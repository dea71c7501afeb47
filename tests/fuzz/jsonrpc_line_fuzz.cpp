// End-to-end fuzz target of the MCP server: the input is what a client writes on stdin, one
// message per line, handed to mcp::Server::handle() after an initialize, as the stdio transport
// does. Whatever the lines hold, the server must not crash, and:
// - everything it sends is one JSON value (an object, or an array of objects for a batch) with
//   "jsonrpc": "2.0";
// - a request (an object with a string method and a string or integer id) gets exactly one final
//   answer, with that id, unless the input also holds a cancellation (which may drop it);
// - an error carries an integer code and a string message.
// The test skill echoes its "text" argument; the input schema is the one the host checks.
#include <skillrt/abi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "unit/mcp/support.hpp"

namespace {

using nlohmann::json;
namespace mcp = skillrt::mcp;

[[noreturn]] void broken(const char* what, std::string_view detail) {
  std::fprintf(stderr, "jsonrpc_line: %s: %.*s\n", what,
               static_cast<int>(detail.size() > 2000 ? 2000 : detail.size()), detail.data());
  std::abort();
}

// One process-wide host: building the executor's pool per input would dominate the run. Only the
// test skills that end at once: a fuzzer naming the ones that wait for a cancellation would
// spend its time waiting.
struct Host {
  Host() {
    using namespace skillrt::testing;
    add(make_skill("echo", echo_invoke, SKILLRT_SKILL_READ_ONLY));
    add(make_skill("progress", progress_invoke));
    add(make_skill("fail", fail_invoke));
    add(make_skill("bad-output", bad_output_invoke));
    registry.freeze();
    skillrt::exec::Executor::Options options;
    options.pool_size = 2;
    executor = std::make_unique<skillrt::exec::Executor>(registry, options);
    server = std::make_unique<mcp::Server>(*executor, mcp::ServerOptions{});
  }
  void add(std::shared_ptr<const skillrt::Skill> skill) {
    if (!registry.add(std::move(skill))) broken("cannot register a test skill", "");
  }
  skillrt::Registry registry;
  std::unique_ptr<skillrt::exec::Executor> executor;
  std::unique_ptr<mcp::Server> server;
};

Host& host() {
  static Host* instance = new Host();  // never destroyed: the pool may outlive static teardown
  return *instance;
}

// What the server sent for one input, gathered from any thread.
struct Sent {
  std::mutex mutex;
  std::vector<std::string> finals;
  std::vector<std::string> notes;

  mcp::Reply reply() {
    return [this](std::string&& message, bool last) {
      if (message.empty()) return;
      std::lock_guard lock(mutex);
      (last ? finals : notes).push_back(std::move(message));
    };
  }
};

void check_message(const json& message, std::string_view text) {
  if (!message.is_object()) broken("a message that is not an object", text);
  if (message.value("jsonrpc", json()) != "2.0") broken("a message without jsonrpc 2.0", text);
  if (const auto error = message.find("error"); error != message.end()) {
    if (!error->is_object() || !error->value("code", json()).is_number_integer() ||
        !error->value("message", json()).is_string()) {
      broken("an error without an integer code and a string message", text);
    }
  }
}

void check_sent(const std::string& text) {
  const json parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded()) broken("sent text that is not JSON", text);
  if (parsed.is_array()) {
    if (parsed.empty()) broken("sent an empty batch answer", text);
    for (const auto& message : parsed) check_message(message, text);
    return;
  }
  check_message(parsed, text);
}

// The id of a line that is a request, as dump() writes it; empty for anything else.
std::string request_id(std::string_view line) {
  const json parsed = json::parse(line, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return {};
  const auto method = parsed.find("method");
  const auto id = parsed.find("id");
  if (method == parsed.end() || !method->is_string() || id == parsed.end()) return {};
  if (!id->is_string() && !id->is_number_integer()) return {};
  return id->dump();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto& h = host();
  Sent sent;
  auto session = h.server->open_session([&sent](std::string message) {
    std::lock_guard lock(sent.mutex);
    sent.notes.push_back(std::move(message));
  });
  h.server->handle(session,
                   R"({"jsonrpc":"2.0","id":"init","method":"initialize","params":)"
                   R"({"protocolVersion":"2025-11-25","capabilities":{}}})",
                   sent.reply());
  h.server->handle(session, R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                   sent.reply());
  std::vector<std::string> ids;
  bool may_cancel = false;
  size_t start = 0;
  while (start <= input.size()) {
    size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    std::string_view line = input.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (line.find("cancel") != std::string_view::npos) may_cancel = true;
    if (auto id = request_id(line); !id.empty()) ids.push_back(std::move(id));
    h.server->handle(session, line, sent.reply());
  }
  // Calls still running (the test skills finish quickly) are waited for; then every answer is in.
  h.server->wait_idle(session);
  h.server->close_session(session);
  std::lock_guard lock(sent.mutex);
  for (const auto& text : sent.finals) check_sent(text);
  for (const auto& text : sent.notes) check_sent(text);
  if (may_cancel) return 0;
  // initialize's answer comes first; then one answer per request, matched by id.
  std::vector<std::string> answered;
  for (const auto& text : sent.finals) {
    const json parsed = json::parse(text);
    if (parsed.is_object() && parsed.contains("id")) answered.push_back(parsed["id"].dump());
  }
  for (const auto& id : ids) {
    const auto it = std::find(answered.begin(), answered.end(), id);
    if (it == answered.end()) broken("a request without an answer, id", id);
    answered.erase(it);
  }
  return 0;
}
