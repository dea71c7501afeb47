// The local source: a PyTorch clone read with libgit2. Selecting commits reads commit headers
// only; each selected commit's diff against its first parent is read when it is loaded, so the
// caller can analyse and drop it before loading the next.
#ifndef SKILLRT_PR_ANALYSIS_GIT_SOURCE_HPP_
#define SKILLRT_PR_ANALYSIS_GIT_SOURCE_HPP_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model.hpp"

namespace skillrt::pr_analysis {

struct LocalQuery {
  std::string ref = "HEAD";
  std::optional<int64_t> since;  // inclusive, seconds since the epoch
  std::optional<int64_t> until;  // inclusive
  std::string rev_range;         // "A..B"
  std::vector<int64_t> prs;
  size_t max_commits = 5000;
};

struct Selection {
  std::vector<std::string> shas;  // oldest first
  std::string empty_reason;       // set when shas is empty
  bool truncated = false;         // more commits matched than max_commits
  std::vector<int64_t> prs_not_found;
};

class GitSource {
 public:
  // Throws InputError naming the path when it is not a git repository.
  explicit GitSource(const std::string& path);
  ~GitSource();
  GitSource(const GitSource&) = delete;
  GitSource& operator=(const GitSource&) = delete;

  Selection select(const LocalQuery& query);
  ChangeSet load(const std::string& sha);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "YYYY-MM-DD" (start of day, or end of day when end_of_day) or "YYYY-MM-DDTHH:MM:SSZ", UTC.
// nullopt when the text is neither.
std::optional<int64_t> parse_date(const std::string& text, bool end_of_day);
std::string format_time(int64_t t);

}  // namespace skillrt::pr_analysis

#endif  // SKILLRT_PR_ANALYSIS_GIT_SOURCE_HPP_
