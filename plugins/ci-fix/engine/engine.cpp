#include "engine.hpp"

#include <algorithm>
#include <chrono>

#include "patch.hpp"

namespace skillrt::ci_fix {

Language language_for(const std::string& rel_path) {
  size_t slash = rel_path.rfind('/');
  std::string name = slash == std::string::npos ? rel_path : rel_path.substr(slash + 1);
  size_t dot = name.rfind('.');
  std::string ext = dot == std::string::npos ? "" : name.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == "py" || ext == "pyi" || ext == "pyw") return Language::kPython;
  static const char* kCpp[] = {"c",   "cc", "cpp", "cxx", "c++", "h",   "hh", "hpp", "hxx",
                               "h++", "cu", "cuh", "inl", "ipp", "tcc", "m",  "mm"};
  for (const char* e : kCpp) {
    if (ext == e) return Language::kCpp;
  }
  if (ext == "md" || ext == "markdown") return Language::kMarkdown;
  if (ext == "rst") return Language::kRst;
  if (ext == "json") return Language::kJson;
  if (ext == "yaml" || ext == "yml") return Language::kYaml;
  return Language::kNone;
}

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Where a candidate edit stands against the edits already accepted.
enum class Against { kFree, kCovered, kConflict };

Against check_edit(const std::vector<Edit>& accepted, const std::vector<size_t>& owner,
                   const Edit& e, size_t* by) {
  // Accepted edits are sorted by begin and do not overlap: only neighbours can interact.
  auto it = std::lower_bound(accepted.begin(), accepted.end(), e.begin,
                             [](const Edit& a, uint32_t b) { return a.end < b; });
  for (; it != accepted.end() && it->begin <= e.end; ++it) {
    const Edit& a = *it;
    size_t idx = static_cast<size_t>(it - accepted.begin());
    if (a == e) {
      *by = owner[idx];
      return Against::kCovered;
    }
    bool e_insert = e.begin == e.end;
    bool a_insert = a.begin == a.end;
    if (!a_insert && a.begin <= e.begin && e.end <= a.end &&
        !(e_insert && (e.begin == a.begin || e.begin == a.end))) {
      *by = owner[idx];
      return Against::kCovered;  // the region was rewritten by an accepted fix
    }
    if (edits_overlap(a, e)) {
      *by = owner[idx];
      return Against::kConflict;
    }
  }
  return Against::kFree;
}

std::vector<Edit> merged(const std::vector<Edit>& a, const std::vector<Edit>& b) {
  std::vector<Edit> out;
  out.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out),
             [](const Edit& x, const Edit& y) {
               return x.begin != y.begin ? x.begin < y.begin : x.end < y.end;
             });
  return out;
}

}  // namespace

FileResult process_file(const FileContext& ctx, const std::vector<Finding>& all,
                        const std::vector<size_t>& ids, const Whitelist& wl,
                        const EngineOptions& opt) {
  FileResult res;
  res.path = ctx.rel_path;
  res.lang = ctx.lang;
  res.original = std::string(ctx.text);
  auto t0 = Clock::now();

  // 1. Judge every finding and collect candidates.
  std::vector<Candidate> cands;
  for (size_t id : ids) {
    const Finding& f = all[id];
    Verdict v = wl.judge(f, ctx.rel_path);
    if (!v.fixable) {
      res.residual.push_back(
          {id, f.line, "not-whitelisted", v.why_not, v.suggestion, std::nullopt, ""});
      continue;
    }
    if (!provable(ctx.lang)) {
      res.residual.push_back({id, f.line, "refused",
                              "no tokenizer or parser for this file type (" + ctx.rel_path +
                                  "), so no fix to it can be proven to preserve behaviour",
                              "Fix by hand; whitespace in shell, CMake, Makefiles, TOML and plain "
                              "text can be data (heredocs, quoted arguments, fixtures).",
                              std::nullopt, ""});
      continue;
    }
    FixerOutput out = run_fixer(ctx, f, id, *v.rule, *v.klass);
    for (Refusal& r : out.refusals) {
      res.residual.push_back(
          {id, r.line ? r.line : f.line, "refused", r.why, r.suggestion, std::nullopt, ""});
    }
    if (!out.nothing_to_do.empty() && out.candidates.empty() && out.refusals.empty()) {
      res.already_clean.emplace_back(id, out.nothing_to_do);
    }
    for (Candidate& c : out.candidates) {
      std::sort(c.edits.begin(), c.edits.end(), [](const Edit& x, const Edit& y) {
        return x.begin != y.begin ? x.begin < y.begin : x.end < y.end;
      });
      if (c.file_level) {
        auto same = std::find_if(cands.begin(), cands.end(), [&](const Candidate& o) {
          return o.file_level && o.fixer == c.fixer && o.edits == c.edits;
        });
        if (same != cands.end()) {
          same->findings.push_back(id);
          continue;
        }
      }
      c.line = c.line ? c.line : f.line;
      cands.push_back(std::move(c));
    }
  }
  std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    int pa = class_priority(a.klass), pb = class_priority(b.klass);
    if (pa != pb) return pa < pb;
    uint32_t ea = a.edits.empty() ? 0 : a.edits.front().begin;
    uint32_t eb = b.edits.empty() ? 0 : b.edits.front().begin;
    return ea < eb;
  });

  // 2. Accept candidates one by one, each proven against the current state.
  std::vector<Edit> accepted;
  std::vector<size_t> owner;  // fix index of each accepted edit
  std::string current(ctx.text);
  TokenStream current_tokens;
  if (ctx.tokens != nullptr) current_tokens = *ctx.tokens;
  bool token_proof = ctx.lang == Language::kPython || ctx.lang == Language::kCpp ||
                     ctx.lang == Language::kMarkdown || ctx.lang == Language::kRst;
  for (Candidate& c : cands) {
    std::vector<Edit> fresh;
    size_t by = 0;
    bool conflict = false;
    std::optional<size_t> covered_by;
    for (const Edit& e : c.edits) {
      switch (check_edit(accepted, owner, e, &by)) {
        case Against::kFree:
          fresh.push_back(e);
          break;
        case Against::kCovered:
          covered_by = by;
          break;
        case Against::kConflict:
          conflict = true;
          break;
      }
      if (conflict) break;
    }
    if (conflict) {
      for (size_t id : c.findings) {
        res.residual.push_back({id, c.line, "conflict",
                                "its fix (" + c.what + ") overlaps fix #" + std::to_string(by + 1) +
                                    " of this file (" + res.fixes[by].what + ") in a different way",
                                "Apply this patch, then run the skill again: the finding will be "
                                "judged against the new text.",
                                std::nullopt, ""});
      }
      continue;
    }
    if (fresh.empty()) {
      for (size_t id : c.findings) {
        if (covered_by) {
          res.covered.emplace_back(id, *covered_by);
          res.fixes[*covered_by].findings.push_back(id);
        }
      }
      continue;
    }
    std::vector<Edit> next = merged(accepted, fresh);
    if (ctx.lang == Language::kPython) {
      // Several fixes on one line may together push it past max-line-length, whatever their
      // class (a longer typo correction too); fixes that shorten lines never trip it.
      std::string side;
      uint32_t last_line = 0;
      for (const Edit& e : fresh) {
        uint32_t l = ctx.lines->line_of(e.begin);
        if (l == last_line || l > ctx.lines->count()) continue;
        last_line = l;
        side = too_long(ctx, l, next);
        if (!side.empty()) break;
      }
      if (!side.empty()) {
        for (size_t id : c.findings) {
          res.residual.push_back({id, c.line, "refused", "with the fixes already made, " + side,
                                  "Fix this line by hand, rewrapping it.", std::nullopt, ""});
        }
        continue;
      }
    }
    std::string after = apply_edits(ctx.text, next);
    ProofResult proof;
    TokenStream after_tokens;
    if (opt.prove) {
      auto tp = Clock::now();
      if (token_proof) {
        after_tokens = tokenize(after, ctx.lang);
        proof = compare_streams(current, current_tokens, after, after_tokens, c.level);
      } else {
        proof = prove_values(ctx.lang, current, after);
      }
      ++res.proofs_run;
      res.proof_seconds += since(tp);
    } else {
      proof.passed = true;
      proof.method = "skipped";
    }
    if (!proof.passed) {
      std::string attempted =
          opt.hunks ? diff_hunks(ctx.text, *ctx.lines, fresh, opt.hunk_context) : "";
      for (size_t id : c.findings) {
        res.residual.push_back({id, c.line, "proof-failed",
                                "the fix (" + c.what + ") failed its " + proof_level_name(c.level) +
                                    " proof and was reverted: " + proof.detail,
                                "The change would alter a token, a literal or a directive; fix by "
                                "hand if the difference is intended.",
                                proof, attempted});
      }
      continue;
    }
    AppliedFix fix;
    fix.path = ctx.rel_path;
    fix.line = c.line;
    fix.klass = c.klass;
    fix.fixer = c.fixer;
    fix.what = c.what;
    fix.level = c.level;
    fix.findings = c.findings;
    fix.edits = fresh;
    fix.proof = proof;
    size_t index = res.fixes.size();
    res.fixes.push_back(std::move(fix));
    // Rebuild the owner table in the merged order.
    std::vector<size_t> next_owner;
    next_owner.reserve(next.size());
    {
      size_t ai = 0, fi = 0;
      for (const Edit& e : next) {
        if (fi < fresh.size() && e == fresh[fi] &&
            (ai >= accepted.size() || !(accepted[ai] == e))) {
          next_owner.push_back(index);
          ++fi;
        } else {
          next_owner.push_back(owner[ai]);
          ++ai;
        }
      }
    }
    accepted = std::move(next);
    owner = std::move(next_owner);
    current = std::move(after);
    if (opt.prove && token_proof) current_tokens = std::move(after_tokens);
  }
  res.edits = accepted;
  res.fixed = current;
  if (opt.hunks) {
    for (AppliedFix& f : res.fixes)
      f.hunk = diff_hunks(ctx.text, *ctx.lines, f.edits, opt.hunk_context);
  }
  res.fix_seconds = since(t0) - res.proof_seconds;
  return res;
}

}  // namespace skillrt::ci_fix
