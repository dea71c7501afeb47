#include "report.hpp"

#include <map>
#include <sstream>

namespace skillrt::ci_fix {

using nlohmann::json;

namespace {

std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += "<br>";
    } else {
      out += c;
    }
  }
  return out;
}

std::string where(const json& j) {
  std::string f = j.value("file", "");
  if (f.empty()) return "(no file)";
  uint32_t line = j.value("line", 0u);
  return line ? f + ":" + std::to_string(line) : f;
}

// Fenced block that cannot be closed early by backticks inside the text.
std::string fenced(const std::string& lang, const std::string& body) {
  std::string fence = "```";
  while (body.find(fence) != std::string::npos) fence += "`";
  return fence + lang + "\n" + body + (body.empty() || body.back() == '\n' ? "" : "\n") + fence +
         "\n";
}

}  // namespace

std::string render_markdown(const json& r) {
  std::ostringstream md;
  const json& s = r.at("summary");
  md << "# ci-static-errors-fix report\n\n";
  md << "Repository: `" << r.value("repo", "") << "`  \n";
  md << "Mode: **" << s.value("mode", "") << "**"
     << (s.value("mode", "") == "dry-run" ? " (nothing written; the patch is below and in the JSON)"
                                          : "")
     << "\n\n";
  md << "| findings | fixed | fixes | residual | already clean | files skipped | files changed | "
        "proofs run | proofs failed |\n";
  md << "|---|---|---|---|---|---|---|---|---|\n";
  md << "| " << s.value("findings", 0) << " | " << s.value("fixed", 0) << " | "
     << s.value("fixes", 0) << " | " << s.value("residual", 0) << " | "
     << s.value("already_clean", 0) << " | " << s.value("skipped_files", 0) << " | "
     << s.value("files_changed", 0) << " | " << s.value("proofs_run", 0) << " | "
     << s.value("proofs_failed", 0) << " |\n\n";

  md << "## Summary by rule\n\n| tool | rule | findings | fixed | residual "
        "|\n|---|---|---|---|---|\n";
  for (const json& b : s.at("by_rule")) {
    md << "| " << cell(b.value("tool", "")) << " | " << cell(b.value("rule", "")) << " | "
       << b.value("findings", 0) << " | " << b.value("fixed", 0) << " | " << b.value("residual", 0)
       << " |\n";
  }
  md << "\n";

  // A whole-repository run is reviewed file by file: what each file got, by class, and what is
  // left in it, by rule.
  std::map<std::string, std::pair<std::map<std::string, int>, std::map<std::string, int>>> files;
  for (const json& f : r.at("fixes")) ++files[f.value("file", "")].first[f.value("class", "")];
  for (const json& x : r.at("residual")) ++files[x.value("file", "")].second[x.value("rule", "")];
  const auto counts = [](const std::map<std::string, int>& m) {
    std::string out;
    for (const auto& [k, n] : m) out += (out.empty() ? "" : ", ") + k + " " + std::to_string(n);
    return out.empty() ? std::string("-") : out;
  };
  md << "## By file\n\n| file | fixes by class | residual by rule |\n|---|---|---|\n";
  for (const auto& [file, fr] : files) {
    md << "| " << cell(file) << " | " << cell(counts(fr.first)) << " | " << cell(counts(fr.second))
       << " |\n";
  }
  md << "\n";

  md << "## Verification (linters run again on the fixed files)\n\n";
  if (s.contains("syntax_trees")) {
    const json& st = s.at("syntax_trees");
    md << "- **Python syntax trees** (ast before and after, the second proof): "
       << st.value("checked", 0) << " file(s) compared, " << st.value("reverted", 0) << " reverted";
    if (st.contains("note") && st.at("note").is_string())
      md << " — " << st.at("note").get<std::string>();
    md << "\n";
  }
  if (r.at("verification").empty()) md << "Nothing to verify: no file changed.\n\n";
  for (const json& v : r.at("verification")) {
    md << "- **" << v.value("tool", "") << "** on " << v.at("files").size() << " file(s): ";
    if (!v.value("available", false)) {
      md << "not re-run: " << v.value("note", "") << "\n";
      continue;
    }
    md << v.value("before", 0) << " finding(s) before, " << v.value("after", 0) << " after; "
       << v.value("gone", 0) << " gone, " << v.at("new").size() << " new, "
       << v.at("not_cleared").size() << " fixed finding(s) still reported"
       << (v.value("ok", false) ? " — OK" : " — CHECK") << "\n";
    for (const json& n : v.at("new")) {
      md << "  - new: " << where(n) << " " << n.value("rule", "") << " " << n.value("message", "")
         << "\n";
    }
    for (const json& n : v.at("not_cleared")) {
      md << "  - still reported: " << where(n) << " " << n.value("rule", "") << "\n";
    }
  }
  md << "\n";

  md << "## Fixes\n\n";
  if (r.at("fixes").empty()) md << "None.\n\n";
  for (const json& f : r.at("fixes")) {
    md << "### " << f.value("id", 0) << ". " << where(f) << " — " << f.value("tool", "") << " "
       << f.value("rule", "") << "\n\n";
    md << "- Finding: " << f.value("message", "") << "\n";
    if (f.at("findings").size() > 1) {
      md << "- Also fixes: ";
      bool first = true;
      for (size_t k = 1; k < f.at("findings").size(); ++k) {
        const json& x = f.at("findings")[k];
        md << (first ? "" : ", ") << x.value("tool", "") << " " << x.value("rule", "") << " line "
           << x.value("line", 0);
        first = false;
      }
      md << "\n";
    }
    md << "- Fix (" << f.value("class", "") << "): " << f.value("what", "") << "\n";
    md << "- Why it preserves behaviour: " << f.value("why", "") << "\n";
    const json& p = f.at("proof");
    md << "- Proof: " << p.value("level", "") << ", " << p.value("method", "") << ", "
       << p.value("tokens_compared", 0) << " significant tokens compared, "
       << (p.value("passed", false) ? "passed" : "FAILED") << "\n\n";
    md << fenced("diff", f.value("hunk", "")) << "\n";
  }

  md << "## Residual findings (left for a person)\n\n";
  if (r.at("residual").empty()) md << "None.\n\n";
  for (const json& x : r.at("residual")) {
    md << "- `" << where(x) << "`";
    if (x.contains("line_after") && x.value("line_after", 0u) != x.value("line", 0u)) {
      md << " (line " << x.value("line_after", 0u) << " after the fixes)";
    }
    md << " " << x.value("tool", "") << " " << x.value("rule", "") << ": " << x.value("message", "")
       << "\n  - Not fixed (" << x.value("kind", "") << "): " << x.value("reason", "")
       << "\n  - Suggested fix: " << x.value("suggestion", "") << "\n";
    if (x.contains("attempted_hunk")) {
      md << "  - Refused change:\n\n" << fenced("diff", x.value("attempted_hunk", "")) << "\n";
    }
  }
  md << "\n";

  if (!r.at("skipped_files").empty()) {
    md << "## Files left untouched\n\n| file | reason | findings |\n|---|---|---|\n";
    for (const json& x : r.at("skipped_files")) {
      md << "| `" << cell(x.value("file", "")) << "` | " << cell(x.value("reason", "")) << " | "
         << x.value("findings", 0) << " |\n";
    }
    md << "\n";
  }
  if (!r.at("already_clean").empty()) {
    md << "## Findings that no longer apply\n\n";
    for (const json& x : r.at("already_clean")) {
      md << "- `" << where(x) << "` " << x.value("tool", "") << " " << x.value("rule", "") << ": "
         << x.value("note", "") << "\n";
    }
    md << "\n";
  }
  md << "## Commands run\n\n";
  if (r.at("commands").empty()) md << "None.\n";
  for (const json& c : r.at("commands")) {
    md << "- `" << c.value("command", "") << "` (in `" << c.value("cwd", "") << "`, exit "
       << c.value("exit_code", -1) << "): " << c.value("purpose", "");
    if (c.contains("error")) md << " — " << c.value("error", "");
    md << "\n";
  }
  md << "\n";
  if (s.value("mode", "") == "dry-run" && !r.value("patch", "").empty()) {
    md << "## Patch\n\n" << fenced("diff", r.value("patch", ""));
  }
  if (r.contains("written")) {
    md << "## Written\n\n";
    for (const json& w : r.at("written")) md << "- `" << w.get<std::string>() << "`\n";
    if (r.contains("write_errors")) {
      for (const json& w : r.at("write_errors")) md << "- ERROR: " << w.get<std::string>() << "\n";
    }
  }
  return md.str();
}

}  // namespace skillrt::ci_fix
