// Calls on a caller's lent thread (CallOptions::release_caller): quick ones run there, a slow
// one releases the caller and sends its skill to the pool, and deadlines hold either way.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <thread>

#include "exec/executor.hpp"
#include "fixture_host.hpp"

using skillrt::Code;
using skillrt::exec::CallOptions;
using skillrt::exec::Executor;
using skillrt::exec::Outcome;
using Json = nlohmann::json;

namespace {

using Host = skillrt::testing::FixtureHost;

Executor::Options options() {
  Executor::Options o;
  o.pool_size = 2;
  o.grace = std::chrono::milliseconds(100);
  return o;
}

struct Seen {
  std::promise<Outcome> outcome;
  std::promise<std::thread::id> thread;
};

// Starts a call with a lent caller thread; `done` records where it completed.
void start(Executor& executor, const std::string& skill, const Json& input, CallOptions o,
           std::atomic<int>& releases, Seen& seen) {
  o.release_caller = [&releases] { ++releases; };
  executor.call_async(skill, input, std::move(o), [&seen](Outcome out) {
    seen.thread.set_value(std::this_thread::get_id());
    seen.outcome.set_value(std::move(out));
  });
}

}  // namespace

TEST_CASE("a quick call runs on the lent caller thread and never releases it", "[exec][inline]") {
  Executor::Options o = options();
  o.inline_budget = std::chrono::minutes(1);  // however loaded the machine, fx-echo is in time
  Host h(o);
  std::atomic<int> releases{0};
  Seen seen;
  start(h.executor, "fx-echo", Json{{"a", 1}}, {}, releases, seen);
  // Done before call_async returned, on this thread.
  auto thread = seen.thread.get_future();
  REQUIRE(thread.wait_for(std::chrono::seconds(0)) == std::future_status::ready);
  CHECK(thread.get() == std::this_thread::get_id());
  CHECK(seen.outcome.get_future().get().result == Json{{"a", 1}});
  CHECK(releases == 0);
}

TEST_CASE("without a lent thread every call goes to the pool", "[exec][inline]") {
  Host h(options());
  std::promise<std::thread::id> where;
  h.executor.call_async("fx-echo", Json::object(), {},
                        [&where](Outcome) { where.set_value(std::this_thread::get_id()); });
  CHECK(where.get_future().get() != std::this_thread::get_id());
}

TEST_CASE("a slow call releases the caller once, and its skill then runs on the pool",
          "[exec][inline]") {
  Host h(options());
  std::atomic<int> releases{0};
  Seen slow;
  start(h.executor, "fx-sleep", Json{{"ms", 300}}, {}, releases, slow);
  const Outcome out = slow.outcome.get_future().get();
  CHECK(out.ok());
  CHECK(releases == 1);
  CHECK(slow.thread.get_future().get() == std::this_thread::get_id());

  Seen next;
  start(h.executor, "fx-sleep", Json{{"ms", 10}}, {}, releases, next);
  CHECK(next.thread.get_future().get() != std::this_thread::get_id());
  CHECK(next.outcome.get_future().get().ok());
  CHECK(releases == 1);  // a pool call never calls it
}

TEST_CASE("a call on the caller's thread that ignores its deadline still ends after the grace",
          "[exec][inline][deadline]") {
  Host h(options());
  std::atomic<int> releases{0};
  Seen seen;
  CallOptions o;
  o.timeout = std::chrono::milliseconds(30);
  auto outcome = seen.outcome.get_future();
  // The caller's thread stays inside the skill for 1.5 s; the deadline error comes from
  // elsewhere long before.
  start(h.executor, "fx-stuck", Json{{"ms", 1500}}, o, releases, seen);
  const Outcome out = outcome.get();
  CHECK(out.code == Code::kDeadlineExceeded);
  CHECK(out.message.find("did not stop within the 100 ms grace period") != std::string::npos);
  CHECK(out.elapsed_ms < 1500);
  CHECK(seen.thread.get_future().get() != std::this_thread::get_id());
  CHECK(releases == 1);
}

TEST_CASE("serial skills never run on the caller's thread", "[exec][inline]") {
  Host h(options());
  std::atomic<int> releases{0};
  Seen seen;
  start(h.executor, "fx-serial", Json::object(), {}, releases, seen);
  CHECK(seen.thread.get_future().get() != std::this_thread::get_id());
  CHECK(seen.outcome.get_future().get().ok());
}

TEST_CASE("a deadline sooner than the budget also releases the caller of a stuck call",
          "[exec][inline][deadline]") {
  Executor::Options o = options();
  o.inline_budget = std::chrono::minutes(1);
  Host h(o);
  std::atomic<int> releases{0};
  Seen seen;
  CallOptions call;
  call.timeout = std::chrono::milliseconds(30);
  auto outcome = seen.outcome.get_future();
  start(h.executor, "fx-stuck", Json{{"ms", 1500}}, call, releases, seen);
  CHECK(outcome.get().code == Code::kDeadlineExceeded);
  CHECK(releases == 1);
  // Not found slow: only a missed budget sends a skill to the pool.
  Seen next;
  start(h.executor, "fx-stuck", Json{{"ms", 0}}, {}, releases, next);
  CHECK(next.thread.get_future().get() == std::this_thread::get_id());
}

// Quick calls on one thread share the watcher entry the first of them armed (it is armed again
// only when it comes due); a slow call after them must still be released at the end of its own
// budget, a call with a sooner deadline stopped at it, and another executor's calls on the same
// thread watched by that executor.
TEST_CASE("quick calls in a row leave the watch of a later slow or stuck call intact",
          "[exec][inline][deadline]") {
  const auto quick_calls = [](Executor& executor, std::atomic<int>& releases) {
    for (int i = 0; i < 500; ++i) {
      Seen quick;
      start(executor, "fx-echo", Json{{"i", i}}, {}, releases, quick);
      REQUIRE(quick.outcome.get_future().get().result == Json{{"i", i}});
    }
  };
  {
    Executor::Options o = options();
    o.inline_budget = std::chrono::milliseconds(20);
    Host h(o);
    std::atomic<int> releases{0};
    quick_calls(h.executor, releases);
    CHECK(releases == 0);
    Seen slow;
    start(h.executor, "fx-sleep", Json{{"ms", 300}}, {}, releases, slow);
    CHECK(slow.outcome.get_future().get().ok());
    CHECK(releases == 1);
    CHECK(slow.thread.get_future().get() == std::this_thread::get_id());
    // Another executor on this thread: the state the first one left is not reused.
    Host other(o);
    std::atomic<int> other_releases{0};
    quick_calls(other.executor, other_releases);
    Seen other_slow;
    start(other.executor, "fx-sleep", Json{{"ms", 300}}, {}, other_releases, other_slow);
    CHECK(other_slow.outcome.get_future().get().ok());
    CHECK(other_releases == 1);
  }
  {
    Executor::Options o = options();
    o.inline_budget = std::chrono::minutes(1);  // the entry the quick calls leave is due late
    Host h(o);
    std::atomic<int> releases{0};
    quick_calls(h.executor, releases);
    CallOptions call;
    call.timeout = std::chrono::milliseconds(30);
    Seen stuck;
    auto outcome = stuck.outcome.get_future();
    start(h.executor, "fx-stuck", Json{{"ms", 1500}}, call, releases, stuck);
    const Outcome out = outcome.get();
    CHECK(out.code == Code::kDeadlineExceeded);
    CHECK(out.elapsed_ms < 1500);
    CHECK(releases == 1);
  }
}
