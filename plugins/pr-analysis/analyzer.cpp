#include "analyzer.hpp"

#include <algorithm>

#include "detail/op_excerpt.hpp"
#include "git_source.hpp"

namespace skillrt::pr_analysis {
namespace {

// Bounds that keep one enormous PR (a codemod over 3,000 files) from dominating the report:
// the counts stay exact, the listed evidence is capped and says so.
constexpr size_t kMaxTextChars = 240;

std::string clip(const std::string& s) {
  if (s.size() <= kMaxTextChars) return s;
  size_t cut = kMaxTextChars;
  // Never split a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "...";
}

bool path_matches(const Rule& r, const FileDiff& f) {
  if (r.paths.empty()) return true;
  auto any = [&](const std::vector<std::string>& globs, const std::string& p) {
    return std::any_of(globs.begin(), globs.end(),
                       [&](const std::string& g) { return glob_match(g, p); });
  };
  const bool hit = any(r.paths, f.path) || (f.old_path != f.path && any(r.paths, f.old_path));
  if (!hit) return false;
  return !any(r.exclude_paths, f.path);
}

const DiffLine* first_changed(const FileDiff& f, const Hunk** in) {
  for (const Hunk& h : f.hunks) {
    for (const DiffLine& l : h.lines) {
      if (l.origin == '+' || l.origin == '-') {
        *in = &h;
        return &l;
      }
    }
  }
  return nullptr;
}

const DiffLine* find_contains(const FileDiff& f, const std::vector<std::string>& needles,
                              const Hunk** in, std::string* needle) {
  for (const Hunk& h : f.hunks) {
    for (const DiffLine& l : h.lines) {
      if (l.origin != '+' && l.origin != '-') continue;
      for (const std::string& n : needles) {
        if (l.text.find(n) != std::string::npos) {
          *in = &h;
          *needle = n;
          return &l;
        }
      }
    }
  }
  return nullptr;
}

std::string hunk_header(const Hunk& h) {
  return "@@ -" + std::to_string(h.old_start) + "," + std::to_string(h.old_lines) + " +" +
         std::to_string(h.new_start) + "," + std::to_string(h.new_lines) + " @@";
}

Json line_evidence(const FileDiff& f, const Hunk* h, const DiffLine* l) {
  Json e{{"file", f.path}};
  if (h != nullptr) e["hunk"] = hunk_header(*h);
  if (l != nullptr) {
    e["line"] = l->origin == '-' ? l->old_line : l->new_line;
    e["side"] = l->origin == '-' ? "old" : "new";
    e["text"] = clip(std::string(1, l->origin) + l->text);
  } else if (f.binary) {
    e["text"] = "binary file " + f.status;
  } else {
    e["text"] = "file " + f.status + " without line changes";
  }
  return e;
}

}  // namespace

std::string impact_label(int impact) {
  if (impact < 0) return "needs-review";
  return std::string(to_string(static_cast<Impact>(impact)));
}

Analyzer::Analyzer(const RulePack& pack, const NpuIndex* npu, std::string repo_url)
    : pack_(pack), npu_(npu), repo_url_(std::move(repo_url)) {
  while (!repo_url_.empty() && repo_url_.back() == '/') repo_url_.pop_back();
}

PrRecord& Analyzer::record_for(const ChangeSet& cs) {
  std::string key;
  if (cs.pr) {
    key = (cs.revert ? "revert:" : "pr:") + std::to_string(*cs.pr);
  } else {
    key = "commit:" + cs.sha;
  }
  auto it = by_key_.find(key);
  if (it != by_key_.end()) return records_[it->second];
  by_key_[key] = records_.size();
  records_.emplace_back();
  PrRecord& r = records_.back();
  r.key = key;
  r.pr = cs.pr ? Json(*cs.pr) : Json(nullptr);
  r.revert = cs.revert;
  r.title = cs.title;
  r.author = cs.author;
  r.time = cs.time;
  r.pr_source = cs.pr_source;
  r.labels = cs.labels;
  return r;
}

void Analyzer::fire(PrRecord& rec, const Rule& rule, Json evidence, const std::string& sha) {
  const int impact = static_cast<int>(rule.impact);
  rec.impact = std::max(rec.impact, impact);
  rec.categories.insert(rule.category);
  if (std::find(rec.rules.begin(), rec.rules.end(), rule.id) == rec.rules.end()) {
    rec.rules.push_back(rule.id);
  }
  // Every firing is kept: the report files list all of them, and only the tool result
  // returned to an agent is trimmed (run.cpp), saying where the full list is.
  ++rec.rule_hits[rule.id];
  evidence["rule"] = rule.id;
  evidence["category"] = rule.category;
  evidence["impact"] = std::string(to_string(rule.impact));
  evidence["rule_origin"] = rule.origin;
  // A PR landed twice has evidence from each landing.
  if (!sha.empty()) evidence["commit"] = sha.substr(0, 12);
  rec.evidence.push_back(std::move(evidence));
}

void Analyzer::npu_hits_for_path(PrRecord& rec, const std::string& path) {
  if (npu_ == nullptr || npu_->empty()) return;
  for (const NpuEntry& e : npu_->path_users(path)) {
    const std::string id = e.file + ":" + std::to_string(e.line);
    if (!rec.seen_npu.insert(id).second) continue;
    rec.npu_hits.push_back({{"npu_file", e.file},
                            {"npu_line", e.line},
                            {"npu_text", clip(e.text)},
                            {"how", e.how},
                            {"upstream_file", path}});
  }
}

void Analyzer::npu_hits_for_op(PrRecord& rec, const std::string& op, const std::string& rule) {
  if (npu_ == nullptr || npu_->empty()) return;
  for (const NpuEntry& e : npu_->op_entries(op)) {
    const std::string id = e.file + ":" + std::to_string(e.line);
    if (!rec.seen_npu.insert(id).second) continue;
    rec.npu_hits.push_back({{"npu_file", e.file},
                            {"npu_line", e.line},
                            {"npu_text", clip(e.text)},
                            {"how", e.how},
                            {"op", op},
                            {"rule", rule}});
  }
}

void Analyzer::add(const ChangeSet& cs) {
  ++change_sets_;
  PrRecord& rec = record_for(cs);
  if (!cs.sha.empty()) rec.commits.push_back(cs.sha);
  for (const std::string& l : cs.labels) {
    if (std::find(rec.labels.begin(), rec.labels.end(), l) == rec.labels.end()) {
      rec.labels.push_back(l);
    }
  }
  // PR-level rules: labels.
  for (const Rule& rule : pack_.rules) {
    if (rule.labels.empty() || !rule.paths.empty() || !rule.hunk_contains.empty() ||
        !rule.op_changes.empty()) {
      continue;
    }
    for (const std::string& l : cs.labels) {
      if (std::find(rule.labels.begin(), rule.labels.end(), l) != rule.labels.end()) {
        fire(rec, rule, Json{{"label", l}}, cs.sha);
        break;
      }
    }
  }
  for (const FileDiff& f : cs.files) {
    std::vector<std::string> fired;
    detail::OpDiffResult opdiff;
    bool opdiff_done = false;
    const ops::SourceFormat format = detail::operator_file_format(f.path);
    for (const Rule& rule : pack_.rules) {
      if (rule.paths.empty() && rule.hunk_contains.empty() && rule.op_changes.empty()) continue;
      if (!rule.labels.empty() &&
          std::none_of(cs.labels.begin(), cs.labels.end(), [&](const std::string& l) {
            return std::find(rule.labels.begin(), rule.labels.end(), l) != rule.labels.end();
          })) {
        continue;
      }
      if (!path_matches(rule, f)) continue;
      const Hunk* hunk = nullptr;
      const DiffLine* line = nullptr;
      std::string needle;
      if (!rule.hunk_contains.empty()) {
        line = find_contains(f, rule.hunk_contains, &hunk, &needle);
        if (line == nullptr) continue;
      }
      if ((!rule.op_changes.empty() || rule.no_op_changes) && !opdiff_done &&
          format != ops::SourceFormat::kUnknown && f.has_versions) {
        opdiff = detail::diff_touched_ops(f, format);
        opdiff_done = true;
        if (!opdiff.problem.empty()) rec.problems.push_back(opdiff.problem);
      }
      if (rule.no_op_changes && !opdiff.findings.empty()) continue;
      if (!rule.op_changes.empty()) {
        if (!opdiff_done) continue;
        bool any = false;
        for (const detail::OpFinding& o : opdiff.findings) {
          if (std::find(rule.op_changes.begin(), rule.op_changes.end(), o.kind) ==
              rule.op_changes.end()) {
            continue;
          }
          any = true;
          Json e{{"file", f.path}, {"op", o.op}, {"op_change", o.kind}, {"change", o.change}};
          if (!o.subject.empty()) e["subject"] = o.subject;
          if (!o.old_value.empty()) e["old_value"] = clip(o.old_value);
          if (!o.new_value.empty()) e["new_value"] = clip(o.new_value);
          if (!o.old_schema.empty()) e["old_schema"] = o.old_schema;
          if (!o.new_schema.empty()) e["new_schema"] = o.new_schema;
          if (o.new_line > 0) {
            e["line"] = o.new_line;
            e["side"] = "new";
          } else {
            e["line"] = o.old_line;
            e["side"] = "old";
          }
          if (o.old_line > 0) e["old_line"] = o.old_line;
          fire(rec, rule, std::move(e), cs.sha);
          const std::string base = o.op.substr(0, o.op.find('#'));
          npu_hits_for_op(rec, base, rule.id);
        }
        if (!any) continue;
        fired.push_back(rule.id);
        continue;
      }
      if (line == nullptr) line = first_changed(f, &hunk);
      Json e = line_evidence(f, hunk, line);
      if (!needle.empty()) e["matched"] = needle;
      fire(rec, rule, std::move(e), cs.sha);
      fired.push_back(rule.id);
    }
    if (fired.empty()) rec.unmatched_files.push_back(f.path);
    npu_hits_for_path(rec, f.path);
    if (f.old_path != f.path) npu_hits_for_path(rec, f.old_path);
    Json fj{{"path", f.path},
            {"status", f.status},
            {"additions", f.additions},
            {"deletions", f.deletions},
            {"rules", fired}};
    if (f.old_path != f.path) fj["old_path"] = f.old_path;
    rec.files.push_back(std::move(fj));
  }
}

Json Analyzer::result() const {
  std::vector<const PrRecord*> order;
  order.reserve(records_.size());
  for (const PrRecord& r : records_) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(),
                   [](const PrRecord* a, const PrRecord* b) { return a->time < b->time; });
  Json prs = Json::array();
  Json by_impact = {{"high", 0}, {"medium", 0}, {"low", 0}, {"none", 0}, {"needs-review", 0}};
  Json by_category = Json::object();
  for (const Category& c : pack_.categories) by_category[c.id] = 0;
  size_t reverts = 0;
  size_t unmapped = 0;
  for (const PrRecord* r : order) {
    const std::string impact = impact_label(r->impact);
    by_impact[impact] = by_impact[impact].get<int>() + 1;
    for (const std::string& c : r->categories) {
      by_category[c] = by_category.value(c, 0) + 1;
    }
    if (r->revert) ++reverts;
    if (r->pr.is_null()) ++unmapped;
    // Suggestions of the rules at the PR's impact, in rule-pack order.
    std::vector<std::string> suggestion;
    for (const Rule& rule : pack_.rules) {
      if (static_cast<int>(rule.impact) != r->impact || rule.suggestion.empty()) continue;
      if (std::find(r->rules.begin(), r->rules.end(), rule.id) == r->rules.end()) continue;
      if (std::find(suggestion.begin(), suggestion.end(), rule.suggestion) == suggestion.end()) {
        suggestion.push_back(rule.suggestion);
      }
    }
    std::string text;
    if (r->impact < 0) {
      text =
          "No rule of the pack understands this change: read the files listed and decide; "
          "add a rule (rules: <path>) so the next run knows.";
    }
    if (r->revert) {
      text += std::string(text.empty() ? "" : " ") +
              "This reverts an earlier PR: undo any adaptation made for it.";
    }
    for (const std::string& s : suggestion) text += (text.empty() ? "" : " ") + s;
    if (!r->npu_hits.empty()) {
      text += (text.empty() ? "" : " ") + std::string("NPU entries hit: ") +
              std::to_string(r->npu_hits.size()) + " (see npu_hits).";
    }
    std::vector<std::string> problems = r->problems;
    Json categories = Json::array();
    for (const Category& c : pack_.categories) {
      if (r->categories.count(c.id) > 0) categories.push_back(c.id);
    }
    Json commits = Json::array();
    for (const std::string& sha : r->commits) {
      commits.push_back({{"sha", sha}, {"url", repo_url_ + "/commit/" + sha}});
    }
    Json p{{"key", r->key},
           {"pr", r->pr},
           {"url", r->pr.is_null()
                       ? Json(nullptr)
                       : Json(repo_url_ + "/pull/" + std::to_string(r->pr.get<int64_t>()))},
           {"title", r->title},
           {"author", r->author},
           {"merged_at", format_time(r->time)},
           {"pr_source", r->pr_source},
           {"revert", r->revert},
           {"labels", r->labels},
           {"commits", commits},
           {"impact", impact},
           {"categories", categories},
           {"rules", r->rules},
           {"suggestion", text},
           {"evidence", r->evidence},
           {"npu_hits", r->npu_hits},
           {"files", r->files},
           {"unmatched_files", r->unmatched_files},
           {"problems", problems}};
    prs.push_back(std::move(p));
  }
  Json summary{{"change_sets", change_sets_}, {"prs", order.size()},
               {"reverts", reverts},          {"commits_without_pr", unmapped},
               {"by_impact", by_impact},      {"by_category", by_category}};
  return Json{{"prs", std::move(prs)}, {"summary", std::move(summary)}};
}

}  // namespace skillrt::pr_analysis
