// Finding and reading the files of a repository: exclusions, binary and unreadable files.
#ifndef SKILLRT_GPU_MIGRATION_DETAIL_REPO_HPP_
#define SKILLRT_GPU_MIGRATION_DETAIL_REPO_HPP_

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace skillrt::gpu_migration::detail {

enum class FileType { kPython, kNotebook, kText };

struct RepoFile {
  std::string rel;  // relative to the root, '/'-separated
  std::filesystem::path abs;
  FileType type = FileType::kPython;
};

struct Skipped {
  std::string path;
  std::string reason;
};

struct WalkOptions {
  bool include_vendored = false;
  std::vector<std::string> exclude;  // relative paths (prefixes) or globs on names
};

struct Walk {
  std::vector<RepoFile> files;
  std::vector<Skipped> skipped;
  std::vector<std::string> vendored;  // excluded folders, as relative paths
};

// The canonical root; throws invalid_argument when `repo` is not a readable directory.
std::filesystem::path resolve_root(const std::string& repo);

// `wants_text` says whether a non-Python file name is one that text rules look at.
template <typename WantsText>
Walk walk_repo(const std::filesystem::path& root, const WalkOptions& options, WantsText wants_text);

bool is_vendored_dir_name(const std::string& name);
bool is_excluded(const std::string& rel, const WalkOptions& options);

// Reads a file for scanning; on failure returns nullopt and sets `reason` (binary, not UTF-8,
// too large, unreadable), which callers report.
std::optional<std::string> read_source(const std::filesystem::path& path, std::string* reason);
// The same into `out`, reusing its storage; false (with `reason`) on failure.
bool read_source(const std::filesystem::path& path, std::string* out, std::string* reason);

// Writes `content` to `path` through a temporary file in the same folder and a rename, keeping
// the file's permissions. Throws SkillError on failure; the original is then untouched.
void write_atomically(const std::filesystem::path& path, const std::string& content);

// True when `path` (after resolving symlinks) lies inside `root`.
bool inside_root(const std::filesystem::path& root, const std::filesystem::path& path);

}  // namespace skillrt::gpu_migration::detail

#include "detail/repo_inl.hpp"

#endif  // SKILLRT_GPU_MIGRATION_DETAIL_REPO_HPP_
