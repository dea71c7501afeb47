#include "detail/batch.hpp"

#include <algorithm>
#include <atomic>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "detail/case_runner.hpp"
#include "plugin_io/atomic_file.hpp"

namespace skillrt::issue_pipeline::detail {

namespace {

void check_distinct_ids(const Json& cases) {
  std::set<std::string> ids;
  for (const auto& c : cases) {
    const std::string id = c.contains("case_id") ? c["case_id"].get<std::string>()
                                                 : case_id_from_test(c.value("case", ""));
    if (!ids.insert(id).second) {
      throw fail(SKILLRT_INVALID_ARGUMENT,
                 "cases: two cases share the case id " + id + "; give them distinct case_id");
    }
  }
}

// The row of a case that threw: the error and, when it got as far as a state, its step statuses.
Json failure_row(const CaseRunner& runner, const Json& per_case, const std::string& error) {
  Json r = Json::object();
  r["case_id"] =
      runner.case_id().empty() ? case_id_from_test(per_case.value("case", "")) : runner.case_id();
  r["test"] = per_case.value("case", "");
  r["ok"] = false;
  r["error"] = error;
  if (runner.state().is_object() && runner.state().contains("steps")) {
    Json steps = Json::object();
    for (const auto& step : kSteps) {
      steps[step] = Json{{"status", runner.state()["steps"][step]["status"]}};
    }
    r["steps"] = steps;
    if (runner.state().contains("route")) r["route"] = runner.state()["route"];
  }
  return r;
}

Json cancelled_row(const Json& per_case) {
  return Json{{"case_id", per_case.value("case_id", case_id_from_test(per_case.value("case", "")))},
              {"test", per_case.value("case", "")},
              {"ok", false},
              {"error", "cancelled before it started"}};
}

Json run_case(const Json& per_case, const Settings& s, SharedEnv& shared, Context& ctx) {
  CaseRunner runner(s, per_case, shared, ctx, true);
  try {
    Json result = runner.run();
    result["ok"] = true;
    return result;
  } catch (const std::exception& e) {
    // One broken case is reported and the others go on.
    return failure_row(runner, per_case, e.what());
  }
}

std::string summary_table(const Json& cases) {
  std::ostringstream md;
  md << "| case | test | route | env | reproduce | diagnose | fix | verify | deliver | result |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : cases) {
    md << "| " << c["case_id"].get<std::string>() << " | `" << c.value("test", "") << "` | "
       << (c.contains("route") && c["route"].is_object() ? c["route"]["route"].get<std::string>()
                                                         : "")
       << " |";
    for (const auto& step : kSteps) {
      std::string s = c.contains("steps") ? c["steps"][step]["status"].get<std::string>() : "-";
      if (step == "reproduce" && c.contains("reproduce"))
        s += " (" + c["reproduce"].get<std::string>() + ")";
      if (step == "diagnose" && c.contains("diagnosis"))
        s += " (" + c["diagnosis"]["class"].get<std::string>() + ")";
      md << " " << s << " |";
    }
    std::string result = c.value("ok", false) ? (c.value("complete", false) ? "complete" : "ok")
                                              : "error: " + c.value("error", std::string());
    for (auto& ch : result) {
      if (ch == '|' || ch == '\n') ch = ' ';
    }
    md << " " << result.substr(0, 240) << " |\n";
  }
  return md.str();
}

// The batch's answer, also written to batch_summary.json next to the Markdown table.
Json batch_output(const std::vector<Json>& results, const Settings& s, const SharedEnv& shared,
                  size_t parallel) {
  Json all = Json(results);
  int ok = 0;
  int complete = 0;
  for (const auto& r : results) {
    if (r.value("ok", false)) ++ok;
    if (r.value("complete", false)) ++complete;
  }
  const std::string table = summary_table(all);
  const std::string md_file = (s.workspace / "batch_summary.md").string();
  const std::string json_file = (s.workspace / "batch_summary.json").string();
  Json out{
      {"mode", "batch"},
      {"step", s.step},
      {"parallel", parallel},
      {"shared_env",
       {{"file", (s.workspace / "shared_env.json").string()}, {"prepared", shared.prepared()}}},
      {"cases", all},
      {"counts",
       {{"total", results.size()},
        {"ok", ok},
        {"failed", results.size() - ok},
        {"complete", complete}}},
      {"summary_table", table},
      {"summary_md", md_file},
      {"summary_json", json_file}};
  plugin_io::write_file_atomic(md_file, "# Batch summary\n\n" + table);
  plugin_io::write_file_atomic(json_file, out.dump(2) + "\n");
  return out;
}

}  // namespace

Json run_batch(const Json& input, const Settings& s, SharedEnv& shared, Context& ctx) {
  const Json& cases = input["cases"];
  check_distinct_ids(cases);
  const size_t parallel =
      std::max<size_t>(1, std::min<size_t>(input.value("parallel", 2), cases.size()));
  std::vector<Json> results(cases.size());
  std::atomic<size_t> next{0};
  std::atomic<size_t> finished{0};
  auto worker = [&] {
    for (size_t i = next++; i < cases.size(); i = next++) {
      if (ctx.cancelled()) {
        results[i] = cancelled_row(cases[i]);
        continue;
      }
      results[i] = run_case(cases[i], s, shared, ctx);
      ctx.progress(static_cast<double>(++finished), static_cast<double>(cases.size()),
                   "batch: " + results[i]["case_id"].get<std::string>());
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 0; t < parallel; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  shared.finish();
  return batch_output(results, s, shared, parallel);
}

}  // namespace skillrt::issue_pipeline::detail
