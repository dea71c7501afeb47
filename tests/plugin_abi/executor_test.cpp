// The one call path: validation, failures, deadlines, cancellation, progress, nesting.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <mutex>
#include <set>

#include "exec/executor.hpp"
#include "fixture_host.hpp"

using skillrt::Code;
using skillrt::exec::CallOptions;
using skillrt::exec::Executor;
using skillrt::exec::Outcome;
using Json = nlohmann::json;

namespace {

using Host = skillrt::testing::FixtureHost;

Executor::Options fast_deadlines() {
  Executor::Options o;
  o.pool_size = 4;
  o.grace = std::chrono::milliseconds(100);
  return o;
}

}  // namespace

TEST_CASE("a call returns the skill's result", "[exec]") {
  Host h;
  Outcome out = h.executor.call("fx-echo", Json{{"a", 1}});
  REQUIRE(out.ok());
  CHECK(out.result == Json{{"a", 1}});
  CHECK(out.skill == "fx-echo");
}

TEST_CASE("invalid input never reaches the skill and lists every violation", "[exec][schema]") {
  Host h;
  Outcome out =
      h.executor.call("fx-strict", Json{{"options", {{"max_prs", 1000}}}, {"extra", true}});
  CHECK(out.code == Code::kInvalidArgument);
  std::set<std::string> pointers;
  for (const auto& v : out.violations) pointers.insert(v.pointer);
  CHECK(pointers.count("/options/max_prs") == 1);
  CHECK(pointers.count("/extra") == 1);
  CHECK(out.violations.size() >= 3);  // missing name, max_prs, extra
  CHECK(out.message.starts_with("input for skill 'fx-strict' does not match its schema: "));
}

TEST_CASE("check-only validates without running", "[exec]") {
  Host h;
  CallOptions o;
  o.check_only = true;
  Outcome out = h.executor.call("fx-throw", Json::object(), o);
  REQUIRE(out.ok());
  CHECK(out.result == Json{{"valid", true}});
}

TEST_CASE("an unknown skill suggests near names", "[exec]") {
  Host h;
  Outcome out = h.executor.call("fx-ech", Json::object());
  CHECK(out.code == Code::kNotFound);
  CHECK(out.message ==
        "unknown skill 'fx-ech'; did you mean 'fx-echo'? Run `skillrt list` to see every skill.");
}

TEST_CASE("a throwing skill is contained and reported", "[exec]") {
  Host h;
  Outcome out = h.executor.call("fx-throw", Json::object());
  CHECK(out.code == Code::kInternal);
  CHECK(out.message ==
        "skill 'fx-throw' of plugin 'fx-behaviours' failed: unhandled exception: boom");
  // The next call works.
  CHECK(h.executor.call("fx-echo", Json::object()).ok());
}

TEST_CASE("a skill's own error keeps its code and message", "[exec]") {
  Host h;
  Outcome out = h.executor.call("fx-fail", Json::object());
  CHECK(out.code == Code::kFailedPrecondition);
  CHECK(out.message == "skill 'fx-fail' failed: checkout /nowhere not found: pass an existing path");
}

TEST_CASE("output that violates the output schema is an internal error naming the plugin",
          "[exec][schema]") {
  Host h;
  Outcome out = h.executor.call("fx-bad-output", Json::object());
  CHECK(out.code == Code::kInternal);
  CHECK(out.result.is_null());
  REQUIRE_FALSE(out.violations.empty());
  CHECK(out.violations[0].pointer == "/count");
  CHECK(out.message.starts_with(
      "skill 'fx-bad-output' of plugin 'fx-behaviours' (" +
      std::filesystem::weakly_canonical(SKILLRT_BINARY_DIR
                                        "/tests/fixtures/behaviours/fx-behaviours.so")
          .string() +
      ") returned output that violates its output schema: "));
}

TEST_CASE("a skill that honours cancellation stops at its deadline", "[exec][deadline]") {
  Host h(fast_deadlines());
  CallOptions o;
  o.timeout = std::chrono::milliseconds(30);
  Outcome out = h.executor.call("fx-sleep", Json{{"ms", 5000}}, o);
  CHECK(out.code == Code::kDeadlineExceeded);
  CHECK(out.elapsed_ms < 5000);
}

TEST_CASE("a skill that ignores cancellation: the caller gets the deadline error after the grace",
          "[exec][deadline]") {
  Host h(fast_deadlines());
  CallOptions o;
  o.timeout = std::chrono::milliseconds(30);
  Outcome out = h.executor.call("fx-stuck", Json{{"ms", 3000}}, o);
  CHECK(out.code == Code::kDeadlineExceeded);
  CHECK(out.message.find("did not stop within the 100 ms grace period") != std::string::npos);
  CHECK(out.elapsed_ms < 3000);  // the late result is not waited for
  // The pool still serves other calls.
  CHECK(h.executor.call("fx-echo", Json::object()).ok());
}

TEST_CASE("cancellation from the caller", "[exec]") {
  Host h(fast_deadlines());
  CallOptions o;
  o.cancel = skillrt::exec::make_cancel_flag();
  auto flag = o.cancel;
  std::promise<Outcome> p;
  h.executor.call_async("fx-sleep", Json{{"ms", 5000}}, o,
                        [&p](Outcome out) { p.set_value(std::move(out)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  flag->store(true);
  Outcome out = p.get_future().get();
  CHECK(out.code == Code::kCancelled);
}

TEST_CASE("progress reports reach the caller", "[exec]") {
  Host h;
  std::mutex m;
  std::vector<skillrt::exec::Progress> seen;
  CallOptions o;
  o.on_progress = [&](const skillrt::exec::Progress& p) {
    std::lock_guard lock(m);
    seen.push_back(p);
  };
  REQUIRE(h.executor.call("fx-progress", Json{{"steps", 4}}, o).ok());
  REQUIRE(seen.size() == 4);
  CHECK(seen.back().done == 4);
  CHECK(seen.back().total == 4);
  CHECK(seen.back().message == "step 4");
}

TEST_CASE("skill-to-skill calls go through validation", "[exec][nested]") {
  Host h;
  Outcome ok = h.executor.call("fx-call", Json{{"target", "fx-echo"}, {"input", {{"x", 2}}}});
  REQUIRE(ok.ok());
  CHECK(ok.result == Json{{"callee", {{"x", 2}}}});

  Outcome bad = h.executor.call("fx-call", Json{{"target", "fx-strict"}, {"input", {{"y", 1}}}});
  CHECK(bad.code == Code::kInvalidArgument);
  CHECK(bad.message.find("input for skill 'fx-strict' does not match its schema") !=
        std::string::npos);

  Outcome missing = h.executor.call("fx-call", Json{{"target", "nope"}, {"input", Json::object()}});
  CHECK(missing.code == Code::kNotFound);
}

TEST_CASE("a call loop stops at the depth limit with the chain named", "[exec][nested]") {
  Host h;
  Outcome out = h.executor.call("fx-recurse", Json::object());
  CHECK(out.code == Code::kResourceExhausted);
  CHECK(out.message.find("skill call depth limit 8 reached: fx-recurse -> fx-recurse -> "
                         "fx-recurse -> fx-recurse -> fx-recurse -> fx-recurse -> fx-recurse -> "
                         "fx-recurse -> fx-recurse; break the call loop") != std::string::npos);
}

TEST_CASE("serial skills never run concurrently; every async call completes once",
          "[exec][concurrency]") {
  Host h(fast_deadlines());
  constexpr int kCalls = 6;
  std::atomic<int> completions{0};
  std::atomic<int> max_seen{0};
  std::atomic<int> failures{0};
  std::promise<void> all;
  for (int i = 0; i < kCalls; ++i) {
    h.executor.call_async("fx-serial", Json::object(), {}, [&](Outcome out) {
      // Catch2 assertions are not thread-safe: count here, check on the test thread.
      if (!out.ok()) ++failures;
      int c = out.ok() ? out.result.at("concurrent").get<int>() : 0;
      int prev = max_seen.load();
      while (c > prev && !max_seen.compare_exchange_weak(prev, c)) {
      }
      if (++completions == kCalls) all.set_value();
    });
  }
  all.get_future().get();
  CHECK(completions == kCalls);
  CHECK(failures == 0);
  CHECK(max_seen == 1);
}
