// Blank-line fixers (pycodestyle E30x): the blank lines before a line brought to the count the
// rule expects.
#include <cstdlib>
#include <string>

#include "fixer_kit.hpp"

namespace skillrt::ci_fix::detail {

namespace {

int expected_from(const std::string& message) {
  size_t p = message.find("expected ");
  if (p == std::string::npos) return -1;
  return std::atoi(message.c_str() + p + 9);
}

// Whole-line edit deleting lines [a, b] (1-based, inclusive).
Edit delete_lines(const FileContext& ctx, uint32_t a, uint32_t b) {
  return Edit{static_cast<uint32_t>(ctx.lines->start(a)), static_cast<uint32_t>(ctx.lines->end(b)),
              ""};
}
Edit insert_lines_before(const FileContext& ctx, uint32_t line, int count) {
  std::string text;
  for (int k = 0; k < count; ++k) text += ctx.eol;
  auto at = static_cast<uint32_t>(ctx.lines->start(line));
  return Edit{at, at, text};
}

void delete_blank_line(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                       const FixClass& klass, uint32_t L, FixerOutput* out) {
  if (!is_blank(ctx.lines->content(L)) || kind_of(ctx, L) == LineKind::kInToken) {
    out->nothing_to_do = "line " + std::to_string(L) + " is not blank now";
    return;
  }
  Candidate c = make(f, id, rule, klass, L, "delete the redundant blank line");
  c.edits.push_back(delete_lines(ctx, L, L));
  out->candidates.push_back(std::move(c));
}

// E304 and E303: the blank run directly above L is too long.
void trim_blank_run(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                    const FixClass& klass, uint32_t L, FixerOutput* out) {
  // The blank run directly above L.
  uint32_t run_end = L - 1;
  uint32_t run_begin = L;
  while (run_begin > 1 && kind_of(ctx, run_begin - 1) == LineKind::kBlank) --run_begin;
  int direct = static_cast<int>(L - run_begin);
  const std::string& code = f.code;
  if (code == "E304") {
    if (direct == 0) {
      out->nothing_to_do = "no blank line after the decorator now";
      return;
    }
    Candidate c =
        make(f, id, rule, klass, run_begin, "remove the blank line(s) after the decorator");
    c.edits.push_back(delete_lines(ctx, run_begin, run_end));
    out->candidates.push_back(std::move(c));
    return;
  }
  std::string_view content = ctx.lines->content(L);
  bool indented = !content.empty() && is_hspace(content[0]);
  int target = indented ? 1 : 2;
  if (direct <= target) {
    out->nothing_to_do = "no more than " + std::to_string(target) + " blank line(s) above line " +
                         std::to_string(L) + " now";
    return;
  }
  Candidate c =
      make(f, id, rule, klass, run_begin,
           "reduce " + std::to_string(direct) + " blank lines to " + std::to_string(target));
  c.edits.push_back(
      delete_lines(ctx, run_begin, run_begin + static_cast<uint32_t>(direct - target) - 1));
  out->candidates.push_back(std::move(c));
}

// E301, E302, E305, E306: the gap between the previous code line and L (blank and comment lines).
void fill_blank_gap(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                    const FixClass& klass, uint32_t L, FixerOutput* out) {
  int want = expected_from(f.message);
  if (want < 0) {
    out->refusals.push_back(
        {"the message does not say how many blank lines are expected", "Fix by hand."});
    return;
  }
  uint32_t g = L;
  while (g > 1 &&
         (kind_of(ctx, g - 1) == LineKind::kBlank || kind_of(ctx, g - 1) == LineKind::kComment))
    --g;
  // Runs of blank lines inside [g, L-1].
  struct Run {
    uint32_t begin, len;
  };
  std::vector<Run> runs;
  for (uint32_t l = g; l < L; ++l) {
    if (kind_of(ctx, l) != LineKind::kBlank) continue;
    if (!runs.empty() && runs.back().begin + runs.back().len == l) {
      ++runs.back().len;
    } else {
      runs.push_back({l, 1});
    }
  }
  uint32_t most = 0;
  for (const Run& r : runs) most = std::max(most, r.len);
  auto w = static_cast<uint32_t>(want);
  if (most == w) {
    out->nothing_to_do = "the blank lines before line " + std::to_string(L) + " are already right";
    return;
  }
  Candidate c = make(f, id, rule, klass, 0, "");
  if (most < w) {
    // Lengthen the longest run nearest to L, or open one above the comments that lead into L.
    uint32_t at = g;
    for (const Run& r : runs) {
      if (r.len == most) at = r.begin + r.len;
    }
    if (g == 1 && runs.empty()) at = L;
    c.edits.push_back(insert_lines_before(ctx, at, static_cast<int>(w - most)));
    c.line = at;
    c.what = "add " + std::to_string(w - most) + " blank line(s) before line " + std::to_string(L);
  } else {
    for (const Run& r : runs) {
      if (r.len > w) c.edits.push_back(delete_lines(ctx, r.begin, r.begin + (r.len - w) - 1));
    }
    c.line = c.edits.empty() ? L : ctx.lines->line_of(c.edits.front().begin);
    c.what = "reduce the blank lines before line " + std::to_string(L) + " to " + std::to_string(w);
  }
  out->candidates.push_back(std::move(c));
}

}  // namespace

void blank_lines(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                 const FixClass& klass, FixerOutput* out) {
  if (ctx.lang != Language::kPython && rule.fixer == "blank-lines") {
    out->refusals.push_back(
        {"blank-line counts are pycodestyle rules for Python files", "Fix by hand."});
    return;
  }
  uint32_t L = f.line;
  if (L == 0 || L > ctx.lines->count()) {
    out->nothing_to_do = "line " + std::to_string(L) + " is not in the file now";
    return;
  }
  if (rule.fixer == "delete-blank-line") {
    delete_blank_line(ctx, f, id, rule, klass, L, out);
  } else if (f.code == "E304" || f.code == "E303") {
    trim_blank_run(ctx, f, id, rule, klass, L, out);
  } else {
    fill_blank_gap(ctx, f, id, rule, klass, L, out);
  }
}

}  // namespace skillrt::ci_fix::detail
