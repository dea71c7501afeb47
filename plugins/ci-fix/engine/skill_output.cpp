// The skill's output: the JSON result, the Markdown report and the patch files.
#include <algorithm>

#include "session.hpp"

namespace skillrt::ci_fix::detail {

json Session::finding_json(size_t id) const {
  const Finding& f = findings_[id];
  json j = {{"tool", f.tool}, {"rule", f.code}, {"line", f.line}, {"message", f.message}};
  if (f.col) j["col"] = f.col;
  if (!f.via.empty()) j["via"] = f.via;
  return j;
}

json Session::output() {
  Tally t;
  for (size_t id = 0; id < findings_.size(); ++id) t.by_rule[rule_key(id)][0]++;
  for (const FileResult& r : results_) tally_file(r, t);
  tally_untouched(t);
  bool all_ok = true;
  const json ver = verification_json(&all_ok);
  json by_rule_j = json::array();
  for (const auto& [rule, n] : t.by_rule) {
    size_t sp = rule.find(' ');
    by_rule_j.push_back({{"tool", rule.substr(0, sp)},
                         {"rule", rule.substr(sp + 1)},
                         {"findings", n[0]},
                         {"fixed", n[1]},
                         {"residual", n[2]}});
  }
  json cmds = json::array();
  for (const Command& c : commands_) {
    json cj = {{"command", shell_quote(c.result.argv)},
               {"cwd", c.result.cwd},
               {"purpose", c.purpose},
               {"exit_code", c.result.exit_code}};
    if (!c.result.error.empty()) cj["error"] = c.result.error;
    cmds.push_back(cj);
  }
  size_t fixed_findings = 0;
  for (const auto& [rule, n] : t.by_rule) fixed_findings += n[1];
  json summary = {{"mode", req_.apply ? "apply" : "dry-run"},
                  {"findings", findings_.size()},
                  {"fixed", fixed_findings},
                  {"fixes", t.fix_no},
                  {"residual", t.residual.size()},
                  {"already_clean", t.clean.size()},
                  {"skipped_files", t.skipped.size()},
                  {"files_changed", t.files_changed},
                  {"proofs_run", t.proofs_run},
                  {"proofs_failed", t.proofs_failed},
                  {"verified", all_ok && !checks_.empty()},
                  {"syntax_trees",
                   {{"checked", syntax_checked_},
                    {"reverted", syntax_failed_},
                    {"note", syntax_note_.empty() ? json() : json(syntax_note_)}}},
                  {"by_rule", by_rule_j},
                  {"by_class", t.by_class}};
  json out = {{"repo", req_.repo},
              {"summary", summary},
              {"fixes", t.fixes},
              {"residual", t.residual},
              {"already_clean", t.clean},
              {"skipped_files", t.skipped},
              {"verification", ver},
              {"commands", cmds},
              {"patch", t.patch},
              {"class_patches", req_.patch_by_class ? json(t.class_patches) : json()},
              {"whitelist",
               std::vector<std::string>(whitelist_.enabled().begin(), whitelist_.enabled().end())}};
  out["inputs"] = inputs_json();
  if (req_.apply) {
    out["written"] = written_;
    if (!write_errors_.empty()) out["write_errors"] = write_errors_;
  }
  write_reports(t, out);
  if (!scratch_.empty()) remove_tree(scratch_);
  return out;
}

std::string Session::rule_key(size_t id) const {
  const Finding& f = findings_[id];
  return f.tool + " " + f.code;
}

// One file's patch (also split by fix class), fixes, residual findings and findings already
// clean.
void Session::tally_file(const FileResult& r, Tally& t) {
  LineIndex before_lines(r.original);
  LineIndex after_lines(r.fixed);
  t.proofs_run += r.proofs_run;
  if (!r.edits.empty()) {
    ++t.files_changed;
    t.patch += file_diff(r.path, r.original, before_lines, r.edits, req_.context);
  }
  if (req_.patch_by_class) {
    std::map<std::string, std::vector<Edit>> by_klass;
    for (const AppliedFix& fx : r.fixes) {
      auto& v = by_klass[fx.klass];
      v.insert(v.end(), fx.edits.begin(), fx.edits.end());
    }
    for (auto& [klass, edits] : by_klass) {
      std::sort(edits.begin(), edits.end(), [](const Edit& x, const Edit& y) {
        return x.begin != y.begin ? x.begin < y.begin : x.end < y.end;
      });
      t.class_patches[klass] += file_diff(r.path, r.original, before_lines, edits, req_.context);
    }
  }
  tally_fixes(r, before_lines, after_lines, t);
  for (const ResidualItem& it : r.residual) {
    const Finding& f = findings_[it.finding];
    json rj = {{"file", r.path},       {"line", it.line},
               {"tool", f.tool},       {"rule", f.code},
               {"message", f.message}, {"kind", it.kind},
               {"reason", it.reason},  {"suggestion", it.suggestion}};
    if (it.line > 0 && it.line <= before_lines.count()) {
      rj["line_after"] = map_line(before_lines, r.edits, after_lines, it.line);
    }
    if (f.col) rj["col"] = f.col;
    if (!f.via.empty()) rj["via"] = f.via;
    if (it.proof) {
      ++t.proofs_failed;
      rj["proof"] = {{"method", it.proof->method}, {"passed", false}, {"detail", it.proof->detail}};
      if (!it.attempted.empty()) rj["attempted_hunk"] = it.attempted;
    }
    t.residual.push_back(rj);
    t.by_rule[rule_key(it.finding)][2]++;
  }
  for (const auto& [id, note] : r.already_clean) {
    json cj = finding_json(id);
    cj["file"] = r.path;
    cj["note"] = note;
    t.clean.push_back(cj);
  }
}

void Session::tally_fixes(const FileResult& r, const LineIndex& before_lines,
                          const LineIndex& after_lines, Tally& t) {
  for (const AppliedFix& fx : r.fixes) {
    ++t.fix_no;
    const Finding& first = findings_[fx.findings.front()];
    json fj = {
        {"id", t.fix_no},
        {"file", r.path},
        {"line", fx.line},
        {"line_after", map_line(before_lines, r.edits, after_lines, fx.line == 0 ? 1 : fx.line)},
        {"tool", first.tool},
        {"rule", first.code},
        {"message", first.message},
        {"class", fx.klass},
        {"what", fx.what},
        {"why", whitelist_.classes().at(fx.klass).why},
        {"proof",
         {{"level", proof_level_name(fx.level)},
          {"method", fx.proof.method},
          {"passed", fx.proof.passed},
          {"tokens_compared", fx.proof.compared}}},
        {"hunk", fx.hunk}};
    json fl = json::array();
    for (size_t id : fx.findings) {
      fl.push_back(finding_json(id));
      t.by_rule[rule_key(id)][1]++;
    }
    fj["findings"] = fl;
    t.by_class[fx.klass]++;
    t.fixes.push_back(fj);
  }
}

void Session::add_residual(size_t id, const std::string& file, const std::string& kind,
                           const std::string& reason, const std::string& suggestion, Tally& t) {
  const Finding& f = findings_[id];
  json rj = {{"file", file},     {"line", f.line},          {"tool", f.tool},
             {"rule", f.code},   {"message", f.message},    {"kind", kind},
             {"reason", reason}, {"suggestion", suggestion}};
  t.residual.push_back(rj);
  t.by_rule[rule_key(id)][2]++;
}

// Findings in files left untouched (unreadable, outside the repository) or in no file at all.
void Session::tally_untouched(Tally& t) {
  for (const SkippedFile& s : skipped_) {
    std::set<std::string> rules;
    for (size_t id : s.findings) {
      rules.insert(findings_[id].code);
      add_residual(id, s.path, "skipped-file", "file left untouched: " + s.reason,
                   "Fix by hand if the file should be linted at all.", t);
    }
    t.skipped.push_back({{"file", s.path},
                         {"reason", s.reason},
                         {"findings", s.findings.size()},
                         {"rules", std::vector<std::string>(rules.begin(), rules.end())}});
  }
  for (const auto& [path, ids] : outside_) {
    for (size_t id : ids) {
      add_residual(id, path, "skipped-file", "file left untouched: " + outside_why_[path],
                   "Lint it from its own repository.", t);
    }
    t.skipped.push_back({{"file", path},
                         {"reason", outside_why_[path]},
                         {"findings", ids.size()},
                         {"rules", json::array()}});
  }
  for (size_t id : general_) {
    Verdict v = whitelist_.judge(findings_[id], "");
    add_residual(id, "", "not-whitelisted",
                 v.why_not.empty() ? "not tied to a file: nothing to fix automatically" : v.why_not,
                 v.suggestion.empty() ? "Read the hook's output and fix by hand." : v.suggestion,
                 t);
  }
}

json Session::verification_json(bool* all_ok) {
  json ver = json::array();
  for (const ToolCheck& tc : checks_) {
    json vj = {{"tool", tc.tool}, {"files", tc.files}, {"available", tc.available}};
    if (!tc.available) {
      vj["note"] = tc.note;
      ver.push_back(vj);
      continue;
    }
    compare(tc, &vj, all_ok);
    ver.push_back(vj);
  }
  return ver;
}

json Session::inputs_json() const {
  json inputs = {{"scope", req_.scope_kind}, {"linters_run", req_.run}};
  if (req_.report_text) {
    inputs["report"] = req_.report_source;
    inputs["report_formats"] = ingest_formats_;
    inputs["unparsed_lines"] = unparsed_count_;
    if (!unparsed_.empty()) inputs["unparsed_examples"] = unparsed_;
  }
  if (!spelling_configs_.empty()) inputs["spelling_configs"] = spelling_configs_;
  if (!unavailable_.empty()) inputs["linters_unavailable"] = unavailable_;
  inputs["max_line_length"] = {{"value", max_line_length_}, {"from", line_length_source_}};
  return inputs;
}

// The Markdown report, and with report_dir the report files and patches written there.
void Session::write_reports(const Tally& t, json& out) {
  std::string md = render_markdown(out);
  if (!req_.report_dir.empty()) {
    std::string err = write_file(req_.report_dir + "/ci-fix-report.md", md);
    if (err.empty()) err = write_file(req_.report_dir + "/ci-fix.patch", t.patch);
    json paths = {{"markdown", req_.report_dir + "/ci-fix-report.md"},
                  {"json", req_.report_dir + "/ci-fix-report.json"},
                  {"patch", req_.report_dir + "/ci-fix.patch"}};
    for (const auto& [klass, text] : t.class_patches) {
      const std::string path = req_.report_dir + "/ci-fix." + klass + ".patch";
      if (err.empty()) err = write_file(path, text);
      paths["class_patches"][klass] = path;
    }
    out["reports"] = paths;
    if (err.empty()) err = write_file(req_.report_dir + "/ci-fix-report.json", out.dump(2));
    if (!err.empty()) throw RequestError("report_dir: " + err);
  } else {
    out["markdown"] = md;
  }
}

}  // namespace skillrt::ci_fix::detail
