#include "vllm_tracker.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "embedded_data.hpp"
#include "errors.hpp"      // pr-analysis
#include "git_source.hpp"  // pr-analysis
#include "history_store.hpp"
#include "item_sources.hpp"
#include "vllm_report.hpp"

namespace skillrt::daily_trackers {
namespace {

constexpr const char* kSkill = "vllm-tracker";
constexpr size_t kMaxItemsInResult = 50;

struct RepoSpec {
  std::string name;
  std::string local_path;
  std::string ref = "HEAD";
  std::string source_id() const { return name + (local_path.empty() ? "@github" : "@local"); }
};

std::vector<RepoSpec> repo_specs(const Json& in) {
  std::vector<RepoSpec> out;
  if (!in.contains("repos")) {
    out.push_back({"vllm-project/vllm", "", "HEAD"});
    out.push_back({"vllm-project/vllm-ascend", "", "HEAD"});
    return out;
  }
  for (const Json& r : in["repos"]) {
    RepoSpec s{r.at("name").get<std::string>(), r.value("local_path", std::string()),
               r.value("ref", std::string("HEAD"))};
    if (s.name.find('/') == std::string::npos) {
      throw InputError("repos[].name '" + s.name + "' must be owner/name, e.g. vllm-project/vllm");
    }
    out.push_back(std::move(s));
  }
  return out;
}

void fetch_github(HistoryStore& store, int64_t run, const RepoSpec& spec, const Json& in,
                  const Hooks& hooks, int64_t since, int64_t until, SourceStatus* status) {
  pr_analysis::GithubOptions o = github_options(in, hooks);
  const auto slash = spec.name.find('/');
  o.owner = spec.name.substr(0, slash);
  o.repo = spec.name.substr(slash + 1);
  pr_analysis::GithubSource gh(o);
  Checkpoint cp = store.checkpoint(run, spec.source_id());
  std::string url =
      cp.cursor.empty()
          ? first_issues_url(o.api_url, spec.name, pr_analysis::format_time(since), o.per_page)
          : cp.cursor;
  size_t pages = 0;
  while (!url.empty()) {
    if (hooks.progress)
      hooks.progress(static_cast<double>(pages), 0,
                     spec.name + " page " + std::to_string(pages + 1));
    IssuePage page = fetch_issue_page(gh, url, spec.name, since, until);
    store.save_items(run, spec.source_id(), page.items, Checkpoint{page.next, page.next.empty()});
    url = page.next;
    ++pages;
  }
  status->stats = {{"requests", gh.stats().requests},
                   {"pages", gh.stats().pages},
                   {"retries", gh.stats().retries},
                   {"rate_limit_waits_s", gh.stats().rate_limit_waits}};
}

void fetch_source(HistoryStore& store, int64_t run, const RepoSpec& spec, const Json& in,
                  const Hooks& hooks, int64_t since, int64_t until, SourceStatus* status) {
  status->name = spec.name;
  status->mode = spec.local_path.empty() ? "github" : "local";
  if (store.checkpoint(run, spec.source_id()).done) {
    status->ok = true;
    status->resumed = true;
    return;
  }
  try {
    if (spec.local_path.empty()) {
      fetch_github(store, run, spec, in, hooks, since, until, status);
    } else {
      const auto items = local_items(spec.local_path, spec.name, spec.ref, since, until,
                                     in.value("max_commits", size_t{5000}));
      store.save_items(run, spec.source_id(), items, Checkpoint{"", true});
      status->stats = {{"commits", items.size()}, {"path", spec.local_path}};
    }
    status->ok = true;
  } catch (const std::exception& e) {
    status->error = spec.name + " (" + status->mode + "): " + e.what();
    store.mark_failed(run, spec.source_id(), e.what());
  }
}

std::string change_of(const TrackedItem& now, const std::optional<TrackedItem>& before) {
  if (!before) return "new";
  if (before->state != now.state) {
    if (now.state == "merged") return "merged";
    if (now.state == "closed") return "closed";
    return "reopened";
  }
  if (before->updated_at != now.updated_at || before->comments != now.comments) return "updated";
  return "unchanged";
}

std::string summary_of(const TrackedItem& t, const Assessment& a) {
  std::string s = (t.kind == "pr"      ? "PR"
                   : t.kind == "issue" ? "Issue"
                                       : "Commit") +
                  std::string(", ") + t.state;
  if (!t.author.empty()) s += ", by " + t.author;
  s += ": " + t.title + ".";
  if (t.comments > 0) s += " " + std::to_string(t.comments) + " comments.";
  if (!t.labels.empty()) {
    s += " Labels:";
    for (const auto& l : t.labels) s += " " + l;
    s += ".";
  }
  if (!t.linked.empty()) {
    s += " Refers to";
    for (int64_t n : t.linked) s += " #" + std::to_string(n);
    s += ".";
  }
  if (!t.files.empty()) s += " Changes " + std::to_string(t.files.size()) + " files.";
  if (!a.citations.empty()) {
    s += " Matches:";
    for (size_t i = 0; i < a.citations.size(); ++i) {
      s += (i ? ", " : " ") + a.citations[i].title + " (" + a.citations[i].field + ")";
    }
    s += ".";
  }
  return s;
}

bool wanted(const Assessment& a, const std::vector<std::string>& models,
            const std::vector<std::string>& topics, bool include_unmatched) {
  auto any_of = [](const std::vector<std::string>& want, const std::vector<std::string>& got) {
    for (const auto& w : want) {
      for (const auto& g : got) {
        std::string x = w;
        std::string y = g;
        std::transform(x.begin(), x.end(), x.begin(), ::tolower);
        std::transform(y.begin(), y.end(), y.begin(), ::tolower);
        if (x == y) return true;
      }
    }
    return false;
  };
  if (!models.empty() && !any_of(models, a.models)) return false;
  if (!topics.empty() && !any_of(topics, a.topics)) return false;
  return include_unmatched || !a.citations.empty();
}

}  // namespace

TrackerRules load_tracker_rules(const Json& in) {
  TrackerRules rules =
      parse_tracker_rules(embedded_data("tracker_rules.yaml"), "tracker_rules.yaml (shipped)");
  if (!in.contains("rules")) return rules;
  const std::string path = in["rules"].get<std::string>();
  std::ifstream f(path);
  if (!f) {
    throw InputError("rules '" + path + "' cannot be read; pass the path of a YAML rule file " +
                     "(format in docs/daily-trackers.md)");
  }
  std::stringstream ss;
  ss << f.rdbuf();
  merge_tracker_rules(rules, parse_tracker_rules(ss.str(), path));
  return rules;
}

Json run_vllm_tracker(const Json& in, const Hooks& hooks) {
  const TrackerRules rules = load_tracker_rules(in);
  const int64_t now = pr_analysis::parse_date(today_utc(), true).value_or(0);
  const int64_t until = date_field(in, "until", true, now);
  const int64_t days = in.value("days", int64_t{1});
  const int64_t since = date_field(in, "since", false, until + 1 - days * 86400);
  if (since > until) throw InputError("`since` is after `until`; swap them");
  const std::vector<RepoSpec> specs = repo_specs(in);
  Json notes = Json::array();
  std::string db = in.value("db", std::string());
  if (db.empty() && in.contains("output_dir")) db = output_path(in, "vllm-tracker.sqlite");
  if (db.empty()) {
    db = ":memory:";
    notes.push_back(
        "no `db` or `output_dir`: the history lives in memory for this call only, so "
        "every item is new and an interrupted run cannot resume");
  }
  HistoryStore store(db);
  std::string run_key =
      "since=" + pr_analysis::format_time(since) + ";until=" + pr_analysis::format_time(until);
  for (const RepoSpec& s : specs)
    run_key += ";" + s.source_id() + (s.local_path.empty() ? "" : "=" + s.ref);
  const RunInfo run = store.begin_run(kSkill, run_key);

  std::vector<SourceStatus> statuses(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    fetch_source(store, run.id, specs[i], in, hooks, since, until, &statuses[i]);
  }
  const bool all_ok =
      std::all_of(statuses.begin(), statuses.end(), [](const SourceStatus& s) { return s.ok; });
  const bool any_ok =
      std::any_of(statuses.begin(), statuses.end(), [](const SourceStatus& s) { return s.ok; });
  if (!any_ok) {
    std::string why;
    for (const auto& s : statuses) why += (why.empty() ? "" : "; ") + s.error;
    throw pr_analysis::SourceFailure("every source failed, no report was written: " + why);
  }

  const auto models = in.value("models", std::vector<std::string>{});
  const auto topics = in.value("topics", std::vector<std::string>{});
  const bool include_unmatched = in.value("include_unmatched", false);
  DigestData d;
  d.window_since = pr_analysis::format_time(since);
  d.window_until = pr_analysis::format_time(until);
  d.rule_sources = rules.sources;
  d.has_previous = run.previous.has_value();
  for (const SourceStatus& s : statuses) d.sources.push_back(s);
  for (const TrackedItem& t : store.run_items(run.id)) {
    for (SourceStatus& s : d.sources) {
      if (s.name == t.repo) ++s.items;
    }
    Assessment a = assess(rules, t);
    if (!a.excluded_by.empty()) {
      ++d.excluded[a.excluded_by.substr(0, a.excluded_by.find(':', a.excluded_by.find(')')))];
      continue;
    }
    if (!wanted(a, models, topics, include_unmatched)) {
      ++d.unmatched;
      continue;
    }
    const std::string change = change_of(t, store.previous_item(run.id, kSkill, t.repo, t.key));
    d.items.push_back(DigestItem{t, a, change, summary_of(t, a)});
  }
  std::stable_sort(d.items.begin(), d.items.end(), [](const DigestItem& x, const DigestItem& y) {
    return x.assessment.rating > y.assessment.rating;
  });
  if (!all_ok) {
    notes.push_back(
        "some sources failed (see sources); the run stays open: call again with the "
        "same window to retry them, the sources that worked are not fetched again");
  } else {
    store.finish_run(run.id);
  }
  for (const SourceStatus& s : d.sources) {
    if (!s.ok) notes.push_back("source failed: " + s.error);
  }
  d.notes = notes;

  ReportTexts texts{"vllm-tracker-" + day_of(until), digest_markdown(d), digest_html(d),
                    digest_json(d)};
  const std::string subject = "vLLM / vllm-ascend digest " + day_of(since) + " .. " +
                              day_of(until) + ": " + std::to_string(d.items.size()) + " items";
  Json delivered = deliver(in, texts, subject, &notes);

  Json out = digest_counts(d);
  out["window"] = {{"since", d.window_since}, {"until", d.window_until}};
  out["run"] = {{"id", run.id},
                {"resumed", run.resumed},
                {"complete", all_ok},
                {"history", db},
                {"schema_version", store.schema_version()}};
  Json sources = Json::array();
  for (const auto& s : d.sources) sources.push_back(s.to_json());
  out["sources"] = sources;
  out["reports"] = delivered["reports"];
  if (delivered.contains("email")) out["email"] = delivered["email"];
  out["llm_analysis"] = kLlmNote;
  Json items = Json::array();
  for (size_t i = 0; i < d.items.size() && i < kMaxItemsInResult; ++i)
    items.push_back(item_json(d.items[i]));
  out["items"] = items;
  if (d.items.size() > kMaxItemsInResult) {
    notes.push_back("the result lists the first " + std::to_string(kMaxItemsInResult) + " of " +
                    std::to_string(d.items.size()) + " items; every item is in the reports" +
                    (in.contains("output_dir") ? "" : " (pass output_dir to write them)"));
  }
  out["notes"] = notes;
  return out;
}

}  // namespace skillrt::daily_trackers
