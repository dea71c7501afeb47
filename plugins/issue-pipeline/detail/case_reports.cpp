// What a case reports: the summary returned to the caller, report.json and report.md.
#include <sstream>

#include "detail/case_runner.hpp"
#include "plugin_io/atomic_file.hpp"

namespace skillrt::issue_pipeline::detail {

Json CaseRunner::summary() {
  Json steps = Json::object();
  std::string next = "";
  for (const auto& step : kSteps) {
    Json& s = st(step);
    steps[step] = Json{{"status", s["status"]}, {"attempts", s.value("attempts", 0)}};
    if (s.contains("finished_at") && !s["finished_at"].is_null())
      steps[step]["finished_at"] = s["finished_at"];
    if (s.contains("error") && !s["error"].is_null()) steps[step]["error"] = s["error"]["message"];
    if (next.empty() && s["status"] != "done") next = step;
  }
  Json out{{"case_id", case_id_},
           {"test", state_["test"]["id"]},
           {"state_file", (dir_ / "state.json").string()},
           {"report_md", (dir_ / "report.md").string()},
           {"report_json", (dir_ / "report.json").string()},
           {"ran", ran_},
           {"steps", steps},
           {"next_step", next.empty() ? Json(nullptr) : Json(next)},
           {"complete", next.empty()}};
  out["route"] = state_.contains("route") ? state_["route"] : Json(nullptr);
  if (done("reproduce")) out["reproduce"] = st("reproduce")["result"]["verdict"];
  if (done("diagnose")) {
    const Json& d = st("diagnose")["result"];
    out["diagnosis"] = Json{{"class", d["class"]},
                            {"label", d["label"]},
                            {"decided_by", d["decided_by"]},
                            {"candidates", d["candidates"]}};
  }
  if (st("verify")["result"].is_object()) out["verified"] = st("verify")["result"]["passed"];
  if (done("deliver")) {
    Json d = Json::object();
    for (const auto& [repo, c] : st("deliver")["result"]["commits"].items()) {
      d[repo] = Json{{"branch", c["branch"]},
                     {"commit", c["commit"]},
                     {"pr_description", c["pr_description"]}};
      if (c.contains("pr")) d[repo]["pr"] = c["pr"];
    }
    out["delivered"] = d;
  }
  return out;
}

void CaseRunner::write_reports() {
  Json report = summary();
  Json timeline = state_["history"];
  report["timeline"] = timeline;
  report["log"] = state_["log"];
  for (const auto& step : kSteps) report["step_results"][step] = st(step)["result"];
  plugin_io::write_file_atomic((dir_ / "report.json").string(), report.dump(2) + "\n");
  std::ostringstream md;
  md << "# Case " << case_id_ << "\n\n";
  md << "Test: `" << state_["test"]["id"].get<std::string>() << "`  \n";
  report_route(md);
  report_steps(md);
  report_diagnosis(md);
  report_fix_and_verify(md);
  report_delivery(md);
  md << "\n## Timeline\n\n";
  for (const auto& h : state_["history"]) {
    md << "- " << h["at"].get<std::string>() << " " << h["event"].get<std::string>() << "\n";
  }
  plugin_io::write_file_atomic((dir_ / "report.md").string(), md.str());
}

void CaseRunner::report_route(std::ostream& md) {
  if (!state_.contains("route")) return;
  md << "Route: **" << state_["route"]["route"].get<std::string>() << "** (core "
     << state_["route"]["core_score"] << ", distributed " << state_["route"]["distributed_score"]
     << ")\n\n";
  for (const auto& e : state_["route"]["evidence"]) {
    md << "- " << e["source"].get<std::string>()
       << (e.contains("line") ? ":" + e["line"].dump() : "") << " -> "
       << e["route"].get<std::string>() << ": " << e["area"].get<std::string>() << " (`"
       << e["text"].get<std::string>() << "`)\n";
  }
}

// One row per step with the note that says most about its outcome.
void CaseRunner::report_steps(std::ostream& md) {
  md << "\n## Steps\n\n| step | status | attempts | finished | note |\n|---|---|---|---|---|\n";
  for (const auto& step : kSteps) {
    Json& s = st(step);
    std::string note;
    const Json& r = s["result"];
    if (!s["error"].is_null() && s["error"].is_object())
      note = s["error"]["message"];
    else if (step == "reproduce" && r.is_object())
      note = r["verdict"].get<std::string>() + ": " + r["reason"].get<std::string>();
    else if (step == "diagnose" && r.is_object())
      note = r["label"].get<std::string>() + " (" + r["decided_by"].get<std::string>() + ")";
    else if (step == "fix" && r.is_object())
      note = r["kind"].get<std::string>() + " from " + r["source"].get<std::string>();
    else if (step == "verify" && r.is_object())
      note = r["passed"].get<bool>() ? "passed" : "failed";
    else if (step == "deliver" && r.is_object())
      note = r["kind"].get<std::string>();
    for (auto& c : note) {
      if (c == '|' || c == '\n') c = ' ';
    }
    md << "| " << step << " | " << s["status"].get<std::string>() << " | " << s.value("attempts", 0)
       << " | " << (s["finished_at"].is_string() ? s["finished_at"].get<std::string>() : "")
       << " | " << note.substr(0, 300) << " |\n";
  }
}

void CaseRunner::report_diagnosis(std::ostream& md) {
  if (!done("diagnose")) return;
  const Json& d = st("diagnose")["result"];
  md << "\n## Diagnosis\n\n"
     << d["label"].get<std::string>() << ", decided by " << d["decided_by"].get<std::string>()
     << ".\n\n";
  for (const auto& r : d["rules"]) {
    for (const auto& e : r["evidence"]) {
      md << "- " << r["rule"].get<std::string>() << " line " << e["line"] << ": `"
         << e["text"].get<std::string>() << "`\n";
    }
  }
  md << "\nCandidate files:\n\n";
  for (const auto& c : d["candidates"]) {
    md << "- " << c["repo"].get<std::string>() << "/" << c["file"].get<std::string>() << ":"
       << c["line"] << " (" << c["why"].get<std::string>() << ")\n";
  }
  md << "\nConsulted skills:\n\n";
  for (const auto& c : d["consulted"]) {
    md << "- " << c["skill"].get<std::string>() << ": " << c["status"].get<std::string>()
       << (c.contains("agreement") ? ", " + c["agreement"].get<std::string>() : "")
       << (c.contains("message") ? " (" + c["message"].get<std::string>().substr(0, 200) + ")" : "")
       << "\n";
  }
  for (const auto& n : d["notes"]) md << "\nNote: " << n.get<std::string>() << "\n";
}

void CaseRunner::report_fix_and_verify(std::ostream& md) {
  if (done("fix")) {
    const Json& f = st("fix")["result"];
    md << "\n## Patch\n\n";
    for (const auto& [repo, r] : f["repos"].items()) {
      md << repo << " (" << r["diff_file"].get<std::string>() << "):\n\n```\n"
         << r["diffstat"].get<std::string>() << "```\n";
    }
    if (f["kind"] == "disable") md << f["reason"].get<std::string>() << "\n";
  }
  if (st("verify")["result"].is_object()) {
    const Json& v = st("verify")["result"];
    md << "\n## Verification\n\n" << (v["passed"].get<bool>() ? "Passed" : "Failed") << ".\n";
    if (v.contains("neighbours")) {
      md << "Neighbours: " << v["neighbours"]["count"]
         << " rerun, broken by the fix: " << v["neighbours"]["broken_by_fix"].dump() << "\n";
      md << "Related operator tests broken by the fix: " << v["related"]["broken_by_fix"].dump()
         << "\n";
    }
  }
}

void CaseRunner::report_delivery(std::ostream& md) {
  if (!done("deliver")) return;
  md << "\n## Delivery\n\n";
  for (const auto& [repo, c] : st("deliver")["result"]["commits"].items()) {
    md << "- " << repo << ": branch `" << c["branch"].get<std::string>() << "`, commit "
       << c["commit"].get<std::string>() << ", PR description "
       << c["pr_description"].get<std::string>();
    if (c.contains("pr") && c["pr"].contains("html_url") && c["pr"]["html_url"].is_string()) {
      md << ", PR " << c["pr"]["html_url"].get<std::string>();
    }
    md << "\n";
  }
}

}  // namespace skillrt::issue_pipeline::detail
