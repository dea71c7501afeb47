#include "run_record.hpp"

#include <sstream>

#include "plugin_io/report_text.hpp"

namespace skillrt::npu_remote {

namespace {

using nlohmann::json;
using plugin_io::markdown_cell;

std::string text_of(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// A fenced block whose fence is longer than any backtick run inside.
std::string fenced(const std::string& body, const std::string& lang = "") {
  std::string fence = "```";
  while (body.find(fence) != std::string::npos) fence += '`';
  return fence + lang + "\n" + body + (body.empty() || body.back() == '\n' ? "" : "\n") + fence +
         "\n";
}

}  // namespace

std::string run_record_markdown(const json& r) {
  std::ostringstream md;
  md << "# npu-remote-test run " << text_of(r.value("run_id", json())) << "\n\n";
  md << "| | |\n|---|---|\n";
  md << "| outcome | **" << markdown_cell(text_of(r.value("outcome", json()))) << "** |\n";
  const json host = r.value("host", json::object());
  md << "| host | "
     << markdown_cell(text_of(host.value("user", json())) + "@" +
                      text_of(host.value("address", json())) + ":" +
                      text_of(host.value("port", json())))
     << (host.value("server", json()).is_string()
             ? " (server " + markdown_cell(host["server"].get<std::string>()) + ")"
             : "")
     << " |\n";
  md << "| runtime | " << markdown_cell(text_of(r.value("runtime", json()))) << " |\n";
  md << "| image | " << markdown_cell(text_of(r.value("image", json()))) << " |\n";
  md << "| devices | " << markdown_cell(text_of(r.value("devices", json()))) << " |\n";
  md << "| container | " << markdown_cell(text_of(r.value("container", json()))) << " |\n";
  md << "| run dir | " << markdown_cell(text_of(r.value("run_dir", json()))) << " |\n";
  md << "| exit code | " << markdown_cell(text_of(r.value("exit_code", json()))) << " |\n";
  const json timings = r.value("timings", json::object());
  for (const auto& [k, v] : timings.items()) {
    md << "| " << markdown_cell(k) << " | " << markdown_cell(text_of(v)) << " |\n";
  }
  md << "\n";

  const json facts = r.value("host_facts", json());
  if (facts.is_object()) {
    md << "## Host\n\n";
    md << "- driver: " << text_of(facts.value("driver_version", json())) << "\n";
    md << "- CANN on the host: " << text_of(facts.value("cann_version", json())) << "\n";
    md << "- free disk (MB): " << text_of(facts.value("disk_free_mb", json())) << "\n";
    const json smi = facts.value("npu_smi", json::object());
    md << "- npu-smi: "
       << (smi.value("found", false) ? text_of(smi.value("version", json()))
                                     : std::string("not found"))
       << "\n\n";
    if (smi.contains("chips") && !smi["chips"].empty()) {
      md << "| NPU | chip | device | name | health | HBM used / total (MB) | AICore % |\n";
      md << "|---|---|---|---|---|---|---|\n";
      for (const json& c : smi["chips"]) {
        md << "| " << text_of(c["npu"]) << " | " << text_of(c["chip"]) << " | "
           << text_of(c["device"]) << " | " << markdown_cell(text_of(c["name"])) << " | "
           << markdown_cell(text_of(c["health"])) << " | " << text_of(c["hbm_used_mb"]) << " / "
           << text_of(c["hbm_total_mb"]) << " | " << text_of(c["aicore_pct"]) << " |\n";
      }
      md << "\n";
    }
  }
  if (r.contains("checks") && !r["checks"].empty()) {
    md << "## Checks\n\n| check | status | detail |\n|---|---|---|\n";
    for (const json& c : r["checks"]) {
      md << "| " << markdown_cell(text_of(c["name"])) << " | "
         << markdown_cell(text_of(c["status"])) << " | " << markdown_cell(text_of(c["detail"]))
         << " |\n";
    }
    md << "\n";
  }
  if (r.contains("job") && r["job"].is_object()) {
    md << "## Job\n\n";
    md << "Started on the host as:\n\n"
       << fenced(text_of(r["job"].value("start_command", json())), "sh");
    md << "\njob.sh:\n\n" << fenced(text_of(r["job"].value("script", json())), "sh") << "\n";
  }
  const json metrics = r.value("metrics", json());
  if (metrics.is_object()) {
    md << "## Benchmark metrics\n\n| metric | value |\n|---|---|\n";
    for (const auto& [k, v] : metrics.items()) {
      if (v.is_object()) {
        for (const auto& [stat, x] : v.items()) {
          md << "| " << markdown_cell(k + " " + stat) << " | " << markdown_cell(text_of(x))
             << " |\n";
        }
        continue;
      }
      md << "| " << markdown_cell(k) << " | " << markdown_cell(text_of(v)) << " |\n";
    }
    md << "\n";
  }
  const json tests = r.value("tests", json());
  if (tests.is_object()) {
    md << "## Tests\n\n";
    if (tests.contains("counts")) md << "Counts: " << tests["counts"].dump() << "\n\n";
    md << "| test | outcome | message |\n|---|---|---|\n";
    for (const json& c : tests.value("cases", json::array())) {
      md << "| " << markdown_cell(text_of(c["name"])) << " | "
         << markdown_cell(text_of(c["outcome"])) << " | "
         << markdown_cell(text_of(c.value("message", json()))) << " |\n";
    }
    md << "\n";
  }
  if (r.contains("artifacts") && !r["artifacts"].empty()) {
    md << "## Artifacts\n\n| remote | local | copied | bytes |\n|---|---|---|---|\n";
    for (const json& a : r["artifacts"]) {
      md << "| " << markdown_cell(text_of(a["remote"])) << " | "
         << markdown_cell(text_of(a["local"])) << " | "
         << (a.value("copied", false) ? "yes"
                                      : "no: " + markdown_cell(text_of(a.value("error", json()))))
         << " | " << text_of(a.value("bytes", json())) << " |\n";
    }
    md << "\n";
  }
  if (r.contains("stale_runs") && !r["stale_runs"].empty()) {
    md << "## Stale runs cleaned\n\n";
    for (const json& s : r["stale_runs"]) {
      md << "- " << text_of(s["run_id"]) << ": " << text_of(s["reason"]) << " -> "
         << text_of(s["action"]) << "\n";
    }
    md << "\n";
  }
  if (r.value("leftovers", json()).is_object()) {
    md << "## Left on the host\n\n" << fenced(r["leftovers"].dump(2), "json");
    md << "\nTo clean up:\n\n";
    std::string cmds;
    for (const json& c : r.value("cleanup_commands", json::array())) cmds += text_of(c) + "\n";
    md << fenced(cmds, "sh") << "\n";
  }
  if (r.contains("output_tail") && !r["output_tail"].empty()) {
    std::string tail;
    for (const json& l : r["output_tail"]) tail += text_of(l) + "\n";
    md << "## Last output lines\n\n" << fenced(tail) << "\n";
  }
  if (r.contains("notes") && !r["notes"].empty()) {
    md << "## Notes\n\n";
    for (const json& n : r["notes"]) md << "- " << text_of(n) << "\n";
  }
  return md.str();
}

}  // namespace skillrt::npu_remote
