// Where vllm-tracker's items come from: the GitHub REST issues listing (PRs and issues in one
// paged walk, through pr-analysis's GithubSource: paging, rate-limit waits, retries), or a local
// clone read with libgit2 (each first-parent commit in the window, mapped to its PR by the
// title's "(#N)" suffix or a Pull-Request trailer). Malformed data throws SourceFailure naming
// the URL or commit, so the caller fails that source only.
#ifndef SKILLRT_DAILY_TRACKERS_ITEM_SOURCES_HPP_
#define SKILLRT_DAILY_TRACKERS_ITEM_SOURCES_HPP_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "github_source.hpp"  // pr-analysis
#include "model.hpp"

namespace skillrt::daily_trackers {

// One page of the issues listing. `url` is a cursor from an earlier page or first_issues_url().
struct IssuePage {
  std::vector<TrackedItem> items;  // those updated inside [since, until]
  std::string next;                // "" once the listing is exhausted or past `until`
};

std::string first_issues_url(const std::string& api_url, const std::string& repo,
                             const std::string& since_iso, int per_page);
IssuePage fetch_issue_page(pr_analysis::GithubSource& gh, const std::string& url,
                           const std::string& repo, int64_t since, int64_t until);

// Turns one element of GET /repos/{o}/{r}/issues into an item; throws SourceFailure naming
// `where` when a required field is missing or of the wrong type.
TrackedItem item_from_issue(const Json& issue, const std::string& repo, const std::string& where);

// Commits of `path` (first parent from `ref`) in [since, until], oldest first.
std::vector<TrackedItem> local_items(const std::string& path, const std::string& repo,
                                     const std::string& ref, int64_t since, int64_t until,
                                     size_t max_commits);

// "#N" references of a text, in order, without repeats ("Fixes #12", "see #7").
std::vector<int64_t> linked_numbers(std::string_view text);

}  // namespace skillrt::daily_trackers

#endif  // SKILLRT_DAILY_TRACKERS_ITEM_SOURCES_HPP_
