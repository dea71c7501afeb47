#include "inferencex_report.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "bench_analysis.hpp"
#include "bench_report.hpp"
#include "bench_source.hpp"
#include "errors.hpp"      // pr-analysis
#include "git_source.hpp"  // pr-analysis
#include "history_store.hpp"

namespace skillrt::daily_trackers {
namespace {

constexpr const char* kSkill = "inferencex-report";

struct BenchSpec {
  std::string name;
  std::string url;
  std::string file;
  std::string format = "auto";
};

std::vector<BenchSpec> bench_specs(const Json& in) {
  std::vector<BenchSpec> out;
  for (const Json& s : in.at("sources")) {
    BenchSpec b{s.value("name", std::string()), s.value("url", std::string()),
                s.value("file", std::string()), s.value("format", std::string("auto"))};
    if (b.url.empty() == b.file.empty()) {
      throw InputError("sources[] '" + b.name + "': give exactly one of `url` and `file`");
    }
    if (b.name.empty()) b.name = b.url.empty() ? b.file : b.url;
    out.push_back(std::move(b));
  }
  return out;
}

std::string read_text(const BenchSpec& s, const Json& in, const Hooks& hooks, Json* stats) {
  if (!s.file.empty()) {
    std::ifstream f(s.file, std::ios::binary);
    if (!f) throw BenchFormatError(s.file + " cannot be read; check the path in sources[].file");
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  pr_analysis::GithubOptions o = github_options(in, hooks);
  o.token.clear();  // a GitHub token is not for third-party benchmark servers
  pr_analysis::GithubSource http(o);
  std::string text = http.get_text(s.url, nullptr);
  *stats = {{"requests", http.stats().requests}, {"retries", http.stats().retries}};
  return text;
}

void fetch_bench(HistoryStore& store, int64_t run, const BenchSpec& spec, const Json& in,
                 const Hooks& hooks, const std::string& as_of, SourceStatus* st) {
  st->name = spec.name;
  st->mode = spec.file.empty() ? "http" : "file";
  if (store.checkpoint(run, spec.name).done) {
    st->ok = true;
    st->resumed = true;
    return;
  }
  try {
    const std::string text = read_text(spec, in, hooks, &st->stats);
    std::vector<BenchPoint> points = parse_bench_rows(text, spec.format, spec.name, as_of);
    for (BenchPoint& p : points) p.source = spec.name;
    store.save_points(run, spec.name, points, Checkpoint{"", true});
    st->ok = true;
  } catch (const std::exception& e) {
    st->error = spec.name + ": " + e.what();
    store.mark_failed(run, spec.name, e.what());
  }
}

}  // namespace

Json run_inferencex_report(const Json& in, const Hooks& hooks) {
  const std::string as_of = in.value("as_of", today_utc());
  if (!pr_analysis::parse_date(as_of, false)) {
    throw InputError("`as_of` '" + as_of + "' is not a date: write YYYY-MM-DD");
  }
  const std::vector<BenchSpec> specs = bench_specs(in);
  BenchOptions opt;
  opt.threshold_pct = in.value("threshold_pct", opt.threshold_pct);
  opt.isl = in.value("isl", opt.isl);
  opt.osl = in.value("osl", opt.osl);
  Json notes = Json::array();
  std::string db = in.value("db", std::string());
  if (db.empty() && in.contains("output_dir")) db = output_path(in, "inferencex-report.sqlite");
  if (db.empty()) {
    db = ":memory:";
    notes.push_back(
        "no `db` or `output_dir`: no history, so nothing can be compared with a "
        "previous run");
  }
  HistoryStore store(db);
  std::string run_key = "as_of=" + as_of;
  for (const BenchSpec& s : specs) run_key += ";" + s.name;
  const RunInfo run = store.begin_run(kSkill, run_key);
  std::vector<SourceStatus> statuses(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    if (hooks.progress)
      hooks.progress(static_cast<double>(i), static_cast<double>(specs.size()), specs[i].name);
    fetch_bench(store, run.id, specs[i], in, hooks, as_of, &statuses[i]);
  }
  const bool all_ok =
      std::all_of(statuses.begin(), statuses.end(), [](const SourceStatus& s) { return s.ok; });
  if (std::none_of(statuses.begin(), statuses.end(), [](const SourceStatus& s) { return s.ok; })) {
    std::string why;
    for (const auto& s : statuses) why += (why.empty() ? "" : "; ") + s.error;
    throw pr_analysis::SourceFailure("every benchmark source failed, no report was written: " +
                                     why);
  }
  const std::vector<BenchPoint> points = store.run_points(run.id);
  for (SourceStatus& s : statuses) {
    s.items = static_cast<size_t>(std::count_if(
        points.begin(), points.end(), [&](const BenchPoint& p) { return p.source == s.name; }));
    if (!s.ok) notes.push_back("source failed: " + s.error);
  }
  const BenchAnalysis analysis =
      analyze_bench(points, store.point_history(run.id, kSkill), run.id, run.previous, opt);
  if (all_ok) {
    store.finish_run(run.id);
  } else {
    notes.push_back(
        "some sources failed; the run stays open: call again with the same as_of to "
        "retry them, the sources that worked are not fetched again");
  }
  BenchReportData d{as_of, opt, statuses, points, analysis, notes};
  ReportTexts texts{"inferencex-report-" + as_of, bench_markdown(d), bench_html(d), bench_json(d)};
  const std::string subject = "InferenceX daily report " + as_of + ": " +
                              std::to_string(analysis.changes.size()) + " changes, " +
                              std::to_string(points.size()) + " points";
  Json delivered = deliver(in, texts, subject, &notes);
  if (in.contains("output_dir")) {
    const std::string xlsx = output_path(in, texts.stem + ".xlsx");
    write_bench_xlsx(d, xlsx);
    delivered["reports"]["xlsx"] = xlsx;
  }
  Json out = bench_summary(d);
  out["run"] = {
      {"id", run.id},       {"resumed", run.resumed},
      {"complete", all_ok}, {"previous_run", run.previous ? Json(*run.previous) : Json(nullptr)},
      {"history", db},      {"schema_version", store.schema_version()}};
  Json sources = Json::array();
  for (const auto& s : statuses) sources.push_back(s.to_json());
  out["sources"] = sources;
  out["reports"] = delivered["reports"];
  if (delivered.contains("email")) out["email"] = delivered["email"];
  out["llm_analysis"] = kLlmNote;
  out["notes"] = notes;
  return out;
}

}  // namespace skillrt::daily_trackers
