#include "github_source.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "detail/op_excerpt.hpp"
#include "errors.hpp"
#include "git_source.hpp"
#include "pr_map.hpp"

namespace skillrt::pr_analysis {

GithubOptions GithubOptions::from_json(const nlohmann::json& github) {
  GithubOptions o;
  o.api_url = github.value("api_url", o.api_url);
  o.owner = github.value("owner", o.owner);
  o.repo = github.value("repo", o.repo);
  o.base = github.value("base", o.base);
  o.per_page = github.value("per_page", o.per_page);
  o.timeout_ms = github.value("timeout_ms", o.timeout_ms);
  o.max_retries = github.value("max_retries", o.max_retries);
  o.retry_base_ms = github.value("retry_base_ms", o.retry_base_ms);
  o.max_wait_s = github.value("max_wait_s", o.max_wait_s);
  if (const char* token = std::getenv("GITHUB_TOKEN")) o.token = token;
  return o;
}
namespace {

using nlohmann::json;

// Every response names a handful of headers; more than this many rate-limit waits in one run
// means the limit will not recover within the run.
constexpr int kMaxRateLimitWaits = 20;

size_t on_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string line(data, size * n);
  const size_t colon = line.find(':');
  if (colon == std::string::npos) return size * n;
  std::string name = line.substr(0, colon);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string value = line.substr(colon + 1);
  const size_t b = value.find_first_not_of(" \t");
  const size_t e = value.find_last_not_of(" \t\r\n");
  (*headers)[name] = b == std::string::npos ? "" : value.substr(b, e - b + 1);
  return size * n;
}

std::string next_link(const std::string& link) {
  // <https://...&page=2>; rel="next", <https://...>; rel="last"
  size_t pos = 0;
  while (pos < link.size()) {
    const size_t open = link.find('<', pos);
    if (open == std::string::npos) break;
    const size_t close = link.find('>', open);
    if (close == std::string::npos) break;
    const size_t comma = link.find(',', close);
    const std::string params =
        link.substr(close + 1, comma == std::string::npos ? std::string::npos : comma - close - 1);
    if (params.find("rel=\"next\"") != std::string::npos) {
      return link.substr(open + 1, close - open - 1);
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return "";
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::vector<Hunk> parse_patch(const std::string& patch, const std::string& file) {
  std::vector<Hunk> hunks;
  size_t pos = 0;
  size_t old_no = 0;
  size_t new_no = 0;
  while (pos < patch.size()) {
    size_t nl = patch.find('\n', pos);
    if (nl == std::string::npos) nl = patch.size();
    std::string line = patch.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("@@", 0) == 0) {
      unsigned long a = 0;
      unsigned long b = 1;
      unsigned long c = 0;
      unsigned long d = 1;
      if (std::sscanf(line.c_str(), "@@ -%lu,%lu +%lu,%lu @@", &a, &b, &c, &d) != 4) {
        b = 1;
        d = 1;
        if (std::sscanf(line.c_str(), "@@ -%lu +%lu,%lu @@", &a, &c, &d) != 3 &&
            std::sscanf(line.c_str(), "@@ -%lu,%lu +%lu @@", &a, &b, &c) != 3 &&
            std::sscanf(line.c_str(), "@@ -%lu +%lu @@", &a, &c) != 2) {
          throw SourceFailure("patch of " + file + ": bad hunk header '" + line + "'");
        }
      }
      Hunk h;
      h.old_start = a;
      h.old_lines = b;
      h.new_start = c;
      h.new_lines = d;
      hunks.push_back(std::move(h));
      old_no = a;
      new_no = c;
      continue;
    }
    if (hunks.empty() || line.empty() || line[0] == '\\') continue;
    DiffLine dl;
    dl.origin = line[0];
    dl.text = line.substr(1);
    if (dl.origin == '-') {
      dl.old_line = old_no++;
    } else if (dl.origin == '+') {
      dl.new_line = new_no++;
    } else if (dl.origin == ' ') {
      dl.old_line = old_no++;
      dl.new_line = new_no++;
    } else {
      continue;
    }
    hunks.back().lines.push_back(std::move(dl));
  }
  return hunks;
}

GithubSource::GithubSource(GithubOptions options) : o_(std::move(options)) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (!o_.sleep) {
    o_.sleep = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
  }
  while (!o_.api_url.empty() && o_.api_url.back() == '/') o_.api_url.pop_back();
}

std::string GithubSource::get_text(const std::string& url, std::string* next_url) {
  int failures = 0;
  int waits = 0;
  std::string last_problem;
  for (;;) {
    if (o_.cancelled && o_.cancelled()) throw SourceFailure("cancelled while fetching " + url);
    Response r;
    CURL* curl = curl_easy_init();
    if (curl == nullptr) throw SourceFailure("libcurl could not start a request for " + url);
    curl_slist* headers = nullptr;
    headers = curl_slist_append(headers, "Accept: application/vnd.github+json");
    headers = curl_slist_append(headers, "X-GitHub-Api-Version: 2022-11-28");
    if (!o_.token.empty()) {
      headers = curl_slist_append(headers, ("Authorization: Bearer " + o_.token).c_str());
    }
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "skillrt-pr-analysis");
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, o_.timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, o_.timeout_ms);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &r.headers);
    const CURLcode rc = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    ++stats_.requests;

    bool retry = false;
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      last_problem = "timed out after " + std::to_string(o_.timeout_ms) + " ms";
      retry = true;
    } else if (rc != CURLE_OK) {
      last_problem = std::string("request failed: ") + curl_easy_strerror(rc);
      retry = true;
    } else if (r.status >= 500) {
      last_problem = "server error HTTP " + std::to_string(r.status);
      retry = true;
    } else if (r.status == 403 || r.status == 429) {
      double wait = -1;
      if (auto it = r.headers.find("retry-after"); it != r.headers.end()) {
        wait = std::atof(it->second.c_str());
      } else if (auto rem = r.headers.find("x-ratelimit-remaining");
                 rem != r.headers.end() && rem->second == "0") {
        if (auto reset = r.headers.find("x-ratelimit-reset"); reset != r.headers.end()) {
          const double now =
              static_cast<double>(std::chrono::duration_cast<std::chrono::seconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count());
          wait = std::max(1.0, std::atof(reset->second.c_str()) - now + 1);
        }
      }
      if (wait < 0) {
        throw SourceFailure("GET " + url + ": HTTP " + std::to_string(r.status) +
                            " without rate-limit headers (access denied); check GITHUB_TOKEN " +
                            "and that it can read " + o_.owner + "/" + o_.repo);
      }
      if (wait > o_.max_wait_s || ++waits > kMaxRateLimitWaits) {
        throw SourceFailure(
            "GET " + url + ": rate limited, the server asks to wait " +
            std::to_string(static_cast<long>(wait)) + " s (more than " +
            "github.max_wait_s = " + std::to_string(static_cast<long>(o_.max_wait_s)) +
            "); set GITHUB_TOKEN for a higher limit, or raise max_wait_s");
      }
      stats_.rate_limit_waits.push_back(wait);
      o_.sleep(wait);
      continue;
    } else if (r.status != 200) {
      std::string message;
      try {
        message = str(json::parse(r.body), "message");
      } catch (const json::exception&) {
      }
      throw SourceFailure("GET " + url + ": HTTP " + std::to_string(r.status) +
                          (message.empty() ? "" : " (" + message + ")") +
                          (r.status == 404 ? "; check github.owner/github.repo and PR numbers"
                                           : "; check the request and the token"));
    }
    if (retry) {
      if (failures++ >= o_.max_retries) {
        throw SourceFailure("GET " + url + ": " + last_problem + " (" + std::to_string(failures) +
                            " attempts); retry later or raise " +
                            "github.timeout_ms / github.max_retries");
      }
      ++stats_.retries;
      o_.sleep(static_cast<double>(o_.retry_base_ms) * std::pow(2.0, failures - 1) / 1000.0);
      continue;
    }
    if (next_url != nullptr) {
      auto it = r.headers.find("link");
      *next_url = it == r.headers.end() ? "" : next_link(it->second);
    }
    ++stats_.pages;
    return std::move(r.body);
  }
}

json GithubSource::get_json(const std::string& url, std::string* next_url) {
  const std::string body = get_text(url, next_url);
  try {
    return json::parse(body);
  } catch (const json::exception& e) {
    throw SourceFailure("GET " + url + ": the response is not JSON (" + e.what() +
                        "); no report was written: check github.api_url points at the REST API");
  }
}

ChangeSet GithubSource::to_change_set(const json& pr) {
  if (!pr.is_object() || !pr.contains("number") || !pr["number"].is_number_integer()) {
    throw SourceFailure("GitHub PR object without a number from " + o_.api_url +
                        "; the response does not look like the pulls API");
  }
  ChangeSet cs;
  cs.pr = pr["number"].get<int64_t>();
  cs.pr_source = "api";
  cs.title = str(pr, "title");
  const std::string body = str(pr, "body");
  cs.message = cs.title + "\n\n" + body;
  cs.sha = str(pr, "merge_commit_sha");
  if (pr.contains("user") && pr["user"].is_object()) cs.author = str(pr["user"], "login");
  const std::string merged_at = str(pr, "merged_at");
  const std::string closed_at = str(pr, "closed_at");
  const auto t = parse_date(merged_at.empty() ? closed_at : merged_at, false);
  cs.time = t.value_or(0);
  if (pr.contains("labels") && pr["labels"].is_array()) {
    for (const json& l : pr["labels"]) {
      if (l.is_object()) cs.labels.push_back(str(l, "name"));
    }
  }
  const PrLink link = map_commit_to_pr(cs.message);
  cs.revert = link.revert;
  cs.reverted_sha = link.reverted_sha;
  return cs;
}

void GithubSource::add_files(ChangeSet* cs) {
  std::string url = o_.api_url + "/repos/" + o_.owner + "/" + o_.repo + "/pulls/" +
                    std::to_string(*cs->pr) + "/files?per_page=" + std::to_string(o_.per_page);
  while (!url.empty()) {
    std::string next;
    const json page = get_json(url, &next);
    if (!page.is_array()) {
      throw SourceFailure("GET " + url + ": expected a JSON array of files; no report was written");
    }
    for (const json& f : page) {
      FileDiff fd;
      fd.path = str(f, "filename");
      if (fd.path.empty()) {
        throw SourceFailure("GET " + url + ": a file entry has no filename; no report was written");
      }
      fd.old_path = str(f, "previous_filename");
      if (fd.old_path.empty()) fd.old_path = fd.path;
      fd.status = str(f, "status");
      fd.additions = f.value("additions", size_t{0});
      fd.deletions = f.value("deletions", size_t{0});
      const std::string patch = str(f, "patch");
      fd.binary = patch.empty() && (fd.additions + fd.deletions) > 0;
      fd.hunks = parse_patch(patch, fd.path);
      if (detail::operator_file_format(fd.path) != ops::SourceFormat::kUnknown) {
        // Only what the patch shows is known of each version: enough for the entries it touches.
        fd.has_versions = true;
        fd.partial_versions = true;
        for (const Hunk& h : fd.hunks) {
          for (const DiffLine& l : h.lines) {
            if (l.old_line > 0) fd.old_version.push_back({l.old_line, l.text});
            if (l.new_line > 0) fd.new_version.push_back({l.new_line, l.text});
          }
        }
      }
      cs->files.push_back(std::move(fd));
    }
    url = next;
  }
}

std::vector<ChangeSet> GithubSource::merged_in_window(int64_t since, int64_t until) {
  std::vector<ChangeSet> out;
  std::string url = o_.api_url + "/repos/" + o_.owner + "/" + o_.repo +
                    "/pulls?state=closed&base=" + o_.base +
                    "&sort=updated&direction=desc&per_page=" + std::to_string(o_.per_page);
  bool older = false;
  while (!url.empty() && !older) {
    std::string next;
    const json page = get_json(url, &next);
    if (!page.is_array()) {
      throw SourceFailure("GET " + url + ": expected a JSON array of PRs; no report was written");
    }
    for (const json& pr : page) {
      // Sorted by update time: once a PR was last updated before the window, none later in
      // the list can have merged inside it.
      const auto updated = parse_date(str(pr, "updated_at"), false);
      if (updated && *updated < since) {
        older = true;
        break;
      }
      ChangeSet cs = to_change_set(pr);
      const bool merged =
          !str(pr, "merged_at").empty() ||
          std::find(cs.labels.begin(), cs.labels.end(), "merged") != cs.labels.end();
      if (!merged || cs.time < since || cs.time > until) continue;
      out.push_back(std::move(cs));
      if (out.size() >= o_.max_prs) {
        older = true;
        break;
      }
    }
    url = next;
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ChangeSet& a, const ChangeSet& b) { return a.time < b.time; });
  for (size_t i = 0; i < out.size(); ++i) {
    if (o_.progress) {
      o_.progress(static_cast<double>(i), static_cast<double>(out.size()),
                  "PR #" + std::to_string(*out[i].pr));
    }
    add_files(&out[i]);
  }
  return out;
}

std::vector<ChangeSet> GithubSource::by_number(const std::vector<int64_t>& numbers) {
  std::vector<ChangeSet> out;
  for (size_t i = 0; i < numbers.size(); ++i) {
    if (o_.progress) {
      o_.progress(static_cast<double>(i), static_cast<double>(numbers.size()),
                  "PR #" + std::to_string(numbers[i]));
    }
    const json pr = get_json(
        o_.api_url + "/repos/" + o_.owner + "/" + o_.repo + "/pulls/" + std::to_string(numbers[i]),
        nullptr);
    ChangeSet cs = to_change_set(pr);
    if (str(pr, "merged_at").empty()) cs.labels.push_back("(not merged)");
    add_files(&cs);
    out.push_back(std::move(cs));
  }
  return out;
}

}  // namespace skillrt::pr_analysis
