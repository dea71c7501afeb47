// Every pending deadline of the executor on one thread. Arming and disarming take a lock and
// touch an ordered map whose nodes are recycled, so that after warm-up neither allocates; the
// thread is woken only when a deadline sooner than the one it sleeps
// towards arrives. Disarming never wakes it: it wakes at the old time, finds nothing due and
// sleeps again (towards the time it was promised, even with nothing left to wait for). A call that
// ends well before its deadline (nearly every call) so costs no system call, unlike a timer per
// call.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

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

  // What an entry runs when it is due. The watcher holds a reference to it while it is armed
  // and while on_due() runs (on the watcher's thread), so the target outlives both.
  class Target {
   public:
    virtual ~Target() = default;
    // Runs without the watcher's lock held: it may arm and disarm.
    virtual void on_due() = 0;
  };

  // `target->on_due()` runs on the watcher's thread at `when`, unless disarmed first.
  Ticket arm(Clock::time_point when, std::shared_ptr<Target> target) {
    std::unique_lock lock(mutex_);
    const Ticket ticket{when, ++next_id_};
    if (spare_.empty()) {
      entries_.emplace(Key{when, ticket.id}, std::move(target));
    } else {
      auto node = std::move(spare_.back());
      spare_.pop_back();
      node.key() = Key{when, ticket.id};
      node.mapped() = std::move(target);
      entries_.insert(std::move(node));
    }
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
    std::shared_ptr<Target> dropped;  // released outside the lock: it may be the last reference
    std::lock_guard lock(mutex_);
    auto it = entries_.find(Key{ticket.when, ticket.id});
    if (it == entries_.end()) return;
    auto node = entries_.extract(it);
    dropped = std::move(node.mapped());
    recycle(std::move(node));
  }

 private:
  using Key = std::pair<Clock::time_point, uint64_t>;
  using Entries = std::map<Key, std::shared_ptr<Target>>;
  // Spare nodes kept for reuse: about as many as calls in flight at once.
  static constexpr size_t kMaxSpare = 256;

  // Under the lock; the node's target has been moved out.
  void recycle(Entries::node_type node) {
    if (spare_.size() < kMaxSpare) spare_.push_back(std::move(node));
  }

  void run() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      while (!entries_.empty() && entries_.begin()->first.first <= Clock::now()) {
        auto node = entries_.extract(entries_.begin());
        std::shared_ptr<Target> target = std::move(node.mapped());
        recycle(std::move(node));
        lock.unlock();
        target->on_due();
        target.reset();
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
  Entries entries_;
  std::vector<Entries::node_type> spare_;
  Clock::time_point wake_at_ = Clock::time_point::max();
  uint64_t next_id_ = 0;
  uint64_t wakes_ = 0;
  bool stop_ = false;
  std::thread thread_;  // last: starts once everything above is ready
};

}  // namespace skillrt::exec::detail
