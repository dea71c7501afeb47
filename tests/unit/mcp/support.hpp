// Shared by the mcp and transport tests: a registry of skills defined here (through the real
// host API and schema compiler), an executor, and a client that talks to mcp::Server directly.
#pragma once

#include <skillrt/abi.h>

#include <unistd.h>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>

#include "exec/executor.hpp"
#include "host/host_api.hpp"
#include "mcp/server.hpp"
#include "registry/registry.hpp"
#include "schema/compiled_schema.hpp"

namespace skillrt::testing {

using nlohmann::json;

inline std::string text_of(skillrt_str s) { return std::string(s.ptr, s.len); }
inline skillrt_str str_of(const std::string& s) { return skillrt_str{s.data(), s.size()}; }

inline int32_t write_json(skillrt_call* call, const json& value) {
  const std::string text = value.dump();
  return host::host_api()->write_result(call, str_of(text));
}

inline int32_t echo_invoke(void*, skillrt_call* call, skillrt_str input) {
  const json in = json::parse(text_of(input));
  return write_json(call, {{"text", in.at("text")}});
}

inline int32_t progress_invoke(void*, skillrt_call* call, skillrt_str) {
  for (int i = 1; i <= 3; ++i) {
    const std::string message = "step " + std::to_string(i);
    host::host_api()->report_progress(call, i, 3, str_of(message));
  }
  return write_json(call, {{"text", "done"}});
}

// Runs until cancelled (by the client or a deadline); bounded so a broken test cannot hang.
inline int32_t slow_invoke(void*, skillrt_call* call, skillrt_str) {
  const auto stop = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (host::host_api()->is_cancelled(call) == 0 && std::chrono::steady_clock::now() < stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return write_json(call, {{"text", "stopped"}});
}

// Sleeps as many milliseconds as its text says (stopping early when cancelled): quick or slow
// from one call to the next.
inline int32_t nap_invoke(void*, skillrt_call* call, skillrt_str input) {
  const json in = json::parse(text_of(input));
  const auto stop = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(std::stoi(in.at("text").get<std::string>()));
  while (host::host_api()->is_cancelled(call) == 0 && std::chrono::steady_clock::now() < stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return write_json(call, {{"text", "rested"}});
}

inline int32_t fail_invoke(void*, skillrt_call* call, skillrt_str) {
  const std::string message = "the fixture repository has no commits: run `git commit` first";
  host::host_api()->set_error(call, SKILLRT_FAILED_PRECONDITION, str_of(message));
  return SKILLRT_FAILED_PRECONDITION;
}

inline int32_t bad_output_invoke(void*, skillrt_call* call, skillrt_str) {
  return write_json(call, {{"text", 42}});
}

inline int32_t report_invoke(void*, skillrt_call* call, skillrt_str input) {
  const json in = json::parse(text_of(input));
  const std::string path = in.at("text").get<std::string>() + "/report.md";
  std::ofstream(path) << "# Report\n\nAll good.\n";
  return write_json(call, {{"text", path}});
}

// Returns its result indented over several lines, as a plugin without the SDK may.
inline int32_t pretty_invoke(void*, skillrt_call* call, skillrt_str) {
  const std::string text = json{{"text", "two\nlines"}}.dump(2);
  return host::host_api()->write_result(call, str_of(text));
}

inline int32_t print_invoke(void*, skillrt_call* call, skillrt_str) {
  std::printf("{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":\"forged by a plugin\"}\n");
  std::fflush(stdout);
  return write_json(call, {{"text", "printed"}});
}

inline const json& text_input_schema() {
  static const json schema = {{"$schema", "http://json-schema.org/draft-07/schema#"},
                              {"type", "object"},
                              {"properties", {{"text", {{"type", "string"}}}}},
                              {"required", {"text"}},
                              {"additionalProperties", false}};
  return schema;
}

inline std::shared_ptr<const Skill> make_skill(const std::string& name, skillrt_invoke_fn invoke,
                                               uint64_t flags = 0, uint32_t timeout_ms = 0) {
  auto skill = std::make_shared<Skill>();
  skill->name = name;
  skill->title = name == "echo" ? "Echo" : "";
  skill->description = "Test skill " + name;
  skill->plugin = "tests";
  skill->flags = flags;
  skill->default_timeout_ms = timeout_ms;
  skill->invoke = invoke;
  auto input = schema::CompiledSchema::compile(text_input_schema());
  auto output = schema::CompiledSchema::compile(text_input_schema());
  if (!input || !output) throw std::runtime_error("test schema does not compile");
  skill->input_schema = *input;
  skill->output_schema = *output;
  return skill;
}

// A registry with every test skill (and a test's own `extra` ones), frozen, and an executor
// over it.
struct TestHost {
  explicit TestHost(size_t extra_pages = 0, std::vector<std::shared_ptr<const Skill>> extra = {}) {
    for (auto& skill : extra) add(std::move(skill));
    add(make_skill("echo", echo_invoke, SKILLRT_SKILL_READ_ONLY | SKILLRT_SKILL_IDEMPOTENT));
    add(make_skill("progress", progress_invoke, SKILLRT_SKILL_READ_ONLY));
    add(make_skill("slow", slow_invoke));
    add(make_skill("sleepy", slow_invoke, 0, 50));
    add(make_skill("nap", nap_invoke));
    add(make_skill("fail", fail_invoke, SKILLRT_SKILL_DESTRUCTIVE));
    add(make_skill("bad-output", bad_output_invoke));
    add(make_skill("report", report_invoke, SKILLRT_SKILL_OPEN_WORLD));
    add(make_skill("print", print_invoke));
    for (size_t i = 0; i < extra_pages; ++i) {
      add(make_skill("page-" + std::to_string(100 + i), echo_invoke));
    }
    exec::Executor::Options options;
    options.pool_size = 4;
    options.grace = std::chrono::milliseconds(200);
    registry.freeze();
    executor = std::make_unique<exec::Executor>(registry, options);
  }
  void add(std::shared_ptr<const Skill> skill) {
    if (!registry.add(std::move(skill))) throw std::runtime_error("cannot register test skill");
  }
  Registry registry;
  std::unique_ptr<exec::Executor> executor;
};

// Talks to mcp::Server as a transport would and records everything it sends back.
class Client {
 public:
  explicit Client(mcp::Server& server) : server_(server) {
    session_ = server_.open_session([this](std::string m) { push(std::move(m)); });
  }
  ~Client() {
    server_.close_session(session_);
    server_.wait_idle(session_);
  }

  void send(std::string_view text) {
    server_.handle(session_, text, [this](std::string m, bool) {
      if (!m.empty()) push(std::move(m));
    });
  }
  void post(const json& message) { send(std::string_view(message.dump())); }

  // Sends a request and waits (at most 10 s) for the answer with its id.
  json request(const json& message) {
    post(message);
    return wait_for_id(message.at("id"));
  }

  json wait_for_id(const json& id) {
    std::unique_lock lock(mutex_);
    json found;
    const bool ok = cv_.wait_for(lock, std::chrono::seconds(10), [&] {
      for (const auto& m : received_) {
        if (m.contains("id") && m["id"] == id && !m.contains("method")) {
          found = m;
          return true;
        }
      }
      return false;
    });
    if (!ok) throw std::runtime_error("no answer for id " + id.dump());
    return found;
  }

  // Waits (at most 10 s) until `n` messages have arrived.
  std::vector<json> wait_count(size_t n) {
    std::unique_lock lock(mutex_);
    if (!cv_.wait_for(lock, std::chrono::seconds(10), [&] { return received_.size() >= n; })) {
      throw std::runtime_error("expected " + std::to_string(n) + " messages, got " +
                               std::to_string(received_.size()));
    }
    return {received_.begin(), received_.end()};
  }

  std::vector<json> received() {
    std::lock_guard lock(mutex_);
    return {received_.begin(), received_.end()};
  }

  // The initialize response.
  json initialize(const std::string& version = "2025-11-25") {
    json answer = request({{"jsonrpc", "2.0"},
                           {"id", "init"},
                           {"method", "initialize"},
                           {"params",
                            {{"protocolVersion", version},
                             {"capabilities", json::object()},
                             {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}});
    post(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    return answer;
  }

  const std::shared_ptr<mcp::Session>& session() const { return session_; }

 private:
  void push(std::string message) {
    json parsed = json::parse(message);  // every message the server sends must parse
    std::lock_guard lock(mutex_);
    received_.push_back(std::move(parsed));
    cv_.notify_all();
  }

  mcp::Server& server_;
  std::shared_ptr<mcp::Session> session_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<json> received_;
};

inline json call(const std::string& id, const std::string& tool, const json& arguments,
                 const json& meta = nullptr) {
  json params = {{"name", tool}, {"arguments", arguments}};
  if (!meta.is_null()) params["_meta"] = meta;
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", params}};
}

inline json req(const json& id, const std::string& method, const json& params = nullptr) {
  json m = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) m["params"] = params;
  return m;
}

inline std::filesystem::path temp_dir(const std::string& tag) {
  auto dir = std::filesystem::temp_directory_path() /
             ("skillrt-" + tag + "-" + std::to_string(::getpid()) + "-" +
              std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace skillrt::testing
