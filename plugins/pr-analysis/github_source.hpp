// The GitHub REST source: merged PRs of a window (or given numbers) with their files, patches
// and labels. Paging follows the Link header; 403/429 with Retry-After or an exhausted
// X-RateLimit-Remaining waits until the advised time (bounded by max_wait_s); 5xx, timeouts and
// connection failures are retried with exponential backoff. Any failure that survives the
// retries throws SourceFailure before a report exists, so there is never a partial report.
#ifndef SKILLRT_PR_ANALYSIS_GITHUB_SOURCE_HPP_
#define SKILLRT_PR_ANALYSIS_GITHUB_SOURCE_HPP_

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model.hpp"

namespace skillrt::pr_analysis {

struct GithubOptions {
  std::string api_url = "https://api.github.com";
  std::string owner = "pytorch";
  std::string repo = "pytorch";
  std::string base = "main";
  std::string token;  // from GITHUB_TOKEN; empty: unauthenticated (60 requests/hour)
  int per_page = 100;
  long timeout_ms = 30000;
  int max_retries = 3;
  long retry_base_ms = 1000;
  double max_wait_s = 900;
  size_t max_prs = 2000;
  // Replaced by tests so that waits are recorded, not slept.
  std::function<void(double seconds)> sleep;
  std::function<bool()> cancelled;
  std::function<void(double done, double total, const std::string& what)> progress;

  // The connection settings of an input's `github` object (api_url, owner, repo, base,
  // per_page, timeout_ms, max_retries, retry_base_ms, max_wait_s) over the defaults, and the
  // token from GITHUB_TOKEN. The hooks are left for the caller.
  static GithubOptions from_json(const nlohmann::json& github);
};

struct GithubStats {
  size_t requests = 0;
  size_t retries = 0;
  std::vector<double> rate_limit_waits;  // seconds waited, in order
  size_t pages = 0;
};

class GithubSource {
 public:
  explicit GithubSource(GithubOptions options);

  // Merged PRs whose merge time is in [since, until], oldest first, with their files.
  std::vector<ChangeSet> merged_in_window(int64_t since, int64_t until);
  // The given PRs (merged or not; unmerged ones are kept and say so in their labels).
  std::vector<ChangeSet> by_number(const std::vector<int64_t>& numbers);

  // One GET with the paging, rate-limit and retry handling above, for other REST listings
  // (the daily trackers read issues and benchmark files through it). `next_url`, when given,
  // receives the Link header's rel="next" target or "". Throws SourceFailure.
  nlohmann::json get_json(const std::string& url, std::string* next_url);
  std::string get_text(const std::string& url, std::string* next_url);

  const GithubStats& stats() const { return stats_; }

  struct Response {
    long status = 0;
    std::map<std::string, std::string> headers;  // names lower-cased
    std::string body;
  };

 private:
  ChangeSet to_change_set(const nlohmann::json& pr);
  void add_files(ChangeSet* cs);

  GithubOptions o_;
  GithubStats stats_;
};

// Parses a unified-diff patch body (GitHub's `patch` field) into hunks. Throws SourceFailure
// naming `file` when a hunk header is malformed.
std::vector<Hunk> parse_patch(const std::string& patch, const std::string& file);

}  // namespace skillrt::pr_analysis

#endif  // SKILLRT_PR_ANALYSIS_GITHUB_SOURCE_HPP_
