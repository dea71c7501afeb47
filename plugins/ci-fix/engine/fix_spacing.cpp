// Token spacing fixers (pycodestyle E2xx): the blanks between two tokens, refused where the change
// would break a visual indent below or push the line past max-line-length.
#include <algorithm>

#include "fixer_kit.hpp"

namespace skillrt::ci_fix::detail {

namespace {

// Python: do the edits move a bracket (or the first token after it) to which the continuation
// lines below are visually aligned? pycodestyle would then report E127/E128 on those lines.
std::string breaks_visual_indent(const FileContext& ctx, uint32_t line,
                                 const std::vector<Edit>& edits) {
  if (ctx.lang != Language::kPython) return "";
  size_t lb = ctx.lines->start(line), le = ctx.lines->end(line);
  const auto& toks = ctx.tokens->tokens;
  auto it = std::lower_bound(toks.begin(), toks.end(), lb,
                             [](const Token& t, size_t off) { return t.begin < off; });
  auto shift_at = [&](size_t off) {
    long d = 0;
    for (const Edit& e : edits) {
      if (e.begin <= off && e.begin >= lb && e.end <= le) {
        d += static_cast<long>(e.text.size()) - static_cast<long>(e.end - e.begin);
      }
    }
    return d;
  };
  for (auto b = it; b != toks.end() && b->begin < le; ++b) {
    if (b->kind != TokKind::kOp || b->end != b->begin + 1) continue;
    char c = ctx.text[b->begin];
    if (c != '(' && c != '[' && c != '{') continue;
    // The first significant token after the bracket, and whether the bracket closes on this line.
    const Token* first = nullptr;
    int depth = 0;
    bool closes_here = false;
    for (auto k = b; k != toks.end(); ++k) {
      if (!is_significant(k->kind) || k->end == k->begin) continue;
      if (k != b && first == nullptr) first = &*k;
      if (k->kind == TokKind::kOp && k->end == k->begin + 1) {
        char d = ctx.text[k->begin];
        if (d == '(' || d == '[' || d == '{') ++depth;
        if (d == ')' || d == ']' || d == '}') --depth;
      }
      if (depth == 0) {
        closes_here = k->begin < le;
        break;
      }
      if (k->begin >= le && first != nullptr) break;
    }
    if (closes_here || first == nullptr || first->begin >= le) continue;  // no visual indent
    if (shift_at(first->begin) != 0) {
      return "the fix moves `" +
             std::string(ctx.text.substr(first->begin, first->end - first->begin)) +
             "` after the bracket on line " + std::to_string(line) +
             ", to which the continuation lines below are aligned: they would become E127/E128";
    }
  }
  return "";
}

void refuse(FixerOutput* out, const std::string& why) {
  out->refusals.push_back({why, "Fix the spacing by hand."});
}

// Each spacing fixer below puts its edit into `c` and returns true, or says in `out` why there is
// nothing to do (or why it will not) and returns false.

// remove-space, single-space: the run of blanks at the finding.
bool blank_spacing(const FileContext& ctx, const Finding& f, const std::string& fx, size_t off,
                   size_t lb, size_t le, Candidate& c, FixerOutput* out) {
  std::string_view t = ctx.text;
  if (off >= le || !is_hspace(t[off])) {
    // pycodestyle points at the blank, or just after the bracket for E201.
    if (off < le && off + 1 < le && is_hspace(t[off + 1])) {
      ++off;
    } else if (off > lb && is_hspace(t[off - 1])) {
      --off;
    } else {
      out->nothing_to_do = "no blank at column " + std::to_string(f.col) + " now";
      return false;
    }
  }
  auto [b, e] = blank_run(t, off, lb, le);
  if (b == lb) {
    refuse(out, "the blanks start the line: they are indentation, not spacing");
    return false;
  }
  if (e == le) {
    refuse(out, "the blanks end the line: that is trailing whitespace, fixed as such");
    return false;
  }
  std::string want = fx == "single-space" ? " " : "";
  c.edits.push_back(Edit{static_cast<uint32_t>(b), static_cast<uint32_t>(e), want});
  c.what = (want.empty() ? "remove `" : "replace `") + shown(t.substr(b, e - b)) + "`" +
           (want.empty() ? "" : " with one space");
  return true;
}

// operator-space: one space on each side of the operator at (or just before) the finding.
bool operator_spacing(const FileContext& ctx, const Finding& f, size_t off, size_t lb, size_t le,
                      Candidate& c, FixerOutput* out) {
  std::string_view t = ctx.text;
  static const std::set<std::string> kWordOps = {"in", "is", "and", "or", "not"};
  auto is_op = [&](const Token* tk) {
    if (tk == nullptr) return false;
    if (tk->kind == TokKind::kOp) return true;
    return tk->kind == TokKind::kName &&
           kWordOps.count(std::string(t.substr(tk->begin, tk->end - tk->begin))) > 0;
  };
  const Token* op = token_at(ctx, off, false);
  if (!is_op(op) || f.code == "E225") {
    const Token* before = token_ending_at(ctx, off);
    if (f.code == "E225" && is_op(op)) {
      // The operator starts here: the space before it is missing.
    } else if (is_op(before)) {
      op = before;
    }
  }
  if (!is_op(op)) {
    out->nothing_to_do = "no operator at column " + std::to_string(f.col) + " now";
    return false;
  }
  if (op->begin > lb && !is_hspace(t[op->begin - 1])) {
    c.edits.push_back(Edit{op->begin, op->begin, " "});
  }
  if (op->end < le && !is_hspace(t[op->end])) c.edits.push_back(Edit{op->end, op->end, " "});
  if (c.edits.empty()) {
    out->nothing_to_do = "the operator already has spaces around it";
    return false;
  }
  c.what = "put one space around `" + std::string(t.substr(op->begin, op->end - op->begin)) + "`";
  return true;
}

// space-after: a space after `,` `;` or `:`.
bool space_after(const FileContext& ctx, const Finding& f, size_t off, size_t le, Candidate& c,
                 FixerOutput* out) {
  std::string_view t = ctx.text;
  if (off >= le || (t[off] != ',' && t[off] != ';' && t[off] != ':')) {
    out->nothing_to_do = "no `,` `;` or `:` at column " + std::to_string(f.col) + " now";
    return false;
  }
  if (off + 1 < le && is_hspace(t[off + 1])) {
    out->nothing_to_do = "there is already a space after it";
    return false;
  }
  c.edits.push_back(Edit{static_cast<uint32_t>(off + 1), static_cast<uint32_t>(off + 1), " "});
  c.what = std::string("add a space after `") + t[off] + "`";
  return true;
}

// insert-space: a space at the finding's column.
bool insert_space(const FileContext& ctx, const Finding& f, size_t off, size_t lb, size_t le,
                  Candidate& c, FixerOutput* out) {
  std::string_view t = ctx.text;
  if (off > lb && off < le && !is_hspace(t[off - 1]) && !is_hspace(t[off])) {
    c.edits.push_back(Edit{static_cast<uint32_t>(off), static_cast<uint32_t>(off), " "});
    c.what = "add a space at column " + std::to_string(f.col);
  } else {
    out->nothing_to_do = "there is already a space at column " + std::to_string(f.col);
    return false;
  }
  return true;
}

// inline-comment-gap: two spaces between code and the comment after it.
bool inline_comment_gap(const FileContext& ctx, const Finding& f, size_t lb, Candidate& c,
                        FixerOutput* out) {
  std::string_view t = ctx.text;
  auto cs = comments_on(ctx, f.line);
  const Token* cm = nullptr;
  for (const Token* x : cs) {
    if (x->begin > lb && !is_blank(t.substr(lb, x->begin - lb))) {
      cm = x;
      break;
    }
  }
  if (cm == nullptr) {
    out->nothing_to_do = "no comment after code on line " + std::to_string(f.line);
    return false;
  }
  size_t b = cm->begin;
  while (b > lb && is_hspace(t[b - 1])) --b;
  if (t.substr(b, cm->begin - b) == "  ") {
    out->nothing_to_do = "the comment already has two spaces before it";
    return false;
  }
  c.edits.push_back(Edit{static_cast<uint32_t>(b), cm->begin, "  "});
  c.what = "put two spaces before the inline comment";
  return true;
}

}  // namespace

void token_spacing(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                   const FixClass& klass, FixerOutput* out) {
  size_t off = 0;
  if (!offset_of(ctx, f, &off)) {
    out->nothing_to_do = "line " + std::to_string(f.line) + " is not in the file now";
    return;
  }
  size_t lb = ctx.lines->start(f.line);
  size_t le = ctx.lines->content_end(f.line);
  const std::string& fx = rule.fixer;
  Candidate c = make(f, id, rule, klass, f.line, "");
  bool made = true;
  if (fx == "remove-space" || fx == "single-space") {
    made = blank_spacing(ctx, f, fx, off, lb, le, c, out);
  } else if (fx == "operator-space") {
    made = operator_spacing(ctx, f, off, lb, le, c, out);
  } else if (fx == "space-after") {
    made = space_after(ctx, f, off, le, c, out);
  } else if (fx == "insert-space") {
    made = insert_space(ctx, f, off, lb, le, c, out);
  } else if (fx == "inline-comment-gap") {
    made = inline_comment_gap(ctx, f, lb, c, out);
  }
  if (!made) return;
  std::string side = too_long_impl(ctx, f.line, c.edits);
  if (side.empty()) side = breaks_visual_indent(ctx, f.line, c.edits);
  if (!side.empty()) {
    out->refusals.push_back({side,
                             "Fix this line together with its neighbours by hand (or with the "
                             "project's formatter)."});
    return;
  }
  out->candidates.push_back(std::move(c));
}

}  // namespace skillrt::ci_fix::detail
