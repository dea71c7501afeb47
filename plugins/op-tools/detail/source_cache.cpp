#include "detail/source_cache.hpp"

#include <filesystem>
#include <map>
#include <mutex>

#include "embedded_source.hpp"

namespace skillrt::op_tools::detail {
namespace {

constexpr size_t kMaxCachedFiles = 8;

struct Cached {
  std::filesystem::file_time_type mtime;
  uintmax_t size = 0;
  std::shared_ptr<const ops::OpSource> source;
};

std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, Cached>& cache() {
  static std::map<std::string, Cached> c;
  return c;
}

}  // namespace

std::shared_ptr<const ops::OpSource> embedded_source() {
  static const std::shared_ptr<const ops::OpSource> source =
      std::make_shared<const ops::OpSource>(ops::load_source_text(
          embedded_native_functions(), std::string(embedded_native_functions_name()),
          ops::SourceFormat::kNativeFunctions));
  return source;
}

std::shared_ptr<const ops::OpSource> file_source(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto mtime = fs::last_write_time(path, ec);
  const auto size = fs::file_size(path, ec);
  if (!ec) {
    std::lock_guard<std::mutex> lock(cache_mutex());
    const auto it = cache().find(path);
    if (it != cache().end() && it->second.mtime == mtime && it->second.size == size) {
      return it->second.source;
    }
  }
  // Loaded outside the lock: two racing callers may both load, which is harmless.
  auto loaded = std::make_shared<const ops::OpSource>(ops::load_source_file(path));
  if (!ec) {
    std::lock_guard<std::mutex> lock(cache_mutex());
    if (cache().size() >= kMaxCachedFiles) cache().erase(cache().begin());
    cache()[path] = Cached{mtime, size, loaded};
  }
  return loaded;
}

}  // namespace skillrt::op_tools::detail
