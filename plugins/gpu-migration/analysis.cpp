#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <skillrt/sdk.hpp>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "detail/analysis.hpp"
#include "detail/json_text.hpp"
#include "detail/packages.hpp"

namespace skillrt::gpu_migration {
namespace detail {

namespace fs = std::filesystem;
using Json = nlohmann::json;

WalkOptions walk_options(const Json& input) {
  WalkOptions o;
  o.include_vendored = input.value("include_vendored", false);
  if (input.contains("exclude")) o.exclude = input.at("exclude").get<std::vector<std::string>>();
  return o;
}

RuleTable table_for(const Json& input) {
  if (input.contains("rules_file")) {
    return rule_table_with_user_file(input.at("rules_file").get<std::string>());
  }
  return builtin_rule_table();
}

std::string blank_magics(const std::string& src, std::vector<std::pair<int, std::string>>* pips) {
  std::string out = src;
  size_t pos = 0;
  int line = 0;
  while (pos < out.size()) {
    size_t e = out.find('\n', pos);
    if (e == std::string::npos) e = out.size();
    ++line;
    size_t first = out.find_first_not_of(" \t", pos);
    if (first < e && (out[first] == '!' || out[first] == '%')) {
      const std::string text = out.substr(first, e - first);
      if (pips != nullptr && text.find("pip install") != std::string::npos) {
        pips->emplace_back(line, text);
      }
      std::fill(out.begin() + static_cast<long>(first), out.begin() + static_cast<long>(e), ' ');
    }
    pos = e + 1;
  }
  return out;
}

namespace {

void scan_notebook(FileScan& f, const Scanner& scanner, std::vector<Skipped>* skipped) {
  Json nb;
  try {
    nb = Json::parse(f.text);
  } catch (const Json::parse_error& e) {
    skipped->push_back({f.file.rel, std::string("notebook is not valid JSON: ") + e.what()});
    f.tokenized_cleanly = false;
    return;
  }
  if (!nb.is_object() || !nb.contains("cells") || !nb.at("cells").is_array()) {
    skipped->push_back({f.file.rel, "notebook has no 'cells' array: not an nbformat 4 notebook"});
    f.tokenized_cleanly = false;
    return;
  }
  const Json& cells = nb.at("cells");
  for (size_t i = 0; i < cells.size(); ++i) {
    const Json& c = cells[i];
    if (!c.is_object() || c.value("cell_type", "") != "code") continue;
    std::string src;
    const Json& s = c.contains("source") ? c.at("source") : Json();
    if (s.is_string()) {
      src = s.get<std::string>();
    } else if (s.is_array()) {
      for (const Json& l : s) {
        if (l.is_string()) src += l.get<std::string>();
      }
    }
    CellScan cell;
    cell.index = static_cast<int>(i);
    std::vector<std::pair<int, std::string>> pips;
    cell.source = blank_magics(src, &pips);
    cell.scan = scanner.scan_python(cell.source);
    for (const auto& [line, text] : pips) {
      for (Match m : scanner.scan_text(text, "requirements.txt")) {
        m.line = line;
        cell.magics.push_back(std::move(m));
      }
    }
    cell.source = src;
    f.cells.push_back(std::move(cell));
  }
}

}  // namespace

namespace {

// With an rvalue match the match's own strings (code, matched, note) are moved into the finding:
// scanning builds each file's findings once and needs those strings no more. Without
// `rule_text` the rule's alternative and source stay out of the finding: analyze lists them once
// per rule in its `rules` section, keyed by the finding's `rule` (those two texts were 160 of
// every finding's bytes and most of the time spent building, serializing and freeing a large
// repository's result). Apply's findings keep them inline.
template <typename MatchRef>
Json make_finding(const FileScan& f, MatchRef&& m, int cell, bool rule_text) {
  // Entries go straight into the object's map, in key order with an end hint: a braced list
  // would first build a two-element array per entry, then copy it, three times the allocations
  // for the tens of thousands of findings of a large repository.
  Json j = Json::object();
  Json::object_t& o = j.get_ref<Json::object_t&>();
  auto put = [&o](const char* key, Json value) { o.emplace_hint(o.end(), key, std::move(value)); };
  if (rule_text) put("alternative", m.rule->alternative);
  if (cell >= 0) put("cell", cell);
  put("code", std::forward<MatchRef>(m).code);
  put("column", m.column);
  put("context", m.context);
  put("domain", m.rule->domain);
  put("effort", m.effort);
  put("file", f.file.rel);
  put("line", m.line);
  if (m.marked_data) put("marked_data", true);
  put("matched", std::forward<MatchRef>(m).matched);
  if (!m.note.empty()) put("note", std::forward<MatchRef>(m).note);
  put("rewritable", m.has_edit && !m.marked_data);
  put("rule", m.rule->id);
  if (rule_text) put("source", m.rule->source);
  return j;
}

// make_finding without rule_text, written as the text its dump() gives (the equality tests hold
// the two together). `file` is the file's path already written as a JSON string: a file's
// findings share it.
void append_finding_text(std::string& out, std::string_view file, const Match& m, int cell) {
  out += '{';
  if (cell >= 0) {
    out += "\"cell\":";
    append_json_int(out, cell);
    out += ',';
  }
  out += "\"code\":";
  append_json_string(out, m.code);
  out += ",\"column\":";
  append_json_int(out, m.column);
  out += ",\"context\":";
  append_json_string(out, m.context);
  out += ",\"domain\":";
  append_json_string(out, m.rule->domain);
  out += ",\"effort\":";
  append_json_string(out, m.effort);
  out += ",\"file\":";
  out += file;
  out += ",\"line\":";
  append_json_int(out, m.line);
  if (m.marked_data) out += ",\"marked_data\":true";
  out += ",\"matched\":";
  append_json_string(out, m.matched);
  if (!m.note.empty()) {
    out += ",\"note\":";
    append_json_string(out, m.note);
  }
  out += m.has_edit && !m.marked_data ? ",\"rewritable\":true" : ",\"rewritable\":false";
  out += ",\"rule\":";
  append_json_string(out, m.rule->id);
  out += '}';
}

std::string file_json(const FileScan& f) {
  std::string out;
  append_json_string(out, f.file.rel);
  return out;
}

}  // namespace

// The file's findings and suggestions as JSON text (ScanOptions::findings_text); the matches are
// freed, keeping what the verdicts need.
void make_findings_text(FileScan& f) {
  const std::vector<Located> order = report_order(f);
  const std::string file = file_json(f);
  f.counted.clear();
  f.findings_text.clear();
  f.suggestions_text.clear();
  f.counted.reserve(order.size());
  for (const Located& l : order) {
    f.counted.push_back({l.match->rule, l.match->effort});
    std::string& out = l.match->rule->suggestion ? f.suggestions_text : f.findings_text;
    if (!out.empty()) out += ',';
    append_finding_text(out, file, *l.match, l.cell);
  }
  f.has_text = true;
  // Freed here, in parallel, rather than one file after another with the scan.
  f.python.matches = std::vector<Match>();
  f.text_matches = std::vector<Match>();
  for (CellScan& c : f.cells) {
    c.scan.matches = std::vector<Match>();
    c.magics = std::vector<Match>();
    c.source = std::string();
  }
}

// A scanned file's source for a second look: kept in memory, or read again (the scan dropped it).
bool source_again(const FileScan& f, bool keep_text, std::string* text) {
  if (keep_text) {
    *text = f.text;
    return true;
  }
  std::string reason;
  return read_source(f.file.abs, text, &reason);
}

// The dotted module a repository file is: wan/modules/attention.py -> wan.modules.attention,
// pkg/__init__.py -> pkg.
std::vector<std::string> module_of(const std::string& rel) {
  std::vector<std::string> parts;
  for (std::string_view part : split_at(rel, '/')) parts.emplace_back(part);
  std::string& last = parts.back();
  if (last.size() > 3 && last.compare(last.size() - 3, 3, ".py") == 0) last.resize(last.size() - 3);
  if (last == "__init__") parts.pop_back();
  return parts;
}

// `from pkg.amp_utils import amp` where pkg/amp_utils.py does `import torch.cuda.amp as amp`:
// the name is the CUDA module in this file too. Files that import such re-exports are scanned
// again with the resolved names (one level of re-export; relative imports resolved against the
// file's package).
template <typename Slots>
void resolve_reexports(Slots& slots, const Scanner& scanner, bool keep_text) {
  std::map<std::vector<std::string>, std::map<std::string, std::vector<std::string>>> exports;
  for (auto& slot : slots) {
    if (!slot.scan || slot.scan->file.type != FileType::kPython) continue;
    for (const auto& [name, path] : slot.scan->python.exports) {
      exports[module_of(slot.scan->file.rel)][name] = path;
    }
  }
  if (exports.empty()) return;
  for (auto& slot : slots) {
    if (!slot.scan || slot.scan->file.type != FileType::kPython) continue;
    FileScan& f = *slot.scan;
    AliasMap resolved;
    const std::vector<std::string> self = module_of(f.file.rel);
    const bool is_package = f.file.rel.size() >= 11 &&
                            f.file.rel.compare(f.file.rel.size() - 11, 11, "__init__.py") == 0;
    for (const auto& [name, path] : f.python.imports_from) {
      if (path.size() < 2) continue;
      std::vector<std::string> module;
      size_t k = 0;
      if (path[0] == ".") {
        module = self;
        if (!is_package && !module.empty()) module.pop_back();
        while (k < path.size() && path[k] == ".") ++k;
        for (size_t up = 1; up < k && !module.empty(); ++up) module.pop_back();
      }
      for (; k + 1 < path.size(); ++k) module.push_back(path[k]);
      auto m = exports.find(module);
      if (m == exports.end()) continue;
      auto e = m->second.find(path.back());
      if (e != m->second.end()) resolved[name] = e->second;
    }
    if (resolved.empty()) continue;
    std::string text;
    if (!source_again(f, keep_text, &text)) continue;
    std::vector<WrapperDef> wrappers = std::move(f.python.wrappers);
    f.python = scanner.scan_python(text, &resolved);
    for (WrapperDef& w : wrappers) f.python.wrappers.push_back(std::move(w));
    for (Match& m : f.python.matches) {
      if (m.note.rfind("through the alias", 0) == 0 &&
          resolved.count(m.matched.substr(0, m.matched.find(' '))) != 0) {
        m.note += "; re-exported by a repository module";
      }
    }
    if (f.has_text) make_findings_text(f);
  }
}

// Call sites of repository functions that need a CUDA-only package (a wrapper around flash-attn):
// each is a finding of the wrapper_call rule naming the definition, so the count of places to
// change is true. Only files that mention a wrapper's name are tokenized again.
template <typename Slots>
void add_wrapper_calls(Slots& slots, const Scanner& scanner, bool keep_text) {
  const Rule* call_rule = nullptr;
  for (const Rule& r : scanner.table().rules) {
    if (r.kind == MatchKind::kWrapperCall) call_rule = &r;
  }
  if (call_rule == nullptr) return;
  struct Where {
    std::string file;
    int line;
    int end_line;
    const Rule* rule;
  };
  std::map<std::string, Where> wrappers;
  for (auto& slot : slots) {
    if (!slot.scan) continue;
    for (const WrapperDef& w : slot.scan->python.wrappers) {
      wrappers.emplace(w.name, Where{slot.scan->file.rel, w.line, w.end_line, w.rule});
    }
  }
  if (wrappers.empty()) return;
  std::vector<std::string> names;
  for (const auto& [name, where] : wrappers) names.push_back(name);
  for (auto& slot : slots) {
    if (!slot.scan || slot.scan->file.type != FileType::kPython) continue;
    FileScan& f = *slot.scan;
    std::string text;
    if (!source_again(f, keep_text, &text)) continue;
    bool mentions = false;
    for (const std::string& name : names)
      mentions = mentions || text.find(name) != std::string::npos;
    if (!mentions) continue;
    std::vector<std::pair<int, int>> skip;
    for (const auto& [name, where] : wrappers) {
      if (where.file == f.file.rel) skip.emplace_back(where.line, where.end_line);
    }
    std::vector<Match> calls = scanner.scan_calls(text, names, call_rule, skip);
    for (Match& m : calls) {
      const std::string name = m.matched.substr(0, m.matched.size() - 1);
      const Where& w = wrappers.at(name);
      m.note = "calls " + name + "(), defined at " + w.file + ":" + std::to_string(w.line) +
               ", which needs what rule " + w.rule->id + " reports (" + w.rule->alternative + ")";
      if (f.has_text) {
        f.counted.push_back({m.rule, m.effort});
        std::string& out = f.findings_text;
        if (!out.empty()) out += ',';
        append_finding_text(out, file_json(f), m, -1);
      } else {
        f.python.matches.push_back(std::move(m));
      }
    }
  }
}

RepoScan scan_files(const fs::path& root, std::vector<RepoFile> files, const Scanner& scanner,
                    const Hooks& hooks, ScanOptions options) {
  const bool keep_text = options.keep_text;
  RepoScan out;
  out.root = root;
  const size_t total = files.size();
  // Files are independent, so they are read and scanned on a few threads; results keep the
  // walk's order so output does not depend on scheduling.
  struct Slot {
    std::optional<FileScan> scan;
    std::vector<Skipped> skipped;
  };
  std::vector<Slot> slots(total);
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex hooks_mutex;
  auto worker = [&] {
    for (size_t i = next++; i < total && !stop; i = next++) {
      if ((i % 64) == 0 && (hooks.cancelled || hooks.progress)) {
        std::lock_guard<std::mutex> lock(hooks_mutex);
        if (hooks.cancelled && hooks.cancelled()) {
          stop = true;
          return;
        }
        if (hooks.progress)
          hooks.progress(static_cast<double>(i), total, "scanning " + files[i].rel);
      }
      RepoFile& file = files[i];
      std::string reason;
      // Without keep_text one buffer per thread serves every file: a fresh multi-kilobyte
      // string per file costs more in malloc than the scan itself.
      thread_local std::string buffer;
      if (!read_source(file.abs, &buffer, &reason)) {
        slots[i].skipped.push_back({file.rel, reason});
        continue;
      }
      FileScan f;
      f.file = std::move(file);
      if (keep_text) {
        f.text = buffer;
      } else {
        f.text.swap(buffer);
      }
      const std::string name = f.file.abs.filename().string();
      if (f.file.type == FileType::kPython) {
        f.python = scanner.scan_python(f.text);
        f.tokenized_cleanly = f.python.errors.empty();
        if (scanner.wants_text_file(name)) f.text_matches = scanner.scan_text(f.text, name);
      } else if (f.file.type == FileType::kNotebook) {
        scan_notebook(f, scanner, &slots[i].skipped);
      } else {
        f.text_matches = scanner.scan_text(f.text, name);
      }
      if (!keep_text) {
        f.text.swap(buffer);
        f.text.clear();
      }
      if (options.findings_text) make_findings_text(f);
      slots[i].scan = std::move(f);
    }
  };
  const size_t threads =
      total < 64 ? 1 : std::min<size_t>(8, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (stop) throw SkillError(SKILLRT_CANCELLED, "cancelled while scanning the repository");
  resolve_reexports(slots, scanner, keep_text);
  add_wrapper_calls(slots, scanner, keep_text);
  out.files.reserve(total);
  for (Slot& slot : slots) {
    for (Skipped& s : slot.skipped) out.skipped.push_back(std::move(s));
    if (!slot.scan) continue;
    FileScan& f = *slot.scan;
    if (!f.python.errors.empty()) {
      const TokenizeError& e = f.python.errors.front();
      out.notes.push_back(f.file.rel + ":" + std::to_string(e.line) + ": " + e.message +
                          " (findings after it may be incomplete; apply refuses to rewrite it)");
    }
    out.files.push_back(std::move(f));
  }
  return out;
}

Json finding_json(const FileScan& f, const Match& m, int cell, bool rule_text) {
  return make_finding(f, m, cell, rule_text);
}

Json rule_json(const Rule& r) {
  Json j = Json::object();
  Json::object_t& o = j.get_ref<Json::object_t&>();
  auto put = [&o](const char* key, Json value) { o.emplace_hint(o.end(), key, std::move(value)); };
  put("alternative", r.alternative);
  put("domain", r.domain);
  put("effort", r.effort);
  put("source", r.source);
  put("suggestion", r.suggestion);
  return j;
}

std::vector<Located> report_order(FileScan& f) {
  std::vector<Located> out;
  out.reserve(f.python.matches.size() + f.text_matches.size());
  for (Match& m : f.python.matches) out.push_back({&m, -1});
  for (Match& m : f.text_matches) out.push_back({&m, -1});
  auto before = [](const Located& a, const Located& b) {
    return a.match->line != b.match->line ? a.match->line < b.match->line
                                          : a.match->column < b.match->column;
  };
  // Matches come in source order almost always; stable_sort would take a buffer per file anyway.
  if (!std::is_sorted(out.begin(), out.end(), before)) {
    std::stable_sort(out.begin(), out.end(), before);
  }
  for (CellScan& c : f.cells) {
    for (Match& m : c.scan.matches) out.push_back({&m, c.index});
    for (Match& m : c.magics) out.push_back({&m, c.index});
  }
  return out;
}

Json summarize(RepoScan& scan, const RuleTable& table, FindingsText* text) {
  Json findings = Json::array();
  Json suggestions = Json::array();
  // One pass over the findings, then one verdict per domain.
  struct Tally {
    std::map<std::string, int> by_effort;
    std::vector<std::string> rules;
    int count = 0;
    int rank = -1;
    std::string effort = "none";
    double days = 0;
  };
  std::map<std::string, Tally, std::less<>> tallies;
  for (const Domain& d : table.domains) {
    for (const EffortClass& e : table.effort_classes) tallies[d.id].by_effort[e.id] = 0;
  }
  // The rules that fired, by id: the texts findings refer to through their `rule`.
  std::map<std::string_view, const Rule*> fired_ids;
  // Per rule that fired, its domain's tally and what a finding at the rule's own effort class
  // adds: looked up once per rule rather than by string for each of tens of thousands of findings.
  struct Seen {
    Tally* tally = nullptr;
    int* own_by_effort = nullptr;
    const EffortClass* own_class = nullptr;
  };
  std::unordered_map<const Rule*, Seen> seen;
  if (text != nullptr) {
    size_t finding_bytes = 2, suggestion_bytes = 2;
    for (const FileScan& f : scan.files) {
      finding_bytes += f.findings_text.size() + 1;
      suggestion_bytes += f.suggestions_text.size() + 1;
    }
    text->findings.clear();
    text->suggestions.clear();
    text->findings.reserve(finding_bytes);
    text->suggestions.reserve(suggestion_bytes);
    text->findings += '[';
    text->suggestions += '[';
  }
  // Each file's text joins the arrays, and is freed, as the file is counted.
  auto join = [](std::string& array, std::string& file_text) {
    if (file_text.empty()) return;
    if (array.size() > 1) array += ',';
    array += file_text;
    file_text = std::string();
  };
  size_t finding_total = 0;
  auto count = [&](const Rule* rule, const std::string& effort) {
    auto [it, first] = seen.try_emplace(rule);
    Seen& s = it->second;
    if (first) {
      fired_ids.emplace(rule->id, rule);
      if (!rule->suggestion) {
        s.tally = &tallies[rule->domain];
        s.own_class = table.effort_class(rule->effort);
        std::vector<std::string>& ids = s.tally->rules;
        if (std::find(ids.begin(), ids.end(), rule->id) == ids.end()) ids.push_back(rule->id);
      }
    }
    if (rule->suggestion) return;
    Tally& t = *s.tally;
    ++t.count;
    const bool own = effort == rule->effort;
    if (own) {
      // std::map entries stay put, so the counter is found once.
      if (s.own_by_effort == nullptr) s.own_by_effort = &t.by_effort[effort];
      ++*s.own_by_effort;
    } else {
      ++t.by_effort[effort];
    }
    const EffortClass* c = own ? s.own_class : table.effort_class(effort);
    const int r = c ? c->rank : 0;
    if (r > t.rank) {
      t.rank = r;
      t.effort = effort;
    }
    if (c && c->days_per_finding) t.days += *c->days_per_finding;
  };
  for (FileScan& f : scan.files) {
    if (f.has_text && text == nullptr) {
      throw std::logic_error("summarize: scan_files wrote findings text; pass a FindingsText");
    }
    if (!f.has_text) {
      const std::string file = text != nullptr ? file_json(f) : std::string();
      for (const Located& l : report_order(f)) {
        const Match& m = *l.match;
        if (text != nullptr) {
          std::string& out = m.rule->suggestion ? f.suggestions_text : f.findings_text;
          if (!out.empty()) out += ',';
          append_finding_text(out, file, m, l.cell);
        } else {
          (m.rule->suggestion ? suggestions : findings)
              .push_back(finding_json(f, m, l.cell, false));
        }
        f.counted.push_back({m.rule, m.effort});
      }
    }
    for (const FileScan::Counted& c : f.counted) {
      count(c.rule, c.effort);
      if (!c.rule->suggestion) ++finding_total;
    }
    f.counted = std::vector<FileScan::Counted>();
    if (text != nullptr) {
      join(text->findings, f.findings_text);
      join(text->suggestions, f.suggestions_text);
    }
    f.has_text = false;
  }
  if (text != nullptr) {
    text->findings += ']';
    text->suggestions += ']';
  }

  Json domains = Json::array();
  int worst_rank = -1;
  std::string worst_effort = "none";
  double total_days = 0;
  int total_blockers = 0;
  for (const Domain& d : table.domains) {
    Tally& t = tallies[d.id];
    std::map<std::string, int>& by_effort = t.by_effort;
    const std::vector<std::string>& rules = t.rules;
    const int count = t.count;
    const int rank = t.rank;
    const std::string effort = t.effort;
    const double days = t.days;
    const int blockers = by_effort.count("blocker") ? by_effort["blocker"] : 0;
    std::string verdict = count == 0 ? "works" : blockers > 0 ? "blocked" : "needs_change";
    Json dj = {{"domain", d.id},   {"title", d.title},  {"verdict", verdict},
               {"effort", effort}, {"findings", count}, {"by_effort", by_effort},
               {"rules", rules}};
    if (blockers > 0) {
      dj["estimate_days"] = nullptr;
      dj["estimate_note"] = std::to_string(blockers) +
                            " blocker(s) without a documented NPU counterpart: the effort cannot "
                            "be estimated until a replacement is designed";
    } else {
      dj["estimate_days"] = days;
      dj["estimate_note"] = count == 0 ? "no CUDA-specific usage found by the rule table"
                                       : "sum of per-finding weights (rules.json effort_classes)";
    }
    domains.push_back(dj);
    total_days += days;
    total_blockers += blockers;
    if (rank > worst_rank) {
      worst_rank = rank;
      worst_effort = effort;
    }
  }
  Json overall = {{"verdict", finding_total == 0   ? "works"
                              : total_blockers > 0 ? "blocked"
                                                   : "needs_change"},
                  {"effort", worst_effort},
                  {"findings", finding_total},
                  {"blockers", total_blockers}};
  if (total_blockers > 0) {
    overall["estimate_days"] = nullptr;
    char days[32];
    std::snprintf(days, sizeof days, "%.2f", total_days);
    overall["estimate_note"] =
        std::string("at least ") + days + " days for the estimable findings, plus " +
        std::to_string(total_blockers) + " blocker(s) that cannot be estimated";
  } else {
    overall["estimate_days"] = total_days;
    overall["estimate_note"] =
        "heuristic: findings weighted by effort class (rules.json effort_classes)";
  }
  Json rules = Json::object();
  for (const auto& [id, rule] : fired_ids) {
    rules.get_ref<Json::object_t&>().emplace_hint(rules.get_ref<Json::object_t&>().end(), id,
                                                  rule_json(*rule));
  }
  Json skipped = Json::array();
  for (const Skipped& s : scan.skipped) skipped.push_back({{"path", s.path}, {"reason", s.reason}});
  // Moved in, not listed in an initializer list, which would deep-copy every finding.
  Json result = Json::object();
  if (text == nullptr) {
    result["findings"] = std::move(findings);
    result["suggestions"] = std::move(suggestions);
  }
  result["rules"] = std::move(rules);
  result["domains"] = std::move(domains);
  result["overall"] = std::move(overall);
  result["files_scanned"] = scan.files.size();
  result["skipped"] = std::move(skipped);
  result["excluded"] = scan.vendored;
  result["notes"] = scan.notes;
  return result;
}

std::string result_text(const Json& rest, const FindingsText& text) {
  // nlohmann keeps an object's keys sorted: the two arrays go in at their places among the rest.
  const std::pair<std::string_view, const std::string*> arrays[] = {
      {"findings", &text.findings}, {"suggestions", &text.suggestions}};
  std::string out;
  out.reserve(text.findings.size() + text.suggestions.size() + 64 * 1024);
  out += '{';
  auto key = [&out](std::string_view k) {
    if (out.size() > 1) out += ',';
    append_json_string(out, k);
    out += ':';
  };
  size_t next = 0;
  auto arrays_before = [&](const std::string* k) {
    for (; next < 2 && (k == nullptr || arrays[next].first < *k); ++next) {
      key(arrays[next].first);
      out += *arrays[next].second;
    }
  };
  for (const auto& [k, v] : rest.get_ref<const Json::object_t&>()) {
    if (k == "findings" || k == "suggestions") {
      throw std::logic_error("result_text: '" + k + "' is in the rest of the result");
    }
    arrays_before(&k);
    key(k);
    append_json_value(out, v);
  }
  arrays_before(nullptr);
  out += '}';
  return out;
}

}  // namespace detail

namespace {

// All of analyze but the reports. With `text`, the findings and suggestions are written there as
// text and stay out of the result.
Json analyze_without_reports(const Json& input, const Hooks& hooks, detail::FindingsText* text) {
  using namespace detail;
  const fs::path root = resolve_root(input.at("repo").get<std::string>());
  const RuleTable table = table_for(input);
  const Scanner scanner(table);
  const WalkOptions options = walk_options(input);
  Walk walk = walk_repo(root, options,
                        [&](const std::string& name) { return scanner.wants_text_file(name); });
  RepoScan scan =
      scan_files(root, std::move(walk.files), scanner, hooks, ScanOptions{false, text != nullptr});
  for (Skipped& s : walk.skipped) scan.skipped.push_back(std::move(s));
  scan.vendored = std::move(walk.vendored);
  Json result = summarize(scan, table, text);
  result["repo"] = root.string();
  // Every declared dependency with its NPU status; unknown ones are listed, not left out.
  Json deps = Json::array();
  for (const FileScan& f : scan.files) {
    if (!is_packaging_file(f.file.abs.filename().string())) continue;
    std::string source, reason;
    if (!read_source(f.file.abs, &source, &reason)) continue;
    for (Json& d : read_dependencies(source, f.file.rel)) deps.push_back(std::move(d));
  }
  result["dependencies"] = std::move(deps);
  result["rule_table"] = {{"name", table.name},
                          {"version", table.version},
                          {"origins", table.origins},
                          {"rules", table.rules.size()}};
  if (scan.files.empty()) {
    result["notes"].push_back(
        "no Python, notebook, C++/CUDA, build or requirements file was found under the repo "
        "(excluded folders are listed in 'excluded'): nothing to judge");
  }
  return result;
}

// Writes the reports `input` asks for from `result` (as yet without `reports`); their list.
Json write_reports(const Json& input, const Json& result) {
  using namespace detail;
  Json reports = Json::array();
  if (!input.contains("report_dir")) return reports;
  const fs::path dir = input.at("report_dir").get<std::string>();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw invalid_argument("report_dir '" + dir.string() + "' cannot be created (" + ec.message() +
                           "): pass a writable folder");
  }
  std::vector<std::string> formats = {"md", "json", "xlsx"};
  if (input.contains("formats")) formats = input.at("formats").get<std::vector<std::string>>();
  for (const std::string& fmt : formats) {
    const fs::path path = dir / ("gpu-migration-report." + fmt);
    if (fmt == "md") {
      write_atomically(path, render_markdown(result));
    } else if (fmt == "json") {
      // As the result itself: a file name that is not UTF-8 must not fail the report.
      write_atomically(path, result.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
    } else if (fmt == "xlsx") {
      write_xlsx(result, path.string());
    }
    reports.push_back({{"format", fmt}, {"path", fs::absolute(path).string()}});
  }
  return reports;
}

}  // namespace

Json analyze(const Json& input, const Hooks& hooks) {
  Json result = analyze_without_reports(input, hooks, nullptr);
  result["reports"] = write_reports(input, result);
  return result;
}

std::string analyze_text(const Json& input, const Hooks& hooks) {
  // The reports are rendered from the result as Json; they cost far more than building it.
  if (input.contains("report_dir")) {
    return analyze(input, hooks).dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  detail::FindingsText text;
  Json rest = analyze_without_reports(input, hooks, &text);
  rest["reports"] = Json::array();
  return detail::result_text(rest, text);
}

}  // namespace skillrt::gpu_migration
