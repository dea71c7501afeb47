// How long an idle I/O thread polls for its next event before it goes to sleep.
//
// Waking a sleeping thread on an idle core costs tens of microseconds on a virtual machine (the
// core halts and the wake-up goes through the hypervisor), several times what a quick tool call
// costs. A client that sends its next request as soon as it has read an answer therefore waits
// mostly for that wake-up. Polling for a short while hides it, but burns CPU when nothing comes.
// The window adapts the way KVM's halt polling does: it grows while idle waits are short enough
// that polling would have caught them, and drops to zero after a long one, so a server whose
// client pauses between calls (an agent thinking) never polls.
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

namespace skillrt::transport::detail {

class PollWindow {
 public:
  using Micros = std::chrono::microseconds;

  // `max` bounds the window; zero turns polling off.
  explicit PollWindow(Micros max) : max_(max) {}

  using Clock = std::chrono::steady_clock;

  // How long to poll before sleeping at the next idle moment.
  Micros window() const { return window_; }

  // Calls `ready()` until it returns true or the window, counted from `idle_since`, has passed;
  // true when `ready()` did. The core is yielded between tries, so a thread waiting for it (the
  // client, on a busy machine) runs first: without that, polling on a busy machine took CPU from
  // the client and halved sequential calls/s. A closed window never calls `ready()`.
  template <typename Ready>
  bool poll(Clock::time_point idle_since, Ready&& ready) const {
    const auto until = idle_since + window_;
    while (Clock::now() < until) {
      if (ready()) return true;
      std::this_thread::yield();
    }
    return false;
  }

  // The idle moment that began at `idle_since` is over (polled, slept, or both).
  void idle_ended(Clock::time_point idle_since) {
    idle_waited(std::chrono::duration_cast<Micros>(Clock::now() - idle_since));
  }

  // An idle wait (from running out of ready work to the next event, polling and sleeping
  // together) took `waited`.
  void idle_waited(Micros waited) {
    if (waited > max_) {
      window_ = Micros(0);
      return;
    }
    // Short enough to have been caught: widen until it would have been.
    if (waited > window_) window_ = std::min(max_, std::max(kStart, window_ * 2));
  }

 private:
  static constexpr Micros kStart{10};
  Micros max_;
  Micros window_{0};
};

}  // namespace skillrt::transport::detail
