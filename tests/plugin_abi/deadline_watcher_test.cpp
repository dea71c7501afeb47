// The executor's deadline thread: entries run at their time, disarmed ones never, and quick
// calls (armed, then disarmed before the thread has even woken) do not wake it once each.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "exec/detail/deadline_watcher.hpp"

using skillrt::exec::detail::DeadlineWatcher;
using Clock = DeadlineWatcher::Clock;
using namespace std::chrono_literals;

namespace {
// Runs a function when due: the watcher itself only takes targets.
class FunctionTarget final : public DeadlineWatcher::Target {
 public:
  explicit FunctionTarget(std::function<void()> fn) : fn_(std::move(fn)) {}
  void on_due() override { fn_(); }

 private:
  std::function<void()> fn_;
};

DeadlineWatcher::Ticket arm(DeadlineWatcher& watcher, Clock::time_point when,
                            std::function<void()> fn) {
  return watcher.arm(when, std::make_shared<FunctionTarget>(std::move(fn)));
}
}  // namespace

TEST_CASE("DeadlineWatcher: an entry runs at its time; a disarmed one never runs") {
  DeadlineWatcher watcher;
  std::atomic<int> ran{0};
  std::atomic<int> dropped{0};
  const auto start = Clock::now();
  std::atomic<Clock::time_point> ran_at{};
  arm(watcher, start + 20ms, [&] {
    ran_at = Clock::now();
    ++ran;
  });
  const auto ticket = arm(watcher, start + 10ms, [&] { ++dropped; });
  watcher.disarm(ticket);
  watcher.disarm(ticket);  // twice: no effect
  const auto give_up = Clock::now() + 5s;
  while (ran == 0 && Clock::now() < give_up) std::this_thread::sleep_for(1ms);
  CHECK(ran == 1);
  CHECK(dropped == 0);
  CHECK(ran_at.load() >= start + 20ms);
}

TEST_CASE("DeadlineWatcher: calls that end before their deadline do not wake it each time") {
  DeadlineWatcher watcher;
  std::this_thread::sleep_for(5ms);  // let the thread reach its first wait
  const uint64_t before = watcher.wakes();
  constexpr int kCalls = 1000;
  const auto start = Clock::now();
  for (int i = 0; i < kCalls; ++i) {
    // Armed 50 ms out, over well before: a quick call's budget.
    watcher.disarm(arm(watcher, Clock::now() + 50ms, [] {}));
    std::this_thread::sleep_for(100us);  // time for a woken thread to find the entry gone
  }
  const auto elapsed = Clock::now() - start;
  const uint64_t wakes = watcher.wakes() - before;
  // About two wakes per 50 ms (one for the first arm after an empty spell, one at its time),
  // however many calls; one per call before the fix.
  const auto periods = static_cast<uint64_t>(elapsed / 50ms) + 1;
  INFO("wakes: " << wakes << " over " << kCalls << " calls in " << periods << " periods");
  CHECK(wakes <= 3 * periods + 2);
  CHECK(wakes < kCalls / 4);
}

namespace {
// Counts its runs; the watcher's reference to it is visible in use_count().
class CountingTarget final : public DeadlineWatcher::Target {
 public:
  void on_due() override { ++runs; }
  std::atomic<int> runs{0};
};
}  // namespace

TEST_CASE("DeadlineWatcher: a target is held while armed and let go once run or disarmed") {
  DeadlineWatcher watcher;
  auto disarmed = std::make_shared<CountingTarget>();
  auto due = std::make_shared<CountingTarget>();
  const auto ticket = watcher.arm(Clock::now() + 1h, disarmed);
  CHECK(disarmed.use_count() == 2);
  watcher.disarm(ticket);
  CHECK(disarmed.use_count() == 1);
  watcher.arm(Clock::now() + 5ms, due);
  const auto give_up = Clock::now() + 5s;
  while ((due->runs == 0 || due.use_count() > 1) && Clock::now() < give_up) {
    std::this_thread::sleep_for(1ms);
  }
  CHECK(due->runs == 1);
  CHECK(due.use_count() == 1);
  CHECK(disarmed->runs == 0);
  // Entries armed after others were recycled run as well, in the order of their times.
  std::vector<int> order;
  std::mutex order_mutex;
  const auto start = Clock::now();
  for (int i = 3; i >= 1; --i) {
    arm(watcher, start + i * 10ms, [&, i] {
      std::lock_guard lock(order_mutex);
      order.push_back(i);
    });
  }
  while (Clock::now() < give_up) {
    {
      std::lock_guard lock(order_mutex);
      if (order.size() == 3) break;
    }
    std::this_thread::sleep_for(1ms);
  }
  std::lock_guard lock(order_mutex);
  CHECK(order == std::vector<int>{1, 2, 3});
}
