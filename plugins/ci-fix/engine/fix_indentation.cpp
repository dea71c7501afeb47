// Indentation fixers: a Python file re-indented to 4 spaces per level, and comments indented like
// the code they belong to.

#include <algorithm>

#include "fixer_kit.hpp"

namespace skillrt::ci_fix::detail {

namespace {

// The INDENT depth at which each logical line starts (by line number; -1 for other lines).
std::vector<int> logical_depths(const FileContext& ctx) {
  size_t nlines = ctx.lines->count();
  std::vector<int> depth_at(nlines + 2, -1);  // logical-line starts: indentation depth
  int depth = 0;
  bool at_logical_start = true;
  for (const Token& t : ctx.tokens->tokens) {
    if (t.kind == TokKind::kIndent) {
      ++depth;
      continue;
    }
    if (t.kind == TokKind::kDedent) {
      --depth;
      continue;
    }
    if (t.kind == TokKind::kNewline) {
      at_logical_start = true;
      continue;
    }
    if (!is_significant(t.kind) || t.kind == TokKind::kEnd || t.kind == TokKind::kBom) continue;
    if (at_logical_start) {
      depth_at[t.line] = depth;
      at_logical_start = false;
    }
  }
  return depth_at;
}

}  // namespace

// Re-indents a Python file to 4 spaces per level, keeping the INDENT/DEDENT structure.
void reindent(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
              const FixClass& klass, FixerOutput* out) {
  if (ctx.lang != Language::kPython) {
    out->refusals.push_back(
        {"re-indentation is implemented for Python only", "Fix by hand or with the formatter."});
    return;
  }
  size_t nlines = ctx.lines->count();
  const std::vector<int> depth_at = logical_depths(ctx);
  // Delta (new width - old width) per line, for logical starts first.
  std::vector<int> delta(nlines + 2, 0);
  std::vector<bool> is_start(nlines + 2, false);
  for (uint32_t l = 1; l <= nlines; ++l) {
    if (depth_at[l] < 0) continue;
    is_start[l] = true;
    delta[l] = depth_at[l] * 4 - width_of(leading_ws(ctx.lines->content(l)));
  }
  Candidate c = make(f, id, rule, klass, 0, "");
  c.file_level = true;
  int last_delta = 0;
  int last_old = 0, last_new = 0;
  size_t changed = 0;
  for (uint32_t l = 1; l <= nlines; ++l) {
    std::string_view content = ctx.lines->content(l);
    std::string_view ws = leading_ws(content);
    LineKind kind = kind_of(ctx, l);
    if (kind == LineKind::kInToken || kind == LineKind::kBlank || ws.size() == content.size()) {
      continue;
    }
    int old_w = width_of(ws);
    int new_w;
    if (is_start[l]) {
      new_w = old_w + delta[l];
      last_delta = delta[l];
      last_old = old_w;
      last_new = new_w;
    } else if (kind == LineKind::kComment) {
      // A comment line follows the next code line's indentation if it had it, else the last one's.
      uint32_t nx = l + 1;
      while (nx <= nlines && !is_start[nx]) ++nx;
      int next_old = nx <= nlines ? width_of(leading_ws(ctx.lines->content(nx))) : -1;
      if (nx <= nlines && old_w == next_old) {
        new_w = next_old + delta[nx];
      } else if (old_w == last_old) {
        new_w = last_new;
      } else {
        new_w = std::max(0, old_w + (nx <= nlines ? delta[nx] : last_delta));
      }
    } else {
      new_w = std::max(0, old_w + last_delta);  // continuation line: shift with its statement
    }
    std::string want(static_cast<size_t>(new_w), ' ');
    if (want == ws) continue;
    size_t b = ctx.lines->start(l);
    c.edits.push_back(Edit{static_cast<uint32_t>(b), static_cast<uint32_t>(b + ws.size()), want});
    if (c.line == 0) c.line = l;
    ++changed;
  }
  if (changed == 0) {
    out->nothing_to_do = "the indentation already uses 4 spaces per level";
    return;
  }
  c.what = "re-indent " + std::to_string(changed) + " line(s) to 4 spaces per level";
  for (const Edit& e : c.edits) {
    std::string side = too_long_impl(ctx, ctx.lines->line_of(e.begin), {e});
    if (!side.empty()) {
      out->refusals.push_back(
          {"re-indenting the file: " + side, "Re-indent by hand, rewrapping that line."});
      return;
    }
  }
  out->candidates.push_back(std::move(c));
}

void comment_indent(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                    const FixClass& klass, FixerOutput* out) {
  uint32_t L = f.line;
  if (L == 0 || L > ctx.lines->count() || kind_of(ctx, L) != LineKind::kComment) {
    out->nothing_to_do = "line " + std::to_string(L) + " is not a comment line now";
    return;
  }
  auto code_line = [&](uint32_t from, int step) -> uint32_t {
    for (int64_t l = from; l >= 1 && l <= static_cast<int64_t>(ctx.lines->count()); l += step) {
      if (kind_of(ctx, static_cast<uint32_t>(l)) == LineKind::kCode)
        return static_cast<uint32_t>(l);
    }
    return 0;
  };
  uint32_t prev = code_line(L - 1, -1);
  uint32_t next = code_line(L + 1, +1);
  std::string want;
  if (f.code == "E116") {
    if (prev == 0) {
      want = "";
    } else {
      want = std::string(leading_ws(ctx.lines->content(prev)));
    }
  } else {  // E115: expected an indented block
    int prev_w = prev ? width_of(leading_ws(ctx.lines->content(prev))) : 0;
    int next_w = next ? width_of(leading_ws(ctx.lines->content(next))) : 0;
    want = std::string(static_cast<size_t>(next_w > prev_w ? next_w : prev_w + 4), ' ');
  }
  std::string_view ws = leading_ws(ctx.lines->content(L));
  if (ws == want) {
    out->nothing_to_do = "the comment is already indented like its neighbours";
    return;
  }
  Candidate c = make(f, id, rule, klass, L, "indent the comment like the code around it");
  size_t b = ctx.lines->start(L);
  c.edits.push_back(Edit{static_cast<uint32_t>(b), static_cast<uint32_t>(b + ws.size()), want});
  out->candidates.push_back(std::move(c));
}

}  // namespace skillrt::ci_fix::detail
