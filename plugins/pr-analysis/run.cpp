#include "run.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "analyzer.hpp"
#include "embedded_data.hpp"
#include "errors.hpp"
#include "git_source.hpp"
#include "github_source.hpp"
#include "npu_side.hpp"
#include "report.hpp"

namespace skillrt::pr_analysis {

size_t trim_for_result(Json& prs) {
  size_t trimmed = 0;
  for (Json& p : prs) {
    bool cut = false;
    for (const char* key : {"evidence", "npu_hits"}) {
      if (!p.contains(key) || p[key].size() <= kListedInResult) continue;
      p[std::string(key) + "_total"] = p[key].size();
      p[key].erase(p[key].begin() + static_cast<std::ptrdiff_t>(kListedInResult), p[key].end());
      cut = true;
    }
    if (cut) ++trimmed;
  }
  return trimmed;
}

namespace {

std::optional<int64_t> date_field(const Json& in, const char* key, bool end_of_day) {
  if (!in.contains(key)) return std::nullopt;
  const std::string text = in[key].get<std::string>();
  auto t = parse_date(text, end_of_day);
  if (!t) {
    throw InputError(std::string("`") + key + "` '" + text +
                     "' is not a date: write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC)");
  }
  return t;
}

std::string describe_window(const Json& in) {
  std::string s;
  if (in.contains("since")) s += " since " + in["since"].get<std::string>();
  if (in.contains("until")) s += " until " + in["until"].get<std::string>();
  return s;
}

}  // namespace

RulePack load_rule_pack(const std::string& extra_path) {
  RulePack pack;
  try {
    pack = parse_rule_pack(embedded_data("rules.yaml"), "rules.yaml (shipped)");
  } catch (const std::exception& e) {
    throw InputError(std::string("the shipped rule pack is broken: ") + e.what());
  }
  if (!extra_path.empty()) {
    std::ifstream in(extra_path);
    if (!in) {
      throw InputError("rules '" + extra_path + "' cannot be read; pass the path of a YAML rule " +
                       "pack (format in docs/pr-analysis.md)");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    try {
      merge_rule_pack(pack, parse_rule_pack(ss.str(), extra_path));
    } catch (const std::runtime_error& e) {
      throw InputError(e.what());
    }
  }
  for (const Rule& r : pack.rules) {
    if (pack.category(r.category) == nullptr) {
      throw InputError("rule '" + r.id + "' (" + r.origin + ") names category '" + r.category +
                       "', which no `categories` entry declares; add it to the pack");
    }
  }
  return pack;
}

Json run_pr_analysis(const Json& in, const RunHooks& hooks) {
  const std::string source = in.value("source", std::string("local"));
  const RulePack pack = load_rule_pack(in.value("rules", std::string()));
  NpuIndex npu;
  npu.load(in.value("torch_npu", std::string()), in.value("op_plugin", std::string()));
  const std::string repo_url =
      in.value("repo_url", std::string("https://github.com/pytorch/pytorch"));
  Analyzer analyzer(pack, &npu, repo_url);
  Json meta{{"source", source},
            {"rule_packs", pack.sources},
            {"repo_url", repo_url},
            {"npu_side", npu.loaded()}};
  std::vector<int64_t> prs;
  if (in.contains("prs")) prs = in["prs"].get<std::vector<int64_t>>();
  const auto since = date_field(in, "since", false);
  const auto until = date_field(in, "until", true);
  if (since && until && *since > *until) {
    throw InputError("`since` (" + in["since"].get<std::string>() + ") is after `until` (" +
                     in["until"].get<std::string>() + "); swap them");
  }
  std::string empty_reason;
  Json notes = Json::array();

  if (source == "local") {
    if (!in.contains("repo")) {
      throw InputError("`repo` is required for the local source: the path of a PyTorch clone " +
                       std::string("(or set source: github)"));
    }
    const std::string repo = in["repo"];
    if (!in.contains("rev_range") && prs.empty() && !since && !until) {
      throw InputError("say what to analyse: `since`/`until`, `rev_range` or `prs`");
    }
    GitSource git(repo);
    LocalQuery q;
    q.ref = in.value("ref", std::string("HEAD"));
    q.since = since;
    q.until = until;
    q.rev_range = in.value("rev_range", std::string());
    q.prs = prs;
    q.max_commits = in.value("max_commits", size_t{5000});
    const Selection sel = git.select(q);
    meta["source_description"] =
        "local clone " + repo +
        (q.rev_range.empty() ? " (" + q.ref + describe_window(in) + ")" : " " + q.rev_range);
    empty_reason = sel.empty_reason;
    if (sel.truncated) {
      notes.push_back("more than max_commits = " + std::to_string(q.max_commits) +
                      " commits matched; the oldest beyond it were not analysed (raise max_commits "
                      "or narrow the window)");
    }
    for (int64_t n : sel.prs_not_found) {
      notes.push_back("PR #" + std::to_string(n) + " is not named by any commit message examined");
    }
    for (size_t i = 0; i < sel.shas.size(); ++i) {
      if (hooks.cancelled && hooks.cancelled()) {
        throw SourceFailure("cancelled after " + std::to_string(i) + " of " +
                            std::to_string(sel.shas.size()) + " commits; no report was written");
      }
      if (hooks.progress && (i % 16 == 0 || i + 1 == sel.shas.size())) {
        hooks.progress(static_cast<double>(i), static_cast<double>(sel.shas.size()),
                       "commit " + sel.shas[i].substr(0, 12));
      }
      analyzer.add(git.load(sel.shas[i]));
    }
  } else if (source == "github") {
    GithubOptions o = GithubOptions::from_json(in.value("github", Json::object()));
    o.sleep = hooks.sleep;
    o.cancelled = hooks.cancelled;
    o.progress = hooks.progress;
    if (o.token.empty())
      notes.push_back("GITHUB_TOKEN is not set: unauthenticated, 60 requests/hour");
    if (prs.empty() && !since) {
      throw InputError("the GitHub source needs `since` (and optionally `until`) or `prs`");
    }
    GithubSource gs(o);
    std::vector<ChangeSet> sets;
    if (!prs.empty()) {
      sets = gs.by_number(prs);
    } else {
      sets = gs.merged_in_window(*since, until.value_or(INT64_MAX));
    }
    meta["source_description"] = "GitHub " + o.owner + "/" + o.repo + describe_window(in);
    meta["github"] = {{"requests", gs.stats().requests},
                      {"retries", gs.stats().retries},
                      {"rate_limit_waits_s", gs.stats().rate_limit_waits}};
    if (sets.empty()) {
      empty_reason =
          "no merged PRs into " + o.base + " of " + o.owner + "/" + o.repo + describe_window(in);
    }
    for (const ChangeSet& cs : sets) analyzer.add(cs);
  } else {
    throw InputError("`source` must be local or github, not '" + source + "'");
  }

  Json analysis = analyzer.result();
  analysis["meta"] = meta;
  if (!empty_reason.empty()) analysis["empty_reason"] = empty_reason;
  analysis["notes"] = notes;

  Json out{{"summary", analysis["summary"]}, {"notes", notes}, {"source", meta}};
  if (!empty_reason.empty()) out["empty_reason"] = empty_reason;
  if (in.contains("output_dir")) {
    std::vector<std::string> formats = {"json", "xlsx", "md", "html"};
    if (in.contains("formats")) formats = in["formats"].get<std::vector<std::string>>();
    try {
      out["reports"] = write_reports(analysis, in["output_dir"].get<std::string>(), formats);
    } catch (const std::runtime_error& e) {
      throw InputError(e.what());
    }
    out["dry_run"] = false;
  } else {
    out["reports"] = Json::object();
    out["dry_run"] = true;
    notes.push_back("no output_dir: nothing was written; the analysis is in `prs`");
    out["notes"] = notes;
  }
  if (!in.contains("output_dir") || in.value("include_prs", false)) {
    Json prs = analysis["prs"];
    if (const size_t n = trim_for_result(prs); n > 0) {
      const std::string where = out["reports"].contains("json")
                                    ? "the full lists are in " +
                                          out["reports"]["json"].get<std::string>() +
                                          " (and the Markdown and Excel reports)"
                                    : "pass output_dir to write the reports, which list every item";
      notes.push_back(std::to_string(n) + " PRs have more than " + std::to_string(kListedInResult) +
                      " evidence items or NPU hits; this result lists the first " +
                      std::to_string(kListedInResult) + " of each (see evidence_total, " +
                      "npu_hits_total); " + where);
      out["notes"] = notes;
    }
    out["prs"] = std::move(prs);
  }
  return out;
}

}  // namespace skillrt::pr_analysis
