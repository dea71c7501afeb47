// Every pending deadline of the executor on one thread. Arming and disarming take a lock and
// touch an ordered map; the thread is woken only when a deadline sooner than the one it sleeps
// towards arrives. Disarming never wakes it: it wakes at the old time, finds nothing due and
// sleeps again (towards the time it was promised, even with nothing left to wait for). A call that
// ends well before its deadline (nearly every call) so costs no system call, unlike a timer per
// call.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace skillrt::exec::detail {

class DeadlineWatcher {
 public:
  using Clock = std::chrono::steady_clock;
  struct Ticket {
    Clock::time_point when;
    uint64_t id = 0;
  };

  DeadlineWatcher() : thread_([this] { run(); }) {}
  ~DeadlineWatcher() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  DeadlineWatcher(const DeadlineWatcher&) = delete;
  DeadlineWatcher& operator=(const DeadlineWatcher&) = delete;

  // `fn` runs on the watcher's thread at `when`, unless disarmed first. It may arm and disarm.
  Ticket arm(Clock::time_point when, std::function<void()> fn) {
    std::unique_lock lock(mutex_);
    const Ticket ticket{when, ++next_id_};
    entries_.emplace(Key{when, ticket.id}, std::move(fn));
    const bool sooner = when < wake_at_;
    if (sooner) wake_at_ = when;
    lock.unlock();
    if (sooner) wake_.notify_one();
    return ticket;
  }

  // How many times the thread has woken (for tests: quick calls must not wake it each time).
  uint64_t wakes() const {
    std::lock_guard lock(mutex_);
    return wakes_;
  }

  // Does nothing when the entry already ran or was disarmed.
  void disarm(const Ticket& ticket) {
    std::function<void()> dropped;  // destroyed outside the lock: it may own the last state
    std::lock_guard lock(mutex_);
    auto it = entries_.find(Key{ticket.when, ticket.id});
    if (it == entries_.end()) return;
    dropped = std::move(it->second);
    entries_.erase(it);
  }

 private:
  using Key = std::pair<Clock::time_point, uint64_t>;

  void run() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      while (!entries_.empty() && entries_.begin()->first.first <= Clock::now()) {
        auto node = entries_.extract(entries_.begin());
        lock.unlock();
        node.mapped()();
        node = {};
        lock.lock();
      }
      if (stop_) break;
      ++wakes_;
      if (!entries_.empty()) {
        wake_at_ = entries_.begin()->first.first;
      } else if (wake_at_ <= Clock::now()) {
        wake_at_ = Clock::time_point::max();
      }
      // Else this thread was woken for an entry that is gone already (the call ended while the
      // thread was waking up, as a quick call does): it keeps sleeping towards that time.
      // Forgetting it would make the next arm wake the thread again, once per call.
      if (wake_at_ == Clock::time_point::max()) {
        wake_.wait(lock);
      } else {
        wake_.wait_until(lock, wake_at_);
      }
    }
  }

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::map<Key, std::function<void()>> entries_;
  Clock::time_point wake_at_ = Clock::time_point::max();
  uint64_t next_id_ = 0;
  uint64_t wakes_ = 0;
  bool stop_ = false;
  std::thread thread_;  // last: starts once everything above is ready
};

}  // namespace skillrt::exec::detail
