// The walk is a template so the caller's predicate inlines; kept out of repo.hpp for reading.
#ifndef SKILLRT_GPU_MIGRATION_DETAIL_REPO_INL_HPP_
#define SKILLRT_GPU_MIGRATION_DETAIL_REPO_INL_HPP_

#include <algorithm>
#include <system_error>

namespace skillrt::gpu_migration::detail {

template <typename WantsText>
Walk walk_repo(const std::filesystem::path& root, const WalkOptions& options,
               WantsText wants_text) {
  namespace fs = std::filesystem;
  Walk walk;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    walk.skipped.push_back({".", "the folder cannot be listed: " + ec.message()});
    return walk;
  }
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) {
      walk.skipped.push_back({it->path().lexically_relative(root).generic_string(),
                              "cannot be listed: " + ec.message()});
      ec.clear();
      continue;
    }
    const fs::directory_entry& entry = *it;
    const std::string rel = entry.path().lexically_relative(root).generic_string();
    const std::string name = entry.path().filename().string();
    if (entry.is_symlink(ec)) {
      // Never followed: a link may lead outside the repository or into a loop.
      if (entry.is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (entry.is_directory(ec)) {
      if (name == ".git" || name == ".hg" || name == ".svn" || name == "__pycache__") {
        it.disable_recursion_pending();
        continue;
      }
      if ((!options.include_vendored && is_vendored_dir_name(name)) || is_excluded(rel, options)) {
        walk.vendored.push_back(rel);
        it.disable_recursion_pending();
      }
      continue;
    }
    if (!entry.is_regular_file(ec)) continue;
    if (is_excluded(rel, options)) continue;
    const std::string ext = entry.path().extension().string();
    RepoFile f{rel, entry.path(), FileType::kPython};
    if (ext == ".py" || ext == ".pyi") {
      f.type = FileType::kPython;
    } else if (ext == ".ipynb") {
      f.type = FileType::kNotebook;
    } else if (wants_text(name)) {
      f.type = FileType::kText;
    } else {
      continue;
    }
    walk.files.push_back(std::move(f));
  }
  std::sort(walk.files.begin(), walk.files.end(),
            [](const RepoFile& a, const RepoFile& b) { return a.rel < b.rel; });
  std::sort(walk.vendored.begin(), walk.vendored.end());
  return walk;
}

}  // namespace skillrt::gpu_migration::detail

#endif  // SKILLRT_GPU_MIGRATION_DETAIL_REPO_INL_HPP_
