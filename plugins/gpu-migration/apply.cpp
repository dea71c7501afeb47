#include <algorithm>
#include <map>
#include <set>
#include <skillrt/sdk.hpp>

#include "detail/analysis.hpp"
#include "detail/notebook.hpp"
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

// A cell that starts with a cell magic (%%bash, %%writefile, ...) is not Python.
bool is_cell_magic(const std::string& source) {
  const size_t first = source.find_first_not_of(" \t\r\n");
  return first != std::string::npos && source.compare(first, 2, "%%") == 0;
}

struct NotebookRewrite {
  std::vector<Rewrite> cells;  // parallel to FileScan::cells
  NotebookEdit edit;
  bool torch_npu_import_missing = false;
};

// Each code cell is rewritten like a Python file, except that the torch_npu imports are placed
// once for the notebook, after the first cell's top-level torch import: cells share a namespace.
NotebookRewrite rewrite_notebook(const FileScan& f, RewriteMode mode) {
  NotebookRewrite out;
  bool has_npu = false, has_transfer = false, changed = false;
  size_t import_cell = f.cells.size();
  for (size_t k = 0; k < f.cells.size(); ++k) {
    const CellScan& c = f.cells[k];
    if (is_cell_magic(c.source)) {
      Rewrite same;
      same.text = c.source;
      out.cells.push_back(std::move(same));
      continue;
    }
    has_npu |= c.scan.imports_torch_npu;
    has_transfer |= c.scan.imports_transfer_to_npu;
    if (import_cell == f.cells.size() && c.scan.torch_import_end != std::string::npos) {
      import_cell = k;
    }
    // The scan was made on the cell with its magic lines blanked; offsets and lines are the same
    // in the original, whose magic lines no rule edits.
    out.cells.push_back(rewrite_python(c.source, c.scan, mode, ImportPlacement::kNever));
    changed |= !out.cells.back().changes.empty();
  }
  const bool wants = mode == RewriteMode::kTransferToNpu || changed;
  const bool lacks = !has_npu || (mode == RewriteMode::kTransferToNpu && !has_transfer);
  if (wants && lacks) {
    if (import_cell == f.cells.size()) {
      out.torch_npu_import_missing = true;
    } else {
      const CellScan& c = f.cells[import_cell];
      PythonScan facts = c.scan;
      facts.imports_torch_npu = has_npu;
      facts.imports_transfer_to_npu = has_transfer;
      out.cells[import_cell] = rewrite_python(c.source, facts, mode, ImportPlacement::kHere);
    }
  }
  std::map<size_t, std::string> sources;
  for (size_t k = 0; k < f.cells.size(); ++k) {
    if (out.cells[k].text != f.cells[k].source) {
      sources[static_cast<size_t>(f.cells[k].index)] = out.cells[k].text;
    }
  }
  if (sources.empty()) {
    out.edit.text = f.text;
    return out;
  }
  out.edit = edit_notebook(f.text, locate_cell_sources(f.text, f.file.rel), sources);
  // The splice is checked against a full parse: the file must stay valid JSON with exactly the
  // intended sources, or nothing is written.
  Json nb;
  try {
    nb = Json::parse(out.edit.text);
  } catch (const Json::parse_error& e) {
    throw SkillError(SKILLRT_INTERNAL, "rewriting notebook '" + f.file.rel +
                                           "' produced invalid JSON (" + e.what() +
                                           "); nothing was changed: report this with the file");
  }
  for (const auto& [index, text] : sources) {
    std::string got;
    const Json& s = nb.at("cells").at(index).at("source");
    if (s.is_string()) {
      got = s.get<std::string>();
    } else {
      for (const Json& l : s) got += l.get<std::string>();
    }
    if (got != text) {
      throw SkillError(SKILLRT_INTERNAL, "rewriting notebook '" + f.file.rel + "' cell " +
                                             std::to_string(index) +
                                             " did not round-trip; nothing was changed: report "
                                             "this with the file");
    }
  }
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
    for (const CellScan& c : f.cells) {
      if (c.scan.errors.empty() || is_cell_magic(c.source)) continue;
      const TokenizeError& e = c.scan.errors.front();
      throw invalid_argument("'" + f.file.rel + "' cell " + std::to_string(c.index) + " line " +
                             std::to_string(e.line) + ": " + e.message +
                             ", so it cannot be rewritten safely. Nothing was changed; fix the "
                             "cell or leave the notebook out of the scope.");
    }
  }

  Json changes = Json::array(), followups = Json::array(), manual = Json::array();
  Json suggestions = Json::array(), remaining = Json::array(), files = Json::array();
  Json notes = Json::array(), skipped = Json::array();
  std::string patch;
  std::map<std::string, std::vector<std::string>> eq_rules;
  std::vector<std::pair<fs::path, std::string>> to_write;

  // What one rewritten unit (a Python file or a notebook cell) contributes to the report; `cell`
  // is -1 for a file. Locations are lines of the file, or of the cell.
  auto account = [&](const FileScan& f, int cell, const PythonScan& found,
                     const std::vector<Match>& magics, const Rewrite& rw) {
    auto located = [cell](Json j) {
      if (cell >= 0) j["cell"] = cell;
      return j;
    };
    for (const Match& m : found.matches) {
      Json j = finding_json(f, m, cell);
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
          followups.push_back(located({{"file", f.file.rel},
                                       {"line", m.line},
                                       {"rule", m.rule->id},
                                       {"note", m.rule->followup}}));
        }
        continue;
      }
      // transfer_to_npu handles the automatic class at run time; everything else stays manual.
      if (mode == RewriteMode::kTransferToNpu && m.effort == "automatic") continue;
      if (m.marked_data) j["note"] = "line marked '# gpu-migration: keep': left as data";
      manual.push_back(j);
    }
    // `!pip install` lines of a notebook: requirements, changed by hand.
    for (const Match& m : magics) {
      if (mode == RewriteMode::kTransferToNpu && m.effort == "automatic") continue;
      manual.push_back(finding_json(f, m, cell));
    }
    for (const Change& c : rw.changes) {
      changes.push_back(located({{"file", f.file.rel},
                                 {"line", c.line},
                                 {"rule", c.rule->id},
                                 {"domain", c.rule->domain},
                                 {"original", c.original},
                                 {"replacement", c.replacement},
                                 {"reason", c.rule->reason}}));
      if (!c.rule->equivalence.empty()) {
        auto& v = eq_rules[c.rule->equivalence];
        if (std::find(v.begin(), v.end(), c.rule->id) == v.end()) v.push_back(c.rule->id);
      }
    }
    // The rewritten code is scanned again: what is still rewritable was not reached (a chain
    // split over lines, for example) and is reported rather than hidden.
    if (mode == RewriteMode::kRewrite) {
      const PythonScan again =
          scanner.scan_python(cell >= 0 ? blank_magics(rw.text, nullptr) : rw.text);
      for (const Match& m : again.matches) {
        if (m.rule->rewrite != RewriteKind::kNone && !m.marked_data) {
          remaining.push_back(located({{"file", f.file.rel},
                                       {"line", m.line},
                                       {"rule", m.rule->id},
                                       {"matched", m.matched}}));
        }
      }
    }
  };
  auto import_missing = [&](const FileScan& f) {
    followups.push_back(
        {{"file", f.file.rel},
         {"line", 1},
         {"rule", kImportRuleId},
         {"note", f.file.type == FileType::kNotebook
                      ? "no code cell imports torch at its top level: add `import "
                        "torch_npu` next to the torch import by hand"
                      : "torch is imported only inside a block: add `import torch_npu` "
                        "next to that import by hand"}});
  };

  for (const FileScan& f : scan.files) {
    if (f.file.type == FileType::kNotebook) {
      const NotebookRewrite nb = rewrite_notebook(f, mode);
      for (size_t k = 0; k < f.cells.size(); ++k) {
        const CellScan& c = f.cells[k];
        account(f, c.index, c.scan, c.magics, nb.cells[k]);
      }
      if (nb.torch_npu_import_missing) import_missing(f);
      if (nb.edit.text == f.text) continue;
      patch += unified_diff(f.file.rel, nb.edit.script);
      size_t count = 0;
      std::vector<std::string> added;
      for (const Rewrite& rw : nb.cells) {
        count += rw.changes.size();
        added.insert(added.end(), rw.added.begin(), rw.added.end());
      }
      files.push_back({{"file", f.file.rel}, {"changes", count}, {"added", added}});
      to_write.emplace_back(f.file.abs, nb.edit.text);
      continue;
    }
    Rewrite rw = rewrite_python(f.text, f.python, mode);
    account(f, -1, f.python, {}, rw);
    if (rw.torch_npu_import_missing) import_missing(f);
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
