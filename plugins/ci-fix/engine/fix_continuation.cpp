// Continuation-line fixers (pycodestyle E12x, E131, W605, W503/W504, E502): rows inside brackets
// re-indented together, redundant backslashes, invalid escapes and operators moved across a break.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "fixer_kit.hpp"

namespace skillrt::ci_fix::detail {

namespace {

// Where each flagged continuation row should start, computed the way pycodestyle measures it:
// inside a bracket with a token after it on the opening row, rows align with that token (visual
// indent); inside a bracket that ends its row, rows hang 4 columns past the opening row's indent
// (8 past the statement when a row would sit at the indent of the block the statement opens,
// E125/E129, which pycodestyle accepts for any row), or at the hang an
// earlier row of the same bracket set; a closing bracket goes back to the opening row's indent
// (E123) or, for E124, to the visual indent. Rows that hang from a moved row move with it, so
// the layout below a moved bracket stays as it was. Only leading blanks of rows inside brackets
// change, which changes no token.
struct ContinuationPlan {
  std::map<uint32_t, int> delta;            // row -> columns to add (rows that change)
  std::map<uint32_t, std::string> refused;  // flagged row -> why it is left alone
};

bool is_open_bracket(std::string_view t) { return t == "(" || t == "[" || t == "{"; }
bool is_close_bracket(std::string_view t) { return t == ")" || t == "]" || t == "}"; }

using Flagged = std::map<uint32_t, std::string>;

struct Open {
  uint32_t row;
  int visual = -1;    // new column of the first token after the bracket on its row, or -1
  int hang = -1;      // hang (new columns past the opening row's indent) the bracket's rows use
  int old_hang = -1;  // old column of the bracket's first hanging row: rows aligned with it
  int new_hang = -1;  // follow it to its new column
};

// One logical line while its rows are planned.
struct LogicalLine {
  std::vector<size_t> toks;       // its tokens (indexes into the stream) without INDENT/DEDENT/NL
  int indent_level = 0;           // old column of its first token
  bool opens_block = false;       // it ends with ':'
  std::map<uint32_t, int> delta;  // rows of this logical line
  std::map<uint32_t, int> row_indent;  // old column of each row's first token
  std::vector<Open> stack;
  Open backslash{0};
  std::string problem;  // set when this logical line cannot be changed safely
};

int col_of(const FileContext& ctx, const Token& t) {
  return static_cast<int>(
      char_count(ctx.text.substr(ctx.lines->start(t.line), t.begin - ctx.lines->start(t.line))));
}

// The tokens of the logical line that starts at *k (up to NEWLINE), leaving *k after it.
std::vector<size_t> next_logical_line(const FileContext& ctx, size_t* k) {
  const auto& toks = ctx.tokens->tokens;
  size_t begin = *k;
  while (*k < toks.size() && toks[*k].kind != TokKind::kNewline && toks[*k].kind != TokKind::kEnd) {
    ++*k;
  }
  size_t end = *k;
  ++*k;
  std::vector<size_t> line_toks;
  for (size_t i = begin; i < end; ++i) {
    TokKind kd = toks[i].kind;
    if (kd == TokKind::kIndent || kd == TokKind::kDedent || kd == TokKind::kNl ||
        kd == TokKind::kBom || toks[i].end == toks[i].begin) {
      continue;
    }
    line_toks.push_back(i);
  }
  return line_toks;
}

bool opens_block(const FileContext& ctx, const std::vector<size_t>& line_toks) {
  const auto& toks = ctx.tokens->tokens;
  for (size_t j = line_toks.size(); j-- > 0;) {
    const Token& t = toks[line_toks[j]];
    if (t.kind == TokKind::kComment || t.kind == TokKind::kDirectiveComment) continue;
    return t.kind == TokKind::kOp && ctx.text.substr(t.begin, t.end - t.begin) == ":";
  }
  return false;
}

// Where a flagged row goes. Returns false, with the refusal in `plan`, for a closing bracket
// whose place is the block's indent.
bool place_flagged_row(LogicalLine& ll, const Open& top, uint32_t row, int old_col, bool closing,
                       ContinuationPlan* plan) {
  const int open_indent = ll.row_indent[top.row] + ll.delta[top.row];
  int target;
  if (closing) {
    target = top.visual >= 0 ? top.visual : open_indent;
  } else if (top.visual >= 0) {
    target = top.visual;
  } else if (top.hang > 0) {
    target = open_indent + top.hang;
  } else {
    target = open_indent + 4;
  }
  // A row at the indent of the block the statement opens reads as the block (E125, E129);
  // pycodestyle accepts 8 columns past the statement there instead, but not for a closing
  // bracket, which must match its opening row or the visual indent.
  if (ll.opens_block && target == ll.indent_level + 4) {
    if (closing) {
      plan->refused[row] =
          "the closing bracket's place (its opening row's indent or the visual indent) "
          "equals the indent of the block the statement opens (E125); move the bracket to "
          "the end of the previous row by hand";
      ll.delta[row] = ll.delta[top.row];
      return false;
    }
    target = ll.indent_level + 8;
  }
  if (target < 0) target = 0;
  ll.delta[row] = target - old_col;
  return true;
}

// The first token of a new row: its delta. Returns false when the token needs no further look
// (a row inside a multi-line string, a refused closing bracket).
bool place_row(const FileContext& ctx, const Flagged& flagged, const Token& t,
               std::string_view text, LogicalLine& ll, ContinuationPlan* plan) {
  const uint32_t row = t.line;
  const int old_col = col_of(ctx, t);
  ll.row_indent[row] = old_col;
  const bool in_string = ctx.line_kinds[row - 1] == LineKind::kInToken;
  auto fl = flagged.find(row);
  if (in_string) {
    ll.delta[row] = 0;
    if (fl != flagged.end()) plan->refused[row] = "the row starts inside a multi-line string";
    return false;
  }
  // Rows joined by backslashes hang from the statement's first row like a bracket's.
  Open& top = ll.stack.empty() ? ll.backslash : ll.stack.back();
  const int open_indent = ll.row_indent[top.row] + ll.delta[top.row];
  const bool closing = !ll.stack.empty() && t.kind == TokKind::kOp && is_close_bracket(text);
  if (fl == flagged.end()) {
    ll.delta[row] = top.visual < 0 && old_col == top.old_hang && top.new_hang >= 0
                        ? top.new_hang - old_col
                        : ll.delta[top.row];
    // A closing bracket must sit at its bracket's visual indent while that indent holds (E124);
    // rows moved above can make it hold where it did not.
    if (closing && top.visual >= 0 && old_col + ll.delta[row] != top.visual) {
      ll.delta[row] = top.visual - old_col;
    }
  } else if (!place_flagged_row(ll, top, row, old_col, closing, plan)) {
    return false;
  }
  if (!closing && top.visual < 0 && top.hang < 0) {
    top.hang = old_col + ll.delta[row] - open_indent;
    top.old_hang = old_col;
    top.new_hang = old_col + ll.delta[row];
  }
  std::string_view ws = leading_ws(ctx.lines->content(row));
  if (ll.delta[row] != 0 && ws.find_first_not_of(' ') != std::string_view::npos) {
    ll.problem = "line " + std::to_string(row) + " is indented with tabs or form feeds";
  }
  return true;
}

// Brackets open and close the indents the rows below follow.
void track_bracket(const FileContext& ctx, size_t j, const Token& t, std::string_view text,
                   LogicalLine& ll) {
  const auto& toks = ctx.tokens->tokens;
  if (is_open_bracket(text)) {
    Open o{t.line};
    if (j + 1 < ll.toks.size()) {
      const Token& nx = toks[ll.toks[j + 1]];
      if (nx.line == t.line && nx.kind != TokKind::kComment &&
          nx.kind != TokKind::kDirectiveComment) {
        o.visual = col_of(ctx, nx) + ll.delta[t.line];
      }
    }
    ll.stack.push_back(o);
  } else if (is_close_bracket(text) && !ll.stack.empty()) {
    // As pycodestyle does: a closed bracket's indent (or its row's) drops any enclosing visual
    // indent to its right, which then no longer binds the rows below.
    const Open closed = ll.stack.back();
    ll.stack.pop_back();
    const int prev = closed.visual >= 0 ? closed.visual : ll.row_indent[t.line] + ll.delta[t.line];
    for (Open& o : ll.stack) {
      if (o.visual > prev) o.visual = -1;
    }
  }
}

// Whole logical line or nothing: a row pushed past max-line-length stops it.
void check_line_length(const FileContext& ctx, LogicalLine& ll) {
  if (!ll.problem.empty()) return;
  for (const auto& [r, d] : ll.delta) {
    if (d == 0) continue;
    const size_t before = char_count(ctx.lines->content(r));
    const long after = static_cast<long>(before) + d;
    if (ctx.max_line_length > 0 && before <= static_cast<size_t>(ctx.max_line_length) &&
        after > ctx.max_line_length) {
      ll.problem = "re-indenting would make line " + std::to_string(r) + " " +
                   std::to_string(after) + " characters long, past max-line-length " +
                   std::to_string(ctx.max_line_length) + " (E501/B950)";
      return;
    }
  }
}

void plan_logical_line(const FileContext& ctx, const Flagged& flagged, LogicalLine& ll,
                       ContinuationPlan* plan) {
  const auto& toks = ctx.tokens->tokens;
  const uint32_t first_row = toks[ll.toks.front()].line;
  ll.indent_level = col_of(ctx, toks[ll.toks.front()]);
  ll.opens_block = opens_block(ctx, ll.toks);
  ll.backslash = Open{first_row};
  uint32_t row = first_row;
  ll.row_indent[first_row] = ll.indent_level;
  ll.delta[first_row] = 0;
  for (size_t j = 0; j < ll.toks.size(); ++j) {
    const Token& t = toks[ll.toks[j]];
    const std::string_view text = ctx.text.substr(t.begin, t.end - t.begin);
    if (t.line != row) {
      row = t.line;
      if (!place_row(ctx, flagged, t, text, ll, plan)) continue;
    }
    if (t.kind == TokKind::kOp) track_bracket(ctx, j, t, text, ll);
  }
  check_line_length(ctx, ll);
  for (const auto& [r, d] : ll.delta) {
    if (!ll.problem.empty()) {
      if (flagged.count(r) != 0 && plan->refused.count(r) == 0) plan->refused[r] = ll.problem;
      continue;
    }
    if (d != 0) plan->delta[r] = d;
  }
}

ContinuationPlan plan_continuation(const FileContext& ctx) {
  ContinuationPlan plan;
  const Flagged flagged(ctx.continuation.begin(), ctx.continuation.end());
  const auto& toks = ctx.tokens->tokens;
  size_t k = 0;
  while (k < toks.size()) {
    LogicalLine ll;
    ll.toks = next_logical_line(ctx, &k);
    if (ll.toks.empty()) continue;
    if (toks[ll.toks.front()].line == toks[ll.toks.back()].line) continue;
    plan_logical_line(ctx, flagged, ll, &plan);
  }
  return plan;
}

// Linters count a finding's column in characters (1-based); the byte offset it names.
size_t offset_of_column(const FileContext& ctx, uint32_t line, uint32_t col) {
  std::string_view content = ctx.lines->content(line);
  size_t off = 0;
  for (uint32_t chars = 1; off < content.size() && chars < col; ++chars) {
    ++off;
    while (off < content.size() && (static_cast<unsigned char>(content[off]) & 0xC0) == 0x80) ++off;
  }
  return ctx.lines->start(line) + off;
}

}  // namespace

void continuation_indent(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                         const FixClass& klass, FixerOutput* out) {
  if (ctx.lang != Language::kPython || ctx.tokens == nullptr) {
    out->refusals.push_back({"continuation-line layout is fixed for Python only", "Fix by hand."});
    return;
  }
  const ContinuationPlan plan = plan_continuation(ctx);
  if (auto r = plan.refused.find(f.line); r != plan.refused.end()) {
    out->refusals.push_back({r->second, "Re-indent this continuation line by hand."});
    return;
  }
  if (plan.delta.count(f.line) == 0) {
    out->nothing_to_do = "line " + std::to_string(f.line) + " already starts where it should";
    return;
  }
  Candidate c = make(f, id, rule, klass, 0, "");
  c.file_level = true;
  for (const auto& [r, d] : plan.delta) {
    const size_t b = ctx.lines->start(r);
    const std::string_view ws = leading_ws(ctx.lines->content(r));
    const int width = static_cast<int>(ws.size()) + d;
    c.edits.push_back(Edit{static_cast<uint32_t>(b), static_cast<uint32_t>(b + ws.size()),
                           std::string(static_cast<size_t>(std::max(width, 0)), ' ')});
    if (c.line == 0) c.line = r;
  }
  c.what = "re-indent " + std::to_string(plan.delta.size()) +
           " continuation line(s) to pycodestyle's visual or hanging indent";
  out->candidates.push_back(std::move(c));
}

// E502: a backslash at the end of a line inside brackets joins nothing the brackets do not join
// already. It goes, with the blanks before it.
void redundant_backslash(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                         const FixClass& klass, FixerOutput* out) {
  if (ctx.lang != Language::kPython || f.line == 0 || f.line > ctx.lines->count()) {
    out->refusals.push_back({"E502 is fixed in Python files only", "Fix by hand."});
    return;
  }
  std::string_view content = ctx.lines->content(f.line);
  if (content.empty() || content.back() != '\\' ||
      ctx.line_kinds[f.line - 1] == LineKind::kInToken) {
    out->nothing_to_do = "line " + std::to_string(f.line) + " does not end with a backslash";
    return;
  }
  size_t e = content.size() - 1;
  size_t b = e;
  while (b > 0 && (content[b - 1] == ' ' || content[b - 1] == '\t')) --b;
  const size_t base = ctx.lines->start(f.line);
  Candidate c = make(f, id, rule, klass, f.line,
                     "remove the redundant backslash at the end of line " + std::to_string(f.line));
  c.edits.push_back(Edit{static_cast<uint32_t>(base + b), static_cast<uint32_t>(base + e + 1), ""});
  out->candidates.push_back(std::move(c));
}

// W605: "\d" in a non-raw literal is an invalid escape that Python keeps as backslash + d; "\\d"
// spells the same value without the warning. The string-value proof checks exactly that.
void escape_backslash(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                      const FixClass& klass, FixerOutput* out) {
  if (ctx.lang != Language::kPython || f.line == 0 || f.line > ctx.lines->count() || f.col == 0) {
    out->refusals.push_back({"W605 is fixed in Python files with a column only", "Fix by hand."});
    return;
  }
  const size_t at = offset_of_column(ctx, f.line, f.col);
  if (at >= ctx.text.size() || ctx.text[at] != '\\') {
    out->refusals.push_back({"no backslash at line " + std::to_string(f.line) + " column " +
                                 std::to_string(f.col) + " (the report does not match the file)",
                             "Run the linter again and fix by hand."});
    return;
  }
  // Doubling the backslash lengthens the line: the engine refuses it past max-line-length.
  const Edit edit{static_cast<uint32_t>(at), static_cast<uint32_t>(at), "\\"};
  Candidate c = make(f, id, rule, klass, f.line,
                     "escape the backslash of an invalid escape sequence on line " +
                         std::to_string(f.line) + " (same string value)");
  c.edits.push_back(edit);
  out->candidates.push_back(std::move(c));
}

// W503/W504: the binary operator moves to the other side of the line break. Inside brackets the
// break is a non-logical newline, so the significant tokens keep their order; only blanks and the
// break move.
namespace {

bool is_operator(const FileContext& ctx, const Token& t) {
  if (t.kind == TokKind::kOp) return true;
  const std::string_view w = ctx.text.substr(t.begin, t.end - t.begin);
  return t.kind == TokKind::kName &&
         (w == "and" || w == "or" || w == "in" || w == "is" || w == "not");
}

// The token next to `it` across the break (after it when `forward`), with only a non-logical
// newline between (no comment); nullptr when there is none.
const Token* neighbour_across_break(const std::vector<Token>& toks,
                                    std::vector<Token>::const_iterator it, bool forward) {
  bool crossed = false;
  for (auto k = it;;) {
    if (forward) {
      if (++k == toks.end()) return nullptr;
    } else {
      if (k == toks.begin()) return nullptr;
      --k;
    }
    if (k->kind == TokKind::kNl) {
      crossed = true;
      continue;
    }
    if (!is_significant(k->kind)) return nullptr;  // a comment on the way
    return crossed ? &*k : nullptr;
  }
}

}  // namespace

void move_operator(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                   const FixClass& klass, FixerOutput* out) {
  const bool after_break = f.code == "W503";  // the operator starts its row; it goes up
  if (ctx.lang != Language::kPython || f.line == 0 || f.line > ctx.lines->count() || f.col == 0) {
    out->refusals.push_back(
        {"W503/W504 are fixed in Python files with a column only", "Move the operator by hand."});
    return;
  }
  if (after_break ? ctx.w504_enabled : ctx.w503_enabled) {
    out->refusals.push_back(
        {std::string("the repository's flake8 config reports ") + (after_break ? "W504" : "W503") +
             " too: moving the operator would trade one finding for the other",
         "Pick one of W503/W504 in the config (PEP 8 now prefers breaks before operators)."});
    return;
  }
  const size_t at = offset_of_column(ctx, f.line, f.col);
  const auto& toks = ctx.tokens->tokens;
  auto it = std::lower_bound(toks.begin(), toks.end(), at,
                             [](const Token& t, size_t o) { return t.begin < o; });
  if (it == toks.end() || it->begin != at || !is_operator(ctx, *it)) {
    out->refusals.push_back({"no operator at line " + std::to_string(f.line) + " column " +
                                 std::to_string(f.col) + " (the report does not match the file)",
                             "Run the linter again and move the operator by hand."});
    return;
  }
  const Token& op = *it;
  const std::string op_text(ctx.text.substr(op.begin, op.end - op.begin));
  const Token* other = neighbour_across_break(toks, it, !after_break);
  const Token* same = nullptr;  // the operand on the operator's own row
  if (after_break) {
    auto k = it + 1;
    if (k != toks.end() && k->line == op.line && is_significant(k->kind)) same = &*k;
  }
  if (other == nullptr || (after_break && same == nullptr)) {
    out->refusals.push_back(
        {"the break next to the operator is not a plain newline inside brackets (a comment, a "
         "backslash or the end of the statement is in the way)",
         "Move the operator by hand."});
    return;
  }
  Candidate c = make(f, id, rule, klass, f.line, "");
  if (after_break) {
    // "a\n    + b" -> "a +\n    b"
    c.edits.push_back(Edit{other->end, other->end, " " + op_text});
    c.edits.push_back(Edit{op.begin, same->begin, ""});
    c.what = "move `" + op_text + "` from the start of line " + std::to_string(f.line) +
             " to the end of line " + std::to_string(other->line);
  } else {
    // "a +\n    b" -> "a\n    + b"
    size_t b = op.begin;
    while (b > 0 && (ctx.text[b - 1] == ' ' || ctx.text[b - 1] == '\t')) --b;
    c.edits.push_back(Edit{static_cast<uint32_t>(b), op.end, ""});
    c.edits.push_back(Edit{other->begin, other->begin, op_text + " "});
    c.what = "move `" + op_text + "` from the end of line " + std::to_string(f.line) +
             " to the start of line " + std::to_string(other->line);
  }
  out->candidates.push_back(std::move(c));
}

}  // namespace skillrt::ci_fix::detail
