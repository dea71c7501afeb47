// MCP semantics over JSON-RPC 2.0: lifecycle, tools, resources, prompts, logging, progress and
// cancellation. Knows nothing of pipes or sockets: a transport hands in one framed message at a
// time and gets the answers back through callbacks.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exec/executor.hpp"

namespace skillrt::mcp {

// Protocol revisions this server speaks, newest first.
inline constexpr std::string_view kLatestProtocolVersion = "2025-11-25";
// The stateless revision (no initialize; revision and client capabilities in each request's
// _meta), spoken beside the others and chosen per request.
inline constexpr std::string_view kStatelessProtocolVersion = "2026-07-28";
bool is_supported_protocol_version(std::string_view version);
bool is_stateless_protocol_version(std::string_view version);

struct ServerOptions {
  std::string name = "skillrt";
  std::string version;
  // SKILL.md of each skill: skills_dir/<name>/SKILL.md; workflow prompts a skill declares:
  // skills_dir/<name>/prompts/<prompt>.md.
  std::filesystem::path skills_dir;
  size_t page_size = 50;
  // Test-only: a JSON file with the fixture tools, resources and prompts that the official
  // conformance suite expects under fixed names (see tests/data/mcp-conformance/). Empty in
  // production.
  std::filesystem::path fixtures_file;
  // Shown to the client at initialize; empty: a default that says what skillrt is.
  std::string instructions;
};

// Receives what the server sends in answer to one incoming message, in order: zero or more
// notifications (last == false) and then the final message (last == true). An empty final
// message means there is nothing more to send (a notification, a response from the client, or
// a request the client cancelled). May be called from any thread, after handle() returned.
// The message comes as an rvalue: a transport may take it over, or only copy it out and leave
// it, so that the server reuses its buffer for the next answer on that thread.
using Reply = std::function<void(std::string&& message, bool last)>;

// Given by a transport that can lend its thread to the calls a message starts (stdio): the
// server may then run a quick call on that thread, and calls this, from another thread, if the
// call turns out slow, so the transport carries on reading elsewhere. See
// exec::CallOptions::release_caller.
using Release = std::function<void()>;

// Receives messages that belong to no incoming request (log notifications outside a call).
using Notify = std::function<void(std::string message)>;

// One client connection's protocol state. Opaque to transports.
class Session;

class Server {
 public:
  Server(exec::Executor& executor, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  std::shared_ptr<Session> open_session(Notify notify);

  // Handles one framed message (one JSON-RPC message or a batch). Never throws. `text` must stay
  // as it is until handle() returns, even after `release` was called: a call running on the
  // caller's thread reads its arguments in it. It is not used after handle() returns.
  void handle(const std::shared_ptr<Session>& session, std::string_view text, Reply reply,
              const Release& release = {});
  // What Streamable HTTP carries beside the body. A 2026-07-28 request over HTTP must repeat its
  // revision in MCP-Protocol-Version, and Mcp-Method / Mcp-Name, when sent, must match the body:
  // a proxy routes on the headers, so a mismatch is refused (-32020) instead of served.
  struct HttpHeaders {
    std::string protocol_version;  // MCP-Protocol-Version
    std::string method;            // Mcp-Method
    std::string name;              // Mcp-Name
  };
  void handle_http(const std::shared_ptr<Session>& session, std::string_view text,
                   const HttpHeaders& headers, Reply reply, const Release& release = {});

  // The answer for a message the transport could not even frame (e.g. a line over the size
  // limit): a JSON-RPC error with id null.
  static std::string framing_error(int code, std::string_view message);

  // Cancels the session's calls in flight; their replies are dropped.
  void close_session(const std::shared_ptr<Session>& session);
  // Blocks until the session has no call in flight.
  void wait_idle(const std::shared_ptr<Session>& session);

  // What HTTP needs to manage sessions without knowing MCP methods.
  static bool initialized(const Session& session);
  static std::string protocol_version(const Session& session);

  // Sends a log notification to every open session whose level admits it. `level` is an MCP
  // level name (debug ... emergency).
  void broadcast_log(std::string_view level, std::string_view logger, std::string_view text);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace skillrt::mcp
