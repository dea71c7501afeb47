#include "cli/runtime.hpp"

namespace skillrt::cli {

Runtime::Runtime(const RuntimeOptions& options) {
  loader_ = std::make_unique<plugin::Loader>(registry_, exec::host_api());
  const auto search = plugin::default_search_path(options.plugin_paths);
  if (options.default_plugins && !search.builtin_dir.empty()) {
    loader_->load_directory(search.builtin_dir, /*builtin=*/true);
  }
  for (const auto& dir : search.extra_dirs) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(dir, ec)) {
      loader_->load_file(dir, false);
    } else {
      loader_->load_directory(dir, false);
    }
  }
  executor_ = std::make_unique<exec::Executor>(registry_, options.executor);
}

}  // namespace skillrt::cli
