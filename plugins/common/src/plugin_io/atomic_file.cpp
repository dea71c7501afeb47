#include "plugin_io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace skillrt::plugin_io {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what, const fs::path& file, int err) {
  throw std::runtime_error(what + " " + file.string() + ": " + std::strerror(err) +
                           "; check that its folder exists, is writable and has space");
}

}  // namespace

void write_file_atomic(const fs::path& path, std::string_view content) {
  // pid + counter: concurrent writers (threads, or a second run) never share a temporary name.
  static std::atomic<unsigned> counter{0};
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const fs::path tmp = dir / ("." + path.filename().string() + ".tmp." +
                              std::to_string(::getpid()) + "." + std::to_string(++counter));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", tmp, errno);
  // A replaced file keeps its mode (an executable script stays executable).
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0) ::fchmod(fd, existing.st_mode & 07777);
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail("cannot write", tmp, err);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail("cannot flush", tmp, err);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot flush", tmp, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot move the new content into", path, err);
  }
  // The rename itself survives a crash only once the folder entry is on disk.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

std::optional<fs::path> path_under(const fs::path& root, const fs::path& relative) {
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::absolute(root, ec), ec);
  if (ec) return std::nullopt;
  const fs::path full = fs::weakly_canonical(base / relative, ec);
  if (ec) return std::nullopt;
  const fs::path rel = full.lexically_relative(base);
  // "." is root itself: a folder, never a file to write.
  if (rel.empty() || rel == "." || *rel.begin() == "..") return std::nullopt;
  return full;
}

}  // namespace skillrt::plugin_io
