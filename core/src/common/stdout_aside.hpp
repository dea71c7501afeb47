// Keeps fd 1 for one writer: while a StdoutAside lives, fd 1 points at stderr, so whatever else
// writes there (a plugin's printf or std::cout, a child process) cannot corrupt the output the
// owner writes through fd().
#pragma once

#include "common/error.hpp"

namespace skillrt {

class StdoutAside {
 public:
  // What sits in the C and C++ stdout buffers at that moment is not the owner's: it is flushed
  // to stderr with everything else.
  static Result<StdoutAside> divert();
  StdoutAside(StdoutAside&& other) noexcept;
  StdoutAside& operator=(StdoutAside&&) = delete;
  StdoutAside(const StdoutAside&) = delete;
  StdoutAside& operator=(const StdoutAside&) = delete;
  ~StdoutAside();

  // The original stdout (close-on-exec), valid until restore() or destruction.
  int fd() const { return saved_; }
  // Points fd 1 back at the original stdout; the destructor does it at the latest.
  void restore();

 private:
  explicit StdoutAside(int saved) : saved_(saved) {}
  int saved_ = -1;
};

}  // namespace skillrt
