// The one call path: validate input, run the skill, enforce the deadline, validate output.
// The CLI, the MCP server and skill-to-skill calls all come through here.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "registry/registry.hpp"
#include "schema/compiled_schema.hpp"

struct skillrt_call;

namespace skillrt::exec {

struct Progress {
  double done = 0;
  double total = 0;  // <= 0: unknown
  std::string message;
};

using CancelFlag = std::shared_ptr<std::atomic<bool>>;
inline CancelFlag make_cancel_flag() { return std::make_shared<std::atomic<bool>>(false); }

struct CallOptions {
  // Overrides the skill's default deadline.
  std::optional<std::chrono::milliseconds> timeout;
  // Called from the thread the skill runs on; must be thread-safe and quick.
  std::function<void(const Progress&)> on_progress;
  // Set it to ask the skill to stop; the call then ends with kCancelled.
  CancelFlag cancel;
  // Validate the input and stop: the skill does not run.
  bool check_only = false;
  // Set by the executor for skill-to-skill calls.
  std::vector<std::string> chain;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Set by a caller that can lend its thread (the stdio reader): call_async may then run the
  // call on the calling thread, saving the hop to the pool, when the skill is in-process, not
  // serial, and has been quick so far. If the call overruns Options::inline_budget, this is
  // called once, from another thread and before `done`, so the caller can get on with other
  // work elsewhere; the skill then runs on the pool until it is quick again.
  std::function<void()> release_caller;
  // The caller reads Outcome::result_text only: when the output schema can judge the skill's
  // text without a DOM (schema::CompiledSchema::check_text), Outcome::result is left null.
  bool result_text_only = false;
  // The caller vouches that the input text is one JSON value as nlohmann reads it, starting at
  // its first byte (the MCP server scanned the whole message), so the schema check skips the
  // well-formedness pass. Leave it false for text from anywhere else.
  bool input_well_formed = false;
};

// What every call ends with, whichever way it came in.
struct Outcome {
  std::string skill;
  Code code = Code::kOk;
  nlohmann::json result;                      // the skill's result when code == kOk
  std::string message;                        // one actionable line when code != kOk
  std::vector<schema::Violation> violations;  // input violations (kInvalidArgument) or output
                                              // violations (kInternal)
  double elapsed_ms = 0;
  std::string result_text{};  // the JSON text the skill returned, when code == kOk
  bool ok() const { return code == Code::kOk; }
};

class Executor {
 public:
  struct Options {
    size_t pool_size = 0;  // 0: the number of cores
    std::chrono::milliseconds default_timeout{std::chrono::minutes(5)};
    std::chrono::milliseconds grace{std::chrono::seconds(2)};
    size_t max_depth = 8;
    // Per-skill deadlines from the host config; they replace what the skill declares.
    std::map<std::string, std::chrono::milliseconds, std::less<>> skill_timeouts;
    // How long a call may hold a lent caller thread (CallOptions::release_caller); 0: never
    // run on the caller's thread.
    std::chrono::microseconds inline_budget{2000};
  };
  using RouteFn = std::function<Result<nlohmann::json>(std::string_view text)>;

  Executor(const Registry& registry, Options options);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Runs a call and waits for its outcome.
  Outcome call(std::string_view skill, const nlohmann::json& input, CallOptions options = {});

  // Runs a call on the pool (or on the calling thread: see CallOptions::release_caller); `done`
  // is called exactly once.
  // `skill` (the name) need not outlive the call.
  void call_async(std::string_view skill, nlohmann::json input, CallOptions options,
                  std::function<void(Outcome&&)> done);

  // call_async() with the input as JSON text: checked against the input schema without a DOM
  // where the schema allows, and handed to the skill as it is. Text that is not JSON ends the
  // call with kInvalidArgument.
  // `found`, when the caller has looked the skill up already (registry().find(skill)), saves a
  // second lookup; it must be that name's skill. `input_text` need only stay valid until this
  // returns: a call on the caller's thread is over by then (released or not), and one that goes
  // to the pool takes a copy.
  void call_async_text(std::string_view skill, std::string_view input_text, CallOptions options,
                       std::function<void(Outcome&&)> done,
                       std::shared_ptr<const Skill> found = nullptr);

  // What route() from a plugin uses; without one, route() answers kUnavailable.
  void set_router(RouteFn route);

  const Registry& registry() const { return registry_; }

  // Runs the router set with set_router().
  Result<nlohmann::json> route_text(std::string_view text) const;

  // Runs a call on the calling thread (skill-to-skill calls from a pool thread); the deadline
  // is checked when the skill returns rather than enforced by a timer.
  Outcome call_inline(std::string_view skill, const nlohmann::json& input,
                      const CallOptions& options);

  struct Impl;

 private:
  struct AsyncState;
  struct SpareState;
  static SpareState& spare_state();
  // Keeps a finished inline call's state for this thread's next one, unless another holds it.
  static void keep_spare(SpareState& spare, std::shared_ptr<AsyncState> state);
  bool may_run_here(const Skill* skill, const CallOptions& options) const;
  // A call's input: the DOM, or (when `text` is not empty) the JSON text of it.
  struct Input {
    const nlohmann::json& value;
    std::string_view text;
  };
  // By reference: the public entry points own the arguments; each copy or move of CallOptions
  // (flags, functions, a chain) showed in a quick call's cost.
  // `input_text` is the caller's until this returns (see call_async_text()).
  void start_async(std::string_view name, std::shared_ptr<const Skill>&& skill,
                   nlohmann::json&& input, std::string_view input_text, CallOptions&& options,
                   std::function<void(Outcome&&)>&& done);
  // Takes what the call handle needs out of `options`, which the call owns. `here_done`: the
  // completion of a call run on the caller's thread, whose `state` may be a reused one; null for
  // a call on the pool, whose state was made for it with its completion.
  void run_async(const std::shared_ptr<AsyncState>& state, std::string_view name,
                 std::shared_ptr<const Skill> skill, const Input& input, CallOptions& options,
                 std::function<void(Outcome&&)>* here_done);
  // `skill` is looked up by name unless the caller found it already.
  std::optional<Outcome> prepare(std::string_view name, const Input& input,
                                 const CallOptions& options,
                                 std::shared_ptr<const Skill>& skill) const;
  // Fills `out`, which must be as a new Outcome is, except that its strings may hold capacity
  // from an earlier call: the result text trades buffers with the call handle's.
  void run_skill(const std::shared_ptr<const Skill>& skill, const Input& input, skillrt_call& call,
                 bool result_text_only, Outcome& out) const;
  // The call's deadline counted from `now`, its start.
  std::chrono::steady_clock::time_point deadline_for(
      const Skill& skill, const CallOptions& options,
      std::chrono::steady_clock::time_point now) const;
  // Moves the skill, cancel flag, caller chain and progress sink into the handle: each copy of
  // a shared pointer is an atomic operation, and a quick call is only a few microseconds.
  void fill_call(skillrt_call& call, std::shared_ptr<const Skill> skill, CallOptions&& options,
                 std::chrono::steady_clock::time_point deadline);

  const Registry& registry_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace skillrt::exec
