// The skill's verification: the linters run on the changed files before and after the fixes,
// and their findings compared.
#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <tuple>

#include "session.hpp"

namespace skillrt::ci_fix::detail {

namespace {

using Place = std::tuple<std::string, std::string, uint32_t>;  // file, rule, line
using RelOf = std::function<std::string(const Finding&)>;

// A finding's line in the fixed text: its line in the original mapped through the file's edits.
// The files' line indexes are built once.
class LineMapper {
 public:
  using Lookup = std::function<const FileResult*(const std::string&)>;
  explicit LineMapper(Lookup result_for) : result_for_(std::move(result_for)) {}

  uint32_t operator()(const Finding& f, const std::string& rel) {
    const FileResult* r = result_for_(rel);
    if (r == nullptr || f.line == 0) return f.line;
    auto& b = li_before_[rel];
    auto& a = li_after_[rel];
    if (!b) b = std::make_unique<LineIndex>(r->original);
    if (!a) a = std::make_unique<LineIndex>(r->fixed);
    if (f.line > b->count())
      return f.line + static_cast<uint32_t>(a->count()) - static_cast<uint32_t>(b->count());
    return map_line(*b, r->edits, *a, f.line);
  }
  const FileResult* result_for(const std::string& rel) const { return result_for_(rel); }
  // Lines of the original file; only after a mapping of one of its lines.
  size_t lines_before(const std::string& rel) { return li_before_[rel]->count(); }

 private:
  Lookup result_for_;
  std::map<std::string, std::unique_ptr<LineIndex>> li_before_, li_after_;
};

// The findings, one per (file, rule, line) when compared per line.
std::vector<Finding> distinct(const std::vector<Finding>& in, bool per_line, const RelOf& rel_of) {
  std::vector<Finding> out;
  std::set<Place> seen;
  for (const Finding& f : in) {
    if (!per_line || seen.insert({rel_of(f), f.code, f.line}).second) out.push_back(f);
  }
  return out;
}

json finding_entry(const std::string& rel, const Finding& f) {
  return {{"file", rel}, {"line", f.line}, {"rule", f.code}, {"message", f.message}};
}

// After-findings that match a before-finding (remaining), those that do not (fresh), and how many
// before-findings are gone.
struct Matched {
  json remaining = json::array();
  json fresh = json::array();
  size_t gone = 0;
};

// Key: (file, rule, line after the fixes). Before-findings are mapped through the edits; a
// finding whose line moved in a way the mapping cannot follow is matched by file, rule, message.
Matched match_by_place(const std::vector<Finding>& before_list,
                       const std::vector<Finding>& after_list, const RelOf& rel_of,
                       LineMapper& mapped) {
  std::map<Place, std::vector<const Finding*>> before;
  for (const Finding& f : before_list) {
    std::string rel = rel_of(f);
    before[{rel, f.code, mapped(f, rel)}].push_back(&f);
  }
  Matched m;
  size_t matched = 0;
  std::vector<const Finding*> unmatched_after;
  for (const Finding& f : after_list) {
    std::string rel = rel_of(f);
    auto it = before.find({rel, f.code, f.line});
    if (it != before.end() && !it->second.empty()) {
      it->second.pop_back();
      ++matched;
      m.remaining.push_back(finding_entry(rel, f));
    } else {
      unmatched_after.push_back(&f);
    }
  }
  for (const Finding* f : unmatched_after) {
    std::string rel = rel_of(*f);
    bool found = false;
    for (auto& [key, list] : before) {
      if (std::get<0>(key) != rel || std::get<1>(key) != f->code) continue;
      for (auto it = list.begin(); it != list.end(); ++it) {
        if ((*it)->message == f->message) {
          list.erase(it);
          found = true;
          break;
        }
      }
      if (found) break;
    }
    if (found) {
      ++matched;
      m.remaining.push_back(finding_entry(rel, *f));
    } else {
      m.fresh.push_back(finding_entry(rel, *f));
    }
  }
  m.gone = before_list.size() - matched;
  return m;
}

// clang-format, per line: a line it wanted to change may have been split by the fixes, and every
// line it became counts as the same place.
Matched match_by_line(const std::vector<Finding>& before_list,
                      const std::vector<Finding>& after_list, const RelOf& rel_of,
                      LineMapper& mapped) {
  std::set<std::pair<std::string, uint32_t>> covered;
  std::map<std::pair<std::string, uint32_t>, std::pair<std::string, uint32_t>> origin;
  for (const Finding& f : before_list) {
    std::string rel = rel_of(f);
    const FileResult* r = mapped.result_for(rel);
    uint32_t a = mapped(f, rel), b = a + 1;
    if (r != nullptr && f.line > 0) {
      Finding next = f;
      next.line = f.line + 1;
      b = std::max(a + 1, f.line + 1 <= mapped.lines_before(rel) ? mapped(next, rel) : a + 1);
    }
    for (uint32_t l = a; l < b; ++l) {
      covered.insert({rel, l});
      origin[{rel, l}] = {rel, f.line};
    }
  }
  Matched m;
  std::set<std::pair<std::string, uint32_t>> still;
  for (const Finding& f : after_list) {
    std::string rel = rel_of(f);
    json j = finding_entry(rel, f);
    if (covered.count({rel, f.line})) {
      m.remaining.push_back(j);
      still.insert(origin[{rel, f.line}]);
    } else {
      m.fresh.push_back(j);
    }
  }
  m.gone = before_list.size() - still.size();
  return m;
}

}  // namespace

const FileResult* Session::result_for(const std::string& rel) const {
  auto it = result_index_.find(rel);
  return it == result_index_.end() ? nullptr : &results_[it->second];
}

// Which verifier re-checks a finding's tool.
std::string Session::verifier_for(const Finding& f) const {
  std::string fam = tool_family(f.tool);
  if (f.tool == "flake8" || (fam == "pep8" && f.tool != "pycodestyle")) return "flake8";
  if (f.tool == "pycodestyle") return "pycodestyle";
  if (f.tool == "cpplint") return "cpplint";
  if (f.tool == "clang-format" || (f.tool == "lintrunner" && f.code == "CLANGFORMAT")) {
    return "clang-format";
  }
  if (f.tool == "builtin" || f.tool == "pre-commit" ||
      (f.tool == "lintrunner" && (f.code == "SPACES" || f.code == "NEWLINE" || f.code == "TABS"))) {
    return "builtin";
  }
  if (f.tool == "codespell" || f.tool == "typos" ||
      (f.tool == "lintrunner" && f.code == "CODESPELL")) {
    return f.tool == "typos" ? "typos" : "codespell";
  }
  return "";
}

void Session::verify_before() {
  // Tools whose findings were fixed in some file.
  std::map<std::string, std::set<std::string>> files_for;
  for (const FileResult& r : results_) {
    if (r.fixes.empty()) continue;
    for (const AppliedFix& fx : r.fixes) {
      for (size_t id : fx.findings) {
        std::string v = verifier_for(findings_[id]);
        if (!v.empty()) files_for[v].insert(r.path);
      }
    }
  }
  // flake8 and pycodestyle also check that Python files changed for other reasons gained nothing.
  for (const FileResult& r : results_) {
    if (r.fixes.empty()) continue;
    if (r.lang == Language::kPython && (ran_.count("flake8") || files_for.count("flake8")))
      files_for["flake8"].insert(r.path);
    if (r.lang == Language::kCpp && ran_.count("clang-format"))
      files_for["clang-format"].insert(r.path);
  }
  for (auto& [tool, set] : files_for) {
    ToolCheck tc;
    tc.tool = tool;
    tc.files.assign(set.begin(), set.end());
    if (tool == "builtin") {
      for (const std::string& f : tc.files) {
        const FileData* fd = load(f);
        for (const std::string& c : all_builtin_checks()) {
          for (Finding& x : builtin_check(fd->ctx, c)) tc.before.push_back(x);
        }
      }
      tc.have_before = true;
    } else if (tool == "flake8" || tool == "pycodestyle" || tool == "cpplint" ||
               tool == "codespell" || tool == "typos") {
      if (ran_.count(tool)) {
        for (const Finding& f : findings_) {
          if (f.tool == tool && set.count(rel_or_empty(f))) tc.before.push_back(f);
        }
        tc.have_before = true;
      } else if (!find_program(tool).empty()) {
        tc.before = run_pep8(tool, tc.files, req_.repo, false);
        tc.have_before = !unavailable_.count(tool);
      }
    } else if (tool == "clang-format") {
      if (!find_program("clang-format").empty()) {
        for (const std::string& f : tc.files) {
          auto it = clang_replacements_.find(f);
          if (it != clang_replacements_.end()) {
            for (const Finding& x : it->second) tc.before.push_back(x);
          } else {
            std::map<std::string, std::string> src = {{f, load(f)->text}};
            auto got = clang_format({f}, req_.repo, src, "clang-format before the fixes");
            for (const Finding& x : got[f]) tc.before.push_back(x);
          }
        }
        tc.have_before = !unavailable_.count("clang-format");
      }
    }
    if (!tc.have_before) {
      tc.available = false;
      tc.note = unavailable_.count(tool)
                    ? unavailable_[tool]
                    : tool + " is not on PATH: the proofs stand alone for its fixes";
    }
    checks_.push_back(std::move(tc));
  }
}

std::vector<std::string> Session::all_builtin_checks() const {
  return {"trailing-whitespace", "final-newline", "crlf", "tabs"};
}

std::string Session::rel_or_empty(const Finding& f) const {
  std::string why;
  return relative(f.path, &why);
}

void Session::verify_after() {
  if (checks_.empty()) return;
  std::string dir = req_.repo;
  std::string mirror;
  if (!req_.apply) {
    // Dry run: the fixed files go to a scratch copy with the repository's linter configs.
    mirror = make_temp_dir("ci-fix-verify-");
    dir = mirror;
    std::set<std::string> configs = {".flake8",      "setup.cfg",     "tox.ini",
                                     ".pycodestyle", ".clang-format", "_clang-format"};
    for (const std::string& c : configs) {
      auto text = read_file(req_.repo + "/" + c);
      if (text) write_file(mirror + "/" + c, *text);
    }
    for (const FileResult& r : results_) {
      if (r.fixes.empty()) continue;
      write_file(mirror + "/" + r.path, r.fixed);
      // .clang-format files between the file and the root.
      std::string d = r.path;
      while (true) {
        size_t s = d.rfind('/');
        if (s == std::string::npos) break;
        d = d.substr(0, s);
        for (const char* c : {".clang-format", "_clang-format"}) {
          auto text = read_file(req_.repo + "/" + d + "/" + c);
          if (text) write_file(mirror + "/" + d + "/" + c, *text);
        }
      }
    }
  }
  for (ToolCheck& tc : checks_) {
    if (!tc.available) continue;
    if (tc.tool == "builtin") {
      for (const std::string& f : tc.files) {
        const FileResult* r = result_for(f);
        LineIndex li(r->fixed);
        TokenStream ts = tokenize(r->fixed, r->lang);
        FileContext c;
        c.rel_path = f;
        c.lang = r->lang;
        c.text = r->fixed;
        c.lines = &li;
        c.tokens = &ts;
        for (const std::string& chk : all_builtin_checks()) {
          for (Finding& x : builtin_check(c, chk)) tc.after.push_back(x);
        }
      }
      tc.have_after = true;
    } else if (tc.tool == "flake8" || tc.tool == "pycodestyle" || tc.tool == "cpplint" ||
               tc.tool == "codespell" || tc.tool == "typos") {
      unavailable_.erase(tc.tool);
      tc.after = run_pep8(tc.tool, tc.files, dir, false);
      tc.have_after = !unavailable_.count(tc.tool);
    } else if (tc.tool == "clang-format") {
      unavailable_.erase("clang-format");
      std::map<std::string, std::string> src;
      for (const std::string& f : tc.files) src[f] = result_for(f)->fixed;
      auto got = clang_format(tc.files, dir, src, "clang-format after the fixes");
      for (auto& [p, list] : got) {
        for (Finding& x : list) tc.after.push_back(x);
      }
      tc.have_after = !unavailable_.count("clang-format");
    }
    if (!tc.have_after) {
      tc.available = false;
      tc.note = "could not re-run " + tc.tool + ": " + unavailable_[tc.tool];
    }
  }
  if (!mirror.empty()) remove_tree(mirror);
}

void Session::compare(const ToolCheck& tc, json* vj, bool* all_ok) {
  LineMapper mapped([this](const std::string& rel) { return result_for(rel); });
  const RelOf rel_of = [this](const Finding& f) { return rel_or_empty(f); };
  // clang-format's replacements are compared per line: a line needing formatting before and
  // after is "remaining" however its replacements changed; only a line that was clean is "new".
  bool per_line = tc.tool == "clang-format";
  const std::vector<Finding> before_list = distinct(tc.before, per_line, rel_of);
  const std::vector<Finding> after_list = distinct(tc.after, per_line, rel_of);
  Matched m = per_line ? match_by_line(before_list, after_list, rel_of, mapped)
                       : match_by_place(before_list, after_list, rel_of, mapped);
  const json not_cleared = still_reported(
      tc, m.remaining,
      [&mapped](const Finding& f, const std::string& rel) { return mapped(f, rel); });
  (*vj)["before"] = before_list.size();
  (*vj)["after"] = after_list.size();
  if (per_line) (*vj)["unit"] = "lines needing formatting";
  (*vj)["gone"] = m.gone;
  (*vj)["remaining"] = m.remaining;
  (*vj)["new"] = m.fresh;
  (*vj)["not_cleared"] = not_cleared;
  (*vj)["ok"] = m.fresh.empty() && not_cleared.empty();
  if (!m.fresh.empty() || !not_cleared.empty()) *all_ok = false;
}

// Fixed findings of this tool that are still reported: per (file, rule, line), more findings
// after the fixes than the residual ones left there.
json Session::still_reported(
    const ToolCheck& tc, const json& remaining,
    const std::function<uint32_t(const Finding&, const std::string&)>& mapped) {
  std::map<std::tuple<std::string, std::string, uint32_t>, std::array<size_t, 3>>
      tally;  // fixed, residual, after
  for (const FileResult& r : results_) {
    for (const AppliedFix& fx : r.fixes) {
      for (size_t id : fx.findings) {
        const Finding& f = findings_[id];
        if (verifier_for(f) != tc.tool || tc.tool == "clang-format") continue;
        tally[{r.path, f.code, mapped(f, r.path)}][0]++;
      }
    }
    for (const ResidualItem& it : r.residual) {
      const Finding& f = findings_[it.finding];
      if (verifier_for(f) != tc.tool) continue;
      auto key = std::make_tuple(r.path, f.code, mapped(f, r.path));
      if (tally.count(key)) tally[key][1]++;
    }
  }
  for (const auto& rj : remaining) {
    auto key = std::make_tuple(rj["file"].get<std::string>(), rj["rule"].get<std::string>(),
                               rj["line"].get<uint32_t>());
    auto it = tally.find(key);
    if (it != tally.end()) it->second[2]++;
  }
  json not_cleared = json::array();
  for (const auto& [key, n] : tally) {
    size_t extra = n[2] > n[1] ? std::min(n[0], n[2] - n[1]) : 0;
    for (size_t k = 0; k < extra; ++k) {
      not_cleared.push_back(
          {{"file", std::get<0>(key)}, {"line", std::get<2>(key)}, {"rule", std::get<1>(key)}});
    }
  }
  return not_cleared;
}

}  // namespace skillrt::ci_fix::detail
