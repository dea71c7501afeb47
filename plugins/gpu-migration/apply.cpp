#include <algorithm>
#include <set>
#include <skillrt/sdk.hpp>

#include "detail/analysis.hpp"
#include "detail/rewrite.hpp"

namespace skillrt::gpu_migration {
namespace detail {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

bool under(const std::string& rel, const std::string& prefix) {
  return rel == prefix || (rel.size() > prefix.size() &&
                           rel.compare(0, prefix.size(), prefix) == 0 && rel[prefix.size()] == '/');
}

// A scope entry is a path relative to the root (file or folder) or a dotted module name.
std::string normalize_scope(const fs::path& root, const std::string& entry) {
  std::string s = entry;
  fs::path p(s);
  if (p.is_absolute()) {
    const fs::path real = fs::weakly_canonical(p);
    const std::string r = root.generic_string();
    const std::string g = real.generic_string();
    if (g != r && !(g.size() > r.size() && g.compare(0, r.size(), r) == 0 && g[r.size()] == '/')) {
      throw invalid_argument("scope '" + entry + "' is outside the repository '" + r +
                             "': give paths inside it, relative to it");
    }
    s = g == r ? std::string(".") : g.substr(r.size() + 1);
  }
  while (s.rfind("./", 0) == 0) s = s.substr(2);
  while (!s.empty() && s.back() == '/') s.pop_back();
  for (const fs::path& part : fs::path(s)) {
    if (part == "..") {
      throw invalid_argument("scope '" + entry +
                             "' climbs out of the repository with '..': give "
                             "paths inside it");
    }
  }
  return s.empty() ? "." : s;
}

std::vector<RepoFile> select_scope(const fs::path& root, const std::vector<RepoFile>& candidates,
                                   const std::vector<std::string>& scope,
                                   const WalkOptions& options, std::vector<std::string>* resolved) {
  std::vector<RepoFile> out;
  std::set<std::string> taken;
  for (const std::string& entry : scope) {
    const std::string s = normalize_scope(root, entry);
    std::string module_path;
    std::error_code ec;
    const bool ends_py = s.size() > 3 && s.compare(s.size() - 3, 3, ".py") == 0;
    if (s.find('/') == std::string::npos && s.find('.') != std::string::npos && !ends_py &&
        !fs::exists(root / s, ec)) {
      module_path = s;
      std::replace(module_path.begin(), module_path.end(), '.', '/');
    }
    size_t hits = 0;
    for (const RepoFile& f : candidates) {
      if (f.type == FileType::kText) continue;
      const bool match =
          s == "." || under(f.rel, s) ||
          (!module_path.empty() && (f.rel == module_path + ".py" || under(f.rel, module_path)));
      if (!match) continue;
      ++hits;
      if (taken.insert(f.rel).second) out.push_back(f);
    }
    if (hits == 0) {
      std::error_code ec;
      const fs::path p = root / s;
      std::string why;
      if (fs::exists(p, ec)) {
        if (is_excluded(s, options)) {
          why = "it is excluded by 'exclude'";
        } else {
          bool vendored = false;
          for (const fs::path& part : fs::path(s)) vendored |= is_vendored_dir_name(part.string());
          why = vendored ? "it lies in a vendored or third-party folder, which apply leaves alone "
                           "unless include_vendored is true"
                         : "it holds no Python file or notebook";
        }
      } else {
        why = "no such file, folder or dotted module under the repository";
      }
      throw invalid_argument("scope '" + entry + "' matches nothing to migrate: " + why +
                             ". Nothing was changed.");
    }
    resolved->push_back(s);
  }
  std::sort(out.begin(), out.end(),
            [](const RepoFile& a, const RepoFile& b) { return a.rel < b.rel; });
  return out;
}

Json equivalence_json(const EquivalenceNote& n, const std::vector<std::string>& rules) {
  return {{"id", n.id},
          {"rules", rules},
          {"from", n.from},
          {"to", n.to},
          {"definition_from", n.definition_from},
          {"definition_to", n.definition_to},
          {"agree_when", n.agree_when},
          {"numeric_check", n.numeric_check}};
}

}  // namespace
}  // namespace detail

nlohmann::json apply(const nlohmann::json& input, const Hooks& hooks) {
  using namespace detail;
  const fs::path root = resolve_root(input.at("repo").get<std::string>());
  const RuleTable table = table_for(input);
  const Scanner scanner(table);
  const WalkOptions options = walk_options(input);
  const bool write = input.value("apply", false);
  const std::string mode_name = input.value("mode", "rewrite");
  const RewriteMode mode =
      mode_name == "transfer_to_npu" ? RewriteMode::kTransferToNpu : RewriteMode::kRewrite;
  const std::vector<std::string> scope = input.at("scope").get<std::vector<std::string>>();

  Walk walk = walk_repo(root, options,
                        [&](const std::string& name) { return scanner.wants_text_file(name); });
  std::vector<std::string> resolved;
  std::vector<RepoFile> selected = select_scope(root, walk.files, scope, options, &resolved);
  RepoScan scan = scan_files(root, selected, scanner, hooks);
  // A file in scope that cannot be read or tokenized stops the whole run: half a module migrated
  // is worse than none.
  if (!scan.skipped.empty()) {
    throw invalid_argument("'" + scan.skipped.front().path + "' in scope " +
                           scan.skipped.front().reason +
                           ". Nothing was changed; leave it out of the scope or fix it.");
  }
  for (const FileScan& f : scan.files) {
    if (f.file.type == FileType::kPython && !f.tokenized_cleanly) {
      LineIndex idx(f.text);
      const TokenizeError& e = f.python.errors.front();
      throw invalid_argument("'" + f.file.rel + "' line " + std::to_string(idx.line_of(e.offset)) +
                             ": " + e.message +
                             ", so it cannot be rewritten safely. Nothing was changed; fix the "
                             "file or leave it out of the scope.");
    }
  }

  Json changes = Json::array(), followups = Json::array(), manual = Json::array();
  Json suggestions = Json::array(), remaining = Json::array(), files = Json::array();
  Json notes = Json::array(), skipped = Json::array();
  std::string patch;
  std::map<std::string, std::vector<std::string>> eq_rules;
  std::vector<std::pair<fs::path, std::string>> to_write;

  for (const FileScan& f : scan.files) {
    if (f.file.type == FileType::kNotebook) {
      skipped.push_back({{"path", f.file.rel},
                         {"reason",
                          "notebooks are analysed but not rewritten: move the code into "
                          "a module or convert the notebook (jupytext) and migrate that"}});
      continue;
    }
    Rewrite rw = rewrite_python(f.text, f.python, mode);
    for (const Match& m : f.python.matches) {
      Json j = finding_json(f, m, -1);
      if (m.rule->suggestion) {
        suggestions.push_back(j);
        continue;
      }
      const bool rewritten =
          mode == RewriteMode::kRewrite && m.has_edit && !m.marked_data &&
          std::any_of(rw.changes.begin(), rw.changes.end(),
                      [&](const Change& c) { return c.rule == m.rule && c.line == m.line; });
      if (rewritten) {
        if (!m.rule->followup.empty()) {
          followups.push_back({{"file", f.file.rel},
                               {"line", m.line},
                               {"rule", m.rule->id},
                               {"note", m.rule->followup}});
        }
        continue;
      }
      // transfer_to_npu handles the automatic class at run time; everything else stays manual.
      if (mode == RewriteMode::kTransferToNpu && m.effort == "automatic") continue;
      if (m.marked_data) j["note"] = "line marked '# gpu-migration: keep': left as data";
      manual.push_back(j);
    }
    for (const Change& c : rw.changes) {
      changes.push_back({{"file", f.file.rel},
                         {"line", c.line},
                         {"rule", c.rule->id},
                         {"domain", c.rule->domain},
                         {"original", c.original},
                         {"replacement", c.replacement},
                         {"reason", c.rule->reason}});
      if (!c.rule->equivalence.empty()) {
        auto& v = eq_rules[c.rule->equivalence];
        if (std::find(v.begin(), v.end(), c.rule->id) == v.end()) v.push_back(c.rule->id);
      }
    }
    if (rw.torch_npu_import_missing) {
      followups.push_back({{"file", f.file.rel},
                           {"line", 1},
                           {"rule", kImportRuleId},
                           {"note",
                            "torch is imported only inside a block: add `import torch_npu` "
                            "next to that import by hand"}});
    }
    // The rewritten file is scanned again: what is still rewritable was not reached (a chain
    // split over lines, for example) and is reported rather than hidden.
    const PythonScan again = scanner.scan_python(rw.text);
    if (mode == RewriteMode::kRewrite) {
      for (const Match& m : again.matches) {
        if (m.rule->rewrite != RewriteKind::kNone && !m.marked_data) {
          remaining.push_back({{"file", f.file.rel},
                               {"line", m.line},
                               {"rule", m.rule->id},
                               {"matched", m.matched}});
        }
      }
    }
    const std::string diff = unified_diff(f.file.rel, rw.script);
    if (diff.empty()) continue;
    patch += diff;
    files.push_back({{"file", f.file.rel}, {"changes", rw.changes.size()}, {"added", rw.added}});
    to_write.emplace_back(f.file.abs, rw.text);
  }

  Json equivalence = Json::array();
  for (const auto& [id, rules] : eq_rules) {
    auto it = table.equivalence.find(id);
    if (it != table.equivalence.end()) equivalence.push_back(equivalence_json(it->second, rules));
  }

  Json written = Json::array();
  if (write) {
    for (const auto& [path, text] : to_write) {
      if (!inside_root(root, path)) {
        throw invalid_argument("refusing to write '" + path.string() +
                               "': it resolves outside the repository root");
      }
    }
    for (const auto& [path, text] : to_write) {
      write_atomically(path, text);
      written.push_back(path.lexically_relative(root).generic_string());
    }
  }
  if (to_write.empty()) notes.push_back("nothing to change in the scope: it is already migrated");
  if (!write && !to_write.empty()) {
    notes.push_back("dry run: no file was written; pass \"apply\": true to write the patch");
  }
  return {{"repo", root.string()},
          {"mode", mode_name},
          {"applied", write},
          {"scope", resolved},
          {"files_in_scope", scan.files.size()},
          {"files", files},
          {"changes", changes},
          {"patch", patch},
          {"written", written},
          {"equivalence_notes", equivalence},
          {"followups", followups},
          {"manual", manual},
          {"suggestions", suggestions},
          {"remaining", remaining},
          {"skipped", skipped},
          {"excluded", walk.vendored},
          {"notes", notes}};
}

}  // namespace skillrt::gpu_migration
