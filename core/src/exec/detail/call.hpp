// The per-call handle a skill's invoke function gets (opaque to plugins).
#pragma once

#include <skillrt/abi.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exec/executor.hpp"

struct skillrt_call {
  skillrt::exec::Executor* executor = nullptr;
  std::shared_ptr<const skillrt::Skill> skill;
  skillrt::exec::CancelFlag cancel;       // the caller's
  std::atomic<bool> deadline_hit{false};  // set by the deadline timer
  std::chrono::steady_clock::time_point deadline;
  // The skills whose calls led here, outermost first, not counting this one (empty for a call
  // from outside): a nested call's chain is this plus `skill`.
  std::vector<std::string> callers;
  std::function<void(const skillrt::exec::Progress&)> on_progress;

  // Guards the fields below while invoke runs: the skill may set them from any thread. Once
  // invoke has returned the executor reads them without it (the ABI ends the handle's use there).
  std::mutex mutex;
  bool has_result = false;
  std::string result;
  int32_t error_code = SKILLRT_OK;
  std::string error_message;

  bool cancelled() const { return cancel->load() || deadline_hit.load(); }

  // Back to a new handle's state, letting go of what the last call held. For a handle whose call
  // is over and that no other thread can reach (the executor reuses it for the next call).
  void reset() {
    executor = nullptr;
    skill.reset();
    cancel.reset();
    deadline_hit.store(false, std::memory_order_relaxed);
    deadline = {};
    callers.clear();
    on_progress = nullptr;
    has_result = false;
    result.clear();
    error_code = SKILLRT_OK;
    error_message.clear();
  }
};
