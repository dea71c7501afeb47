#include "detail/repo.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <skillrt/sdk.hpp>
#include <sstream>

#include "detail/rule_table.hpp"
#include "plugin_io/atomic_file.hpp"

namespace skillrt::gpu_migration::detail {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxSourceBytes = 16u << 20;

bool valid_utf8(const std::string& s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    // Sources are mostly ASCII: eight bytes at a time while no high bit is set.
    while (i + 8 <= n) {
      uint64_t word;
      std::memcpy(&word, s.data() + i, sizeof word);
      if (word & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t extra = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0 && c >= 0xC2) {
      extra = 1;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
    } else if ((c & 0xF8) == 0xF0 && c <= 0xF4) {
      extra = 3;
    } else {
      return false;
    }
    if (i + extra >= n) return false;
    for (size_t k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += extra + 1;
  }
  return true;
}

}  // namespace

bool is_vendored_dir_name(const std::string& name) {
  static const char* const kNames[] = {
      "third_party",  "third-party", "thirdparty", "3rdparty",      "vendor",
      "vendored",     "external",    "externals",  "site-packages", "dist-packages",
      "node_modules", ".venv",       "venv",       ".tox",          ".eggs"};
  for (const char* k : kNames) {
    if (name == k) return true;
  }
  return false;
}

bool is_excluded(const std::string& rel, const WalkOptions& options) {
  for (const std::string& e : options.exclude) {
    std::string p = e;
    while (!p.empty() && p.back() == '/') p.pop_back();
    if (p.empty()) continue;
    if (rel == p ||
        (rel.size() > p.size() && rel.compare(0, p.size(), p) == 0 && rel[p.size()] == '/'))
      return true;
    if (p.find_first_of("*?") != std::string::npos && glob_match(p, rel)) return true;
  }
  return false;
}

fs::path resolve_root(const std::string& repo) {
  if (repo.empty()) throw invalid_argument("repo is empty: pass the path of the project folder");
  std::error_code ec;
  const fs::path p(repo);
  if (!fs::exists(p, ec)) {
    throw invalid_argument("repo '" + repo +
                           "' does not exist: pass the path of the project folder");
  }
  if (!fs::is_directory(p, ec)) {
    throw invalid_argument("repo '" + repo +
                           "' is not a directory: pass the root folder of the project, not a file");
  }
  fs::path root = fs::canonical(p, ec);
  if (ec) throw invalid_argument("repo '" + repo + "' cannot be resolved: " + ec.message());
  fs::directory_iterator probe(root, ec);
  if (ec) {
    throw invalid_argument("repo '" + repo + "' cannot be listed (" + ec.message() +
                           "): check its permissions");
  }
  return root;
}

std::optional<std::string> read_source(const fs::path& path, std::string* reason) {
  std::string text;
  if (!read_source(path, &text, reason)) return std::nullopt;
  return text;
}

bool read_source(const fs::path& path, std::string* out, std::string* reason) {
  // POSIX calls rather than ifstream: one open, one fstat, one read for thousands of files.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *reason = std::string("cannot be read: ") + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *reason = std::string("cannot be read: ") + std::strerror(errno);
    ::close(fd);
    return false;
  }
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxSourceBytes) {
    ::close(fd);
    *reason = "larger than 16 MiB: not a source file to migrate (exclude it or split it)";
    return false;
  }
  std::string& text = *out;
  text.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *reason = std::string("cannot be read: ") + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(got);
  if (std::memchr(text.data(), '\0', text.size()) != nullptr) {
    *reason = "binary file (contains NUL bytes): not scanned";
    return false;
  }
  if (!valid_utf8(text)) {
    *reason = "not valid UTF-8: re-encode it as UTF-8 to have it scanned";
    return false;
  }
  return true;
}

bool inside_root(const fs::path& root, const fs::path& path) {
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(path, ec);
  if (ec) return false;
  const std::string r = root.generic_string();
  const std::string p = real.generic_string();
  return p.size() > r.size() && p.compare(0, r.size(), r) == 0 && p[r.size()] == '/';
}

void write_atomically(const fs::path& path, const std::string& content) {
  try {
    plugin_io::write_file_atomic(path, content);
  } catch (const std::runtime_error& e) {
    throw SkillError(SKILLRT_FAILED_PRECONDITION,
                     std::string(e.what()) + "; '" + path.string() + "' is unchanged");
  }
}

}  // namespace skillrt::gpu_migration::detail
