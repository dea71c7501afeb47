#include "item_sources.hpp"

#include <algorithm>

#include "errors.hpp"      // pr-analysis
#include "git_source.hpp"  // pr-analysis
#include "pr_map.hpp"      // pr-analysis

namespace skillrt::daily_trackers {
namespace {

using pr_analysis::SourceFailure;

// Long PR bodies (templates, logs) add nothing a rule could not find in the first part.
constexpr size_t kMaxBody = 4000;

std::string text_field(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string clip(std::string s) {
  if (s.size() <= kMaxBody) return s;
  size_t cut = kMaxBody;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  return s + " …";
}

}  // namespace

std::vector<int64_t> linked_numbers(std::string_view text) {
  std::vector<int64_t> out;
  for (size_t p = text.find('#'); p != std::string_view::npos; p = text.find('#', p + 1)) {
    // "#12" preceded by a letter or digit is an anchor or a colour, not a reference.
    if (p > 0 && std::isalnum(static_cast<unsigned char>(text[p - 1]))) continue;
    size_t e = p + 1;
    while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e]))) ++e;
    if (e == p + 1 || e - p - 1 > 9) continue;
    if (e < text.size() && std::isalnum(static_cast<unsigned char>(text[e]))) continue;
    const int64_t n = std::stoll(std::string(text.substr(p + 1, e - p - 1)));
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

std::string first_issues_url(const std::string& api_url, const std::string& repo,
                             const std::string& since_iso, int per_page) {
  // Oldest update first, so that a cursor saved after a page stays valid while new activity
  // lands at the end of the listing.
  return api_url + "/repos/" + repo +
         "/issues?state=all&sort=updated&direction=asc&since=" + since_iso +
         "&per_page=" + std::to_string(per_page);
}

TrackedItem item_from_issue(const Json& issue, const std::string& repo, const std::string& where) {
  if (!issue.is_object() || !issue.contains("number") || !issue["number"].is_number_integer()) {
    throw SourceFailure(where + ": an entry has no integer `number`; the response does not look " +
                        "like GitHub's issues listing (check api_url)");
  }
  TrackedItem t;
  t.repo = repo;
  t.number = issue["number"].get<int64_t>();
  t.key = "#" + std::to_string(*t.number);
  t.title = text_field(issue, "title");
  t.updated_at = text_field(issue, "updated_at");
  if (t.title.empty() || t.updated_at.empty()) {
    throw SourceFailure(where + ": entry #" + std::to_string(*t.number) +
                        " lacks `title` or `updated_at`; the source's data is malformed");
  }
  t.body = clip(text_field(issue, "body"));
  t.url = text_field(issue, "html_url");
  t.created_at = text_field(issue, "created_at");
  t.closed_at = text_field(issue, "closed_at");
  if (issue.contains("user") && issue["user"].is_object())
    t.author = text_field(issue["user"], "login");
  if (issue.contains("comments") && issue["comments"].is_number_integer()) {
    t.comments = issue["comments"].get<int64_t>();
  }
  if (issue.contains("labels") && issue["labels"].is_array()) {
    for (const Json& l : issue["labels"]) {
      if (l.is_object()) t.labels.push_back(text_field(l, "name"));
    }
  }
  const bool is_pr = issue.contains("pull_request") && issue["pull_request"].is_object();
  t.kind = is_pr ? "pr" : "issue";
  if (is_pr) t.merged_at = text_field(issue["pull_request"], "merged_at");
  const std::string state = text_field(issue, "state");
  t.state = !t.merged_at.empty() ? "merged" : state == "closed" ? "closed" : "open";
  t.linked = linked_numbers(t.body);
  t.linked.erase(std::remove(t.linked.begin(), t.linked.end(), *t.number), t.linked.end());
  return t;
}

IssuePage fetch_issue_page(pr_analysis::GithubSource& gh, const std::string& url,
                           const std::string& repo, int64_t since, int64_t until) {
  IssuePage page;
  const Json list = gh.get_json(url, &page.next);
  if (!list.is_array()) {
    throw SourceFailure("GET " + url + ": expected a JSON array of issues and PRs");
  }
  for (const Json& issue : list) {
    TrackedItem t = item_from_issue(issue, repo, "GET " + url);
    const auto updated = pr_analysis::parse_date(t.updated_at, false);
    if (!updated) {
      throw SourceFailure("GET " + url + ": entry " + t.key + " has updated_at '" + t.updated_at +
                          "', not an ISO 8601 UTC time");
    }
    if (*updated > until) {
      page.next.clear();  // sorted by update time: the rest is later still
      break;
    }
    if (*updated >= since) page.items.push_back(std::move(t));
  }
  return page;
}

std::vector<TrackedItem> local_items(const std::string& path, const std::string& repo,
                                     const std::string& ref, int64_t since, int64_t until,
                                     size_t max_commits) {
  pr_analysis::GitSource git(path);
  pr_analysis::LocalQuery q;
  q.ref = ref;
  q.since = since;
  q.until = until;
  q.max_commits = max_commits;
  const pr_analysis::Selection sel = git.select(q);
  std::vector<TrackedItem> out;
  for (const std::string& sha : sel.shas) {
    const pr_analysis::ChangeSet cs = git.load(sha);
    TrackedItem t;
    t.repo = repo;
    t.kind = cs.pr ? "pr" : "commit";
    t.number = cs.pr;
    t.key = cs.pr ? "#" + std::to_string(*cs.pr) : "commit:" + sha.substr(0, 12);
    t.state = "merged";
    t.title = cs.title;
    const size_t nl = cs.message.find('\n');
    t.body = clip(nl == std::string::npos ? "" : cs.message.substr(nl + 1));
    t.author = cs.author;
    t.sha = sha;
    t.merged_at = pr_analysis::format_time(cs.time);
    t.updated_at = t.merged_at;
    t.url = cs.pr ? "https://github.com/" + repo + "/pull/" + std::to_string(*cs.pr)
                  : "https://github.com/" + repo + "/commit/" + sha;
    for (const auto& f : cs.files) t.files.push_back(f.path);
    t.linked = linked_numbers(t.body);
    if (cs.pr)
      t.linked.erase(std::remove(t.linked.begin(), t.linked.end(), *cs.pr), t.linked.end());
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace skillrt::daily_trackers
