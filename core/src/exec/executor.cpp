#include "exec/executor.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "exec/detail/call.hpp"
#include "exec/detail/deadline_watcher.hpp"
#include "plugin/loader.hpp"

namespace skillrt::exec {

using Clock = std::chrono::steady_clock;

namespace {
// Set on pool threads: a blocking call made there (skill-to-skill) runs inline, since waiting
// for another pool thread could deadlock a small pool.
thread_local bool tl_on_pool = false;

// The largest result buffer a kept call state keeps for its next call.
constexpr size_t kMaxSpareText = 64 * 1024;

// Executors are told apart by a number never reused: a thread's spare call state may outlive
// the executor it last worked for, and another may be built at the same address.
std::atomic<uint64_t> next_executor_id{1};

// Back to a new Outcome's state; the strings keep their buffers.
void reset_outcome(Outcome& out) {
  out.skill.clear();
  out.code = Code::kOk;
  out.result = nullptr;
  out.message.clear();
  out.violations.clear();
  out.elapsed_ms = 0;
  out.result_text.clear();
}

std::string join_violations(const std::vector<schema::Violation>& violations) {
  std::string out;
  for (const auto& v : violations) {
    if (!out.empty()) out += "; ";
    out += v.message;
  }
  return out;
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}
}  // namespace

struct Executor::Impl {
  explicit Impl(Options o)
      : options(o),
        pool(o.pool_size == 0 ? std::max(2u, std::thread::hardware_concurrency()) : o.pool_size) {}
  const uint64_t id = next_executor_id.fetch_add(1, std::memory_order_relaxed);
  Options options;
  boost::asio::thread_pool pool;
  std::mutex serial_mutex;
  std::map<const Skill*, std::unique_ptr<std::mutex>> serial_locks;
  std::mutex route_mutex;
  RouteFn route;
  // Skills that overran the inline budget: they run on the pool until they are quick again.
  std::mutex slow_mutex;
  std::unordered_set<const Skill*> slow;
  // slow.size(), readable without the lock: the set is nearly always empty, and every call
  // asks it.
  std::atomic<size_t> slow_count{0};

  // Under slow_mutex.
  void mark_slow(const Skill* skill, bool is_slow) {
    if (is_slow) {
      slow.insert(skill);
    } else {
      slow.erase(skill);
    }
    slow_count.store(slow.size(), std::memory_order_release);
  }
  // Last, so it stops first: its callbacks use the members above.
  detail::DeadlineWatcher watcher;

  std::mutex* serial_lock_for(const Skill* skill) {
    std::lock_guard lock(serial_mutex);
    auto& m = serial_locks[skill];
    if (!m) m = std::make_unique<std::mutex>();
    return m.get();
  }
};

Executor::Executor(const Registry& registry, Options options)
    : registry_(registry), impl_(std::make_unique<Impl>(options)) {}

Executor::~Executor() {
  // Late results of skills that missed their deadline still hold pool threads; wait for them so
  // nothing runs after the registry is gone.
  impl_->pool.join();
}

void Executor::set_router(RouteFn route) {
  std::lock_guard lock(impl_->route_mutex);
  impl_->route = std::move(route);
}

Result<nlohmann::json> Executor::route_text(std::string_view text) const {
  RouteFn route;
  {
    std::lock_guard lock(impl_->route_mutex);
    route = impl_->route;
  }
  if (!route) return fail(Code::kUnavailable, "this host has no router: start it with skills/");
  return route(text);
}

// Everything before the skill runs: lookup, depth, input validation. Returns an outcome when the
// call ends there.
std::optional<Outcome> Executor::prepare(std::string_view name, const Input& input,
                                         const CallOptions& options,
                                         std::shared_ptr<const Skill>& skill) const {
  // Built only when the call ends here; nearly every call goes on.
  const auto ended = [&name] {
    Outcome out;
    out.skill = std::string(name);
    return out;
  };
  if (!skill) skill = registry_.find(name);
  if (!skill) {
    Outcome out = ended();
    out.code = Code::kNotFound;
    out.message = registry_.not_found_message(name);
    return out;
  }
  if (options.chain.size() >= impl_->options.max_depth) {
    Outcome out = ended();
    std::string chain;
    for (const auto& c : options.chain) chain += c + " -> ";
    out.code = Code::kResourceExhausted;
    out.message = "skill call depth limit " + std::to_string(impl_->options.max_depth) +
                  " reached: " + chain + std::string(name) + "; break the call loop";
    return out;
  }
  std::vector<schema::Violation> violations;
  if (input.text.empty()) {
    violations = skill->input_schema->validate(input.value);
  } else if ((options.input_well_formed
                  ? skill->input_schema->check_well_formed_text(input.text)
                  : skill->input_schema->check_text(input.text)) != schema::TextVerdict::kValid) {
    // Rejected, or beyond what the text check covers: the DOM decides and phrases the faults.
    const auto value = nlohmann::json::parse(input.text, nullptr, false);
    if (value.is_discarded()) {
      Outcome out = ended();
      out.code = Code::kInvalidArgument;
      out.message = "input for skill '" + skill->name +
                    "' is not valid JSON in UTF-8; send one JSON object (see `skillrt describe " +
                    skill->name + "`)";
      return out;
    }
    violations = skill->input_schema->validate(value);
  }
  if (!violations.empty()) {
    Outcome out = ended();
    out.code = Code::kInvalidArgument;
    out.message = "input for skill '" + skill->name +
                  "' does not match its schema: " + join_violations(violations) +
                  " (see `skillrt describe " + skill->name + "`)";
    out.violations = std::move(violations);
    return out;
  }
  if (options.check_only) {
    Outcome out = ended();
    out.result = nlohmann::json{{"valid", true}};
    return out;
  }
  return std::nullopt;
}

void Executor::run_skill(const std::shared_ptr<const Skill>& skill, const Input& input,
                         skillrt_call& call, bool result_text_only, Outcome& out) const {
  out.skill = skill->name;
  std::string dumped;
  std::string_view text = input.text;
  if (text.empty()) {
    dumped = input.value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text = dumped;
  }
  int32_t rc = SKILLRT_INTERNAL;
  {
    std::unique_lock<std::mutex> serial;
    if (skill->flags & SKILLRT_SKILL_SERIAL) {
      serial = std::unique_lock(*impl_->serial_lock_for(skill.get()));
    }
    rc = skill->invoke(skill->state, &call, skillrt_str{text.data(), text.size()});
  }
  // Read without the handle's lock: the ABI allows its functions only until invoke returns, so a
  // skill that wrote from threads of its own synchronized with them before returning.
  if (rc != SKILLRT_OK || call.error_code != SKILLRT_OK) {
    const int32_t code = call.error_code != SKILLRT_OK ? call.error_code : rc;
    out.code = code_from_int(code);
    if (out.code == Code::kOk) out.code = Code::kUnknown;
    // A fault (not an error the skill chose to report) names its plugin, unless the worker's
    // message already does.
    const bool fault = out.code == Code::kInternal || out.code == Code::kResourceExhausted ||
                       out.code == Code::kUnknown;
    const bool named =
        call.error_message.find("plugin '" + skill->plugin + "'") != std::string::npos;
    out.message = "skill '" + skill->name + "'" +
                  (fault && !named ? " of plugin '" + skill->plugin + "'" : std::string()) +
                  " failed: " +
                  (call.error_message.empty() ? code_name(out.code) + " with no message"
                                              : call.error_message);
    return;
  }
  if (!call.has_result) {
    out.code = Code::kInternal;
    out.message = "skill '" + skill->name + "' of plugin '" + skill->plugin +
                  "' returned success without a result: a plugin bug, report it to its authors";
    return;
  }
  if (result_text_only &&
      skill->output_schema->check_text(call.result) == schema::TextVerdict::kValid) {
    // Swapped, not moved: the handle keeps a buffer for the next result written into it.
    out.result_text.swap(call.result);
    return;
  }
  try {
    out.result = nlohmann::json::parse(call.result);
  } catch (const nlohmann::json::parse_error& e) {
    out.code = Code::kInternal;
    out.message = "skill '" + skill->name + "' of plugin '" + skill->plugin +
                  "' returned invalid JSON (" + e.what() + "): a plugin bug, report it";
    return;
  }
  auto violations = skill->output_schema->validate(out.result);
  if (!violations.empty()) {
    out.code = Code::kInternal;
    out.message =
        "skill '" + skill->name + "' of plugin '" + skill->plugin + "' (" + skill->plugin_file +
        ") returned output that violates its output schema: " + join_violations(violations) +
        "; this is a plugin bug: report it to its authors";
    out.violations = std::move(violations);
    out.result = nullptr;
    spdlog::error("{}", out.message);
    return;
  }
  out.result_text.swap(call.result);
}

Clock::time_point Executor::deadline_for(const Skill& skill, const CallOptions& options,
                                         Clock::time_point now) const {
  std::chrono::milliseconds timeout = impl_->options.default_timeout;
  if (skill.default_timeout_ms > 0) timeout = std::chrono::milliseconds(skill.default_timeout_ms);
  if (auto it = impl_->options.skill_timeouts.find(skill.name);
      it != impl_->options.skill_timeouts.end()) {
    timeout = it->second;
  }
  if (options.timeout) timeout = *options.timeout;
  auto deadline = now + timeout;
  if (options.deadline && *options.deadline < deadline) deadline = *options.deadline;
  return deadline;
}

void Executor::fill_call(skillrt_call& call, std::shared_ptr<const Skill> skill,
                         CallOptions&& options, Clock::time_point deadline) {
  call.executor = this;
  call.skill = std::move(skill);
  call.cancel = options.cancel ? std::move(options.cancel) : make_cancel_flag();
  call.deadline = deadline;
  call.callers = std::move(options.chain);
  call.on_progress = std::move(options.on_progress);
}

Outcome Executor::call_inline(std::string_view name, const nlohmann::json& input,
                              const CallOptions& options) {
  const auto start = Clock::now();
  std::shared_ptr<const Skill> skill;
  const Input in{input, {}};
  if (auto early = prepare(name, in, options, skill)) {
    early->elapsed_ms = ms_since(start);
    return *early;
  }
  const auto deadline = deadline_for(*skill, options, start);
  skillrt_call call;
  fill_call(call, skill, CallOptions(options), deadline);
  Outcome out;
  run_skill(skill, in, call, options.result_text_only, out);
  if (call.cancel->load()) {
    out = Outcome{skill->name, Code::kCancelled,
                  nullptr,     "call to skill '" + skill->name + "' was cancelled",
                  {},          0};
  } else if (Clock::now() > deadline) {
    out = Outcome{skill->name, Code::kDeadlineExceeded,
                  nullptr,     "skill '" + skill->name + "' missed its deadline",
                  {},          0};
  }
  out.elapsed_ms = ms_since(start);
  return out;
}

Outcome Executor::call(std::string_view skill, const nlohmann::json& input, CallOptions options) {
  if (tl_on_pool) return call_inline(skill, input, options);
  std::promise<Outcome> promise;
  auto future = promise.get_future();
  call_async(skill, input, std::move(options),
             [&promise](Outcome o) { promise.set_value(std::move(o)); });
  return future.get();
}

// Shared between the worker, the deadline watcher and the caller: whoever finishes first wins.
// It is also the call's one entry on the watcher, which moves through the phases below; one
// allocation holds the call handle and the timer, so a quick call allocates nothing more here.
struct Executor::AsyncState final : detail::DeadlineWatcher::Target,
                                    std::enable_shared_from_this<AsyncState> {
  enum class Phase {
    kIdle,      // no call running (a reused state between two calls): nothing to do when due
    kBudget,    // running on a lent caller thread: at the end of the budget, release the caller
    kDeadline,  // at the deadline, tell the skill to stop
    kGrace,     // at the end of the grace period, fail the call and drop the late result
  };

  AsyncState(Executor::Impl& owner, std::function<void(Outcome&&)> done_fn)
      : impl(&owner), owner_id(owner.id), done(std::move(done_fn)) {}

  Executor::Impl* impl;
  // impl->id: a kept state is reused only by the executor whose watcher may still hold it.
  uint64_t owner_id;
  std::mutex mutex;
  bool completed = false;
  std::function<void(Outcome&&)> done;
  Clock::time_point start = Clock::now();
  skillrt_call call;
  // The call's outcome, filled by run_skill() on the calling thread. Kept with the state, so a
  // reused state's strings keep their buffers: a quick call allocates neither its skill name nor
  // (through the swap in run_skill()) its result.
  Outcome outcome;
  // Guarded by `mutex` from the moment the timer is first armed. On a state reused by a lent
  // caller thread the entry outlives the call that armed it (see run_async()).
  std::optional<detail::DeadlineWatcher::Ticket> timer;
  Phase phase = Phase::kIdle;
  Clock::time_point deadline;
  Clock::time_point budget_end;
  // The caller's, while the call runs on its thread; used only in kBudget before completion,
  // when that thread is still inside the call (complete() takes `mutex` first).
  const std::function<void()>* release = nullptr;

  // Under `mutex`.
  void arm_locked(Phase next, Clock::time_point when) {
    phase = next;
    timer = impl->watcher.arm(when, shared_from_this());
  }

  void on_due() override {
    std::unique_lock lock(mutex);
    const auto now = Clock::now();
    // An entry replaced by one due later (a call of this thread with a sooner deadline armed
    // anew while this one was coming due) leaves the work to that one.
    if (timer && timer->when > now) return;
    timer.reset();  // it ran
    if (completed) return;
    switch (phase) {
      case Phase::kIdle:
        return;
      case Phase::kBudget:
        if (const auto due = std::min(deadline, budget_end); now < due) {
          // Armed for an earlier call of this thread: the one running now is watched from here.
          arm_locked(Phase::kBudget, due);
          return;
        }
        if (now >= budget_end) {
          std::lock_guard slow_lock(impl->slow_mutex);
          impl->mark_slow(call.skill.get(), true);
        }
        arm_locked(Phase::kDeadline, deadline);
        (*release)();
        return;
      case Phase::kDeadline:
        // First the skill is told to stop; if it has not returned within the grace period,
        // the caller gets the deadline error and whatever the skill returns later is dropped.
        call.deadline_hit.store(true);
        arm_locked(Phase::kGrace, Clock::now() + impl->options.grace);
        return;
      case Phase::kGrace:
        break;
    }
    lock.unlock();
    const Skill& skill = *call.skill;
    Outcome late;
    late.skill = skill.name;
    late.code = Code::kDeadlineExceeded;
    late.message = "skill '" + skill.name + "' of plugin '" + skill.plugin +
                   "' missed its deadline and did not stop within the " +
                   std::to_string(impl->options.grace.count()) +
                   " ms grace period; its late result will be dropped: raise the timeout or "
                   "narrow the input";
    complete(std::move(late));
  }

  // `end`: when the call ended, for its elapsed time (the caller usually read the clock already).
  void complete(Outcome&& out, Clock::time_point end = Clock::now()) {
    std::function<void(Outcome &&)> fn;
    {
      std::lock_guard lock(mutex);
      if (completed) return;
      completed = true;
      fn = std::move(done);
      if (phase == Phase::kBudget) {
        // Ended within its budget on the caller's thread: the entry stays armed for that
        // thread's next call on this state, so a stream of quick calls arms about once per
        // budget instead of arming and disarming every call.
        phase = Phase::kIdle;
      } else {
        if (timer) impl->watcher.disarm(*timer);
        timer.reset();
      }
    }
    out.elapsed_ms = std::chrono::duration<double, std::milli>(end - start).count();
    fn(std::move(out));
  }
};

// The state of this thread's last inline call, kept for its next one: a quick call then neither
// allocates nor builds its state (its mutex, call handle and std::function) afresh. Only the
// executor it last worked for takes it again: that executor's watcher may still hold it through
// the entry its last call left armed. Holds no skill, flag or callback while kept.
struct Executor::SpareState {
  std::shared_ptr<AsyncState> state;
};

Executor::SpareState& Executor::spare_state() {
  thread_local SpareState spare;
  return spare;
}

void Executor::keep_spare(SpareState& spare, std::shared_ptr<AsyncState> state) {
  std::lock_guard lock(state->mutex);
  // Besides this thread, only an entry left armed on the watcher may hold it (one reference,
  // in the watcher's map or in on_due(), which waits for this lock and then finds kIdle). Any
  // other holder (on_due() of an entry already gone, a late pool task) may still use it.
  const long watcher_holds = state->timer ? 1 : 0;
  if (state.use_count() != 1 + watcher_holds) return;
  state->call.reset();
  state->done = nullptr;
  // A buffer grown for a large result is not kept.
  if (state->outcome.result_text.capacity() > kMaxSpareText) state->outcome.result_text = {};
  // The lock is in the state, which `spare` keeps alive.
  spare.state = std::move(state);
}

bool Executor::may_run_here(const Skill* skill, const CallOptions& options) const {
  if (!options.release_caller || impl_->options.inline_budget.count() <= 0) return false;
  if (!skill) return true;  // answered at once
  // A serial skill could wait on its lock, an isolated one waits on its worker process (where
  // calls in flight overlap when they come from the pool), and a skill found slow would hold
  // the caller up.
  if ((skill->flags & SKILLRT_SKILL_SERIAL) != 0 || skill->isolated) return false;
  if (impl_->slow_count.load(std::memory_order_acquire) == 0) return true;
  std::lock_guard lock(impl_->slow_mutex);
  return !impl_->slow.contains(skill);
}

void Executor::call_async(std::string_view name, nlohmann::json input, CallOptions options,
                          std::function<void(Outcome&&)> done) {
  start_async(name, nullptr, std::move(input), {}, std::move(options), std::move(done));
}

void Executor::call_async_text(std::string_view name, std::string_view input_text,
                               CallOptions options, std::function<void(Outcome&&)> done,
                               std::shared_ptr<const Skill> found) {
  if (input_text.empty()) input_text = "{}";
  start_async(name, std::move(found), nlohmann::json(), input_text, std::move(options),
              std::move(done));
}

void Executor::start_async(std::string_view name, std::shared_ptr<const Skill>&& skill,
                           nlohmann::json&& input, std::string_view input_text,
                           CallOptions&& options, std::function<void(Outcome&&)>&& done) {
  // Looked up once here for the whole call, unless the caller did.
  if (!skill) skill = registry_.find(name);
  if (may_run_here(skill.get(), options)) {
    // On the caller's thread: no hop to the pool and back. Should the skill overrun its budget,
    // the caller is released (it gets on with its other work) and the skill goes to the pool
    // from then on.
    SpareState& spare = spare_state();
    std::shared_ptr<AsyncState> state;
    // A state another executor left may still sit on that executor's watcher: not reused.
    if (spare.state && spare.state->owner_id == impl_->id) {
      state = std::move(spare.state);
    } else {
      state = std::make_shared<AsyncState>(*impl_, nullptr);
    }
    const bool was_on_pool = tl_on_pool;
    tl_on_pool = true;
    run_async(state, name, std::move(skill), Input{input, input_text}, options, &done);
    tl_on_pool = was_on_pool;
    keep_spare(spare, std::move(state));
    return;
  }
  auto state = std::make_shared<AsyncState>(*impl_, std::move(done));
  // The text is the caller's only until this function returns: the pool's copy is its own.
  boost::asio::post(impl_->pool, [this, state, name = std::string(name), skill = std::move(skill),
                                  input = std::move(input), input_text = std::string(input_text),
                                  options = std::move(options)]() mutable {
    tl_on_pool = true;
    run_async(state, name, std::move(skill), Input{input, input_text}, options, nullptr);
  });
}

void Executor::run_async(const std::shared_ptr<AsyncState>& state, std::string_view name,
                         std::shared_ptr<const Skill> found, const Input& input,
                         CallOptions& options, std::function<void(Outcome&&)>* here_done) {
  // On the caller's thread the state may be one an earlier call of this thread left: it is made
  // this call's (start, completion, callback) in the one locked section that also arms it.
  const bool here = here_done != nullptr;
  const Clock::time_point start = here ? Clock::now() : state->start;
  if (auto early = prepare(name, input, options, found)) {
    if (here) {
      // Not armed for this call, so nothing else can complete it.
      early->elapsed_ms = ms_since(start);
      (*here_done)(std::move(*early));
      return;
    }
    state->complete(std::move(*early));
    return;
  }
  const auto deadline = deadline_for(*found, options, start);
  skillrt_call& call = state->call;
  const bool result_text_only = options.result_text_only;
  fill_call(call, std::move(found), std::move(options), deadline);
  // `options` has given its flags and chain to the handle; the release function stays.
  const std::shared_ptr<const Skill>& skill = call.skill;
  {
    std::lock_guard lock(state->mutex);
    state->deadline = deadline;
    if (!here) {
      state->arm_locked(AsyncState::Phase::kDeadline, deadline);
    } else {
      state->completed = false;
      state->done = std::move(*here_done);
      state->start = start;
      // On the caller's thread: at the end of the budget (or at the deadline, if sooner) the
      // caller is released and the deadline is armed as for a pool call. One entry on the
      // watcher at a time either way.
      state->budget_end = start + impl_->options.inline_budget;
      state->release = &options.release_caller;
      state->phase = AsyncState::Phase::kBudget;
      // An entry an earlier call of this thread left armed stays if it comes due no later than
      // this call's: on_due() then arms it for the call running at that time.
      const auto due = std::min(deadline, state->budget_end);
      if (!state->timer || state->timer->when > due) {
        if (state->timer) impl_->watcher.disarm(*state->timer);
        state->arm_locked(AsyncState::Phase::kBudget, due);
      }
    }
  }
  // In place, not moved in and out: each move of an Outcome cost about a hundred instructions.
  Outcome& out = state->outcome;
  reset_outcome(out);
  run_skill(skill, input, call, result_text_only, out);
  const auto end = Clock::now();
  if (call.cancel->load()) {
    out = Outcome{skill->name, Code::kCancelled,
                  nullptr,     "call to skill '" + skill->name + "' was cancelled",
                  {},          0};
  } else if (call.deadline_hit.load() || end > deadline) {
    out = Outcome{skill->name,
                  Code::kDeadlineExceeded,
                  nullptr,
                  "skill '" + skill->name + "' of plugin '" + skill->plugin +
                      "' missed its deadline: raise the timeout or narrow the input",
                  {},
                  0};
  } else if (!here && out.ok() && impl_->slow_count.load(std::memory_order_acquire) != 0 &&
             end - state->start < impl_->options.inline_budget / 2) {
    // Quick again: it may run on its caller's thread next time.
    std::lock_guard slow_lock(impl_->slow_mutex);
    impl_->mark_slow(skill.get(), false);
  }
  state->complete(std::move(out), end);
}

}  // namespace skillrt::exec
