// The data that flows from a source (local git clone or GitHub REST) through the rule pack into
// the reports. A source yields one ChangeSet per commit (local) or per PR (GitHub); the analysis
// keeps only what the reports need, so a long window never holds every diff at once.
#ifndef SKILLRT_PR_ANALYSIS_MODEL_HPP_
#define SKILLRT_PR_ANALYSIS_MODEL_HPP_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::pr_analysis {

struct DiffLine {
  char origin = ' ';    // '+', '-' or ' ' (context, GitHub patches only)
  size_t old_line = 0;  // 0 when the line is not on that side
  size_t new_line = 0;
  std::string text;
};

struct Hunk {
  size_t old_start = 0;
  size_t old_lines = 0;
  size_t new_start = 0;
  size_t new_lines = 0;
  std::vector<DiffLine> lines;
};

// One line of a file version that the operator-level diff may read: the whole file for a local
// clone, only what the patch shows for GitHub. The text is a view into FileDiff's version
// storage (local) or into its hunks (GitHub); neither moves when the FileDiff does.
struct NumberedLine {
  size_t line = 0;
  std::string_view text;
};

struct FileDiff {
  std::string path;      // new path (old path for a deletion)
  std::string old_path;  // differs from path for a rename
  std::string status;    // added, removed, modified, renamed
  size_t additions = 0;
  size_t deletions = 0;
  bool binary = false;
  std::vector<Hunk> hunks;
  // Filled for operator YAML files only (native_functions.yaml, derivatives.yaml).
  bool has_versions = false;
  bool partial_versions = false;  // only the lines a patch shows (GitHub)
  std::vector<NumberedLine> old_version;
  std::vector<NumberedLine> new_version;
  std::shared_ptr<const std::string> old_text;  // owns what old_version views (local source)
  std::shared_ptr<const std::string> new_text;
};

// One unit a source delivers: a commit of the clone, or a PR from the API.
struct ChangeSet {
  std::string sha;  // commit (the merge commit for GitHub; may be empty there)
  std::string title;
  std::string message;
  std::string author;
  int64_t time = 0;  // seconds since the epoch (commit time locally, merged_at on GitHub)
  std::optional<int64_t> pr;
  std::string pr_source;  // how the PR number was found: trailer, title, revert, api
  bool revert = false;
  std::string reverted_sha;         // "This reverts commit <sha>."
  std::vector<std::string> labels;  // GitHub only
  std::vector<FileDiff> files;
};

}  // namespace skillrt::pr_analysis

#endif  // SKILLRT_PR_ANALYSIS_MODEL_HPP_
