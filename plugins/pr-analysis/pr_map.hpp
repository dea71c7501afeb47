// Commit message -> PR number, the way pytorch's merge bot writes messages (trymerge.py):
// a `Pull Request resolved: .../pull/N` trailer, else a ` (#N)` title suffix; a bot revert drops
// the trailer and appends `Reverted .../pull/N on behalf of ...`.
#ifndef SKILLRT_PR_ANALYSIS_PR_MAP_HPP_
#define SKILLRT_PR_ANALYSIS_PR_MAP_HPP_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skillrt::pr_analysis {

struct PrLink {
  std::optional<int64_t> pr;
  std::string source;  // "trailer", "title", "revert" or "" when none was found
  bool revert = false;
  std::string reverted_sha;
};

PrLink map_commit_to_pr(std::string_view message);

// The first line of a message.
std::string message_title(std::string_view message);

}  // namespace skillrt::pr_analysis

#endif  // SKILLRT_PR_ANALYSIS_PR_MAP_HPP_
