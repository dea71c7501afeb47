#include "common/stdout_aside.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

namespace skillrt {

Result<StdoutAside> StdoutAside::divert() {
  const int saved = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (saved < 0) {
    return fail(Code::kInternal, std::string("cannot duplicate stdout: ") + std::strerror(errno));
  }
  if (::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    const int err = errno;
    ::close(saved);
    return fail(Code::kInternal,
                std::string("cannot point stdout at stderr: ") + std::strerror(err));
  }
  // Whatever sat in the stdout buffers was not the owner's output: it goes to stderr too.
  std::cout.flush();
  std::fflush(stdout);
  return StdoutAside(saved);
}

StdoutAside::StdoutAside(StdoutAside&& other) noexcept : saved_(other.saved_) { other.saved_ = -1; }

StdoutAside::~StdoutAside() { restore(); }

void StdoutAside::restore() {
  if (saved_ < 0) return;
  std::cout.flush();
  std::fflush(stdout);
  ::dup2(saved_, STDOUT_FILENO);
  ::close(saved_);
  saved_ = -1;
}

}  // namespace skillrt
