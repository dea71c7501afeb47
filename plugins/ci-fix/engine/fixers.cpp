#include "fixers.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace skillrt::ci_fix {

int class_priority(const std::string& klass) {
  static const std::map<std::string, int> kOrder = {
      {"blank-lines", 0},         {"final-newline", 1},  {"indentation", 2},
      {"clang-format", 3},        {"token-spacing", 4},  {"trailing-whitespace", 5},
      {"line-endings", 6},        {"comment-format", 7}, {"comment-typos", 8},
      {"continuation-layout", 9}, {"string-escapes", 10}};
  auto it = kOrder.find(klass);
  return it == kOrder.end() ? 11 : it->second;
}

namespace {

bool is_word_char(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string shown(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += c;
    }
  }
  return out;
}

Candidate make(const Finding&, size_t id, const Rule& rule, const FixClass& klass, uint32_t line,
               std::string what) {
  Candidate c;
  c.findings.push_back(id);
  c.klass = klass.name;
  c.fixer = rule.fixer;
  c.level = klass.proof;
  c.line = line;
  c.what = std::move(what);
  return c;
}

// The significant or comment token that starts exactly at `offset`, or nullptr.
const Token* token_at(const FileContext& ctx, size_t offset, bool comments) {
  const auto& toks = ctx.tokens->tokens;
  auto it = std::lower_bound(toks.begin(), toks.end(), offset,
                             [](const Token& t, size_t off) { return t.begin < off; });
  for (; it != toks.end() && it->begin == offset; ++it) {
    if (comments ? (it->kind == TokKind::kComment || it->kind == TokKind::kDirectiveComment)
                 : (is_significant(it->kind) && it->end > it->begin)) {
      return &*it;
    }
  }
  return nullptr;
}

// The significant token that ends exactly at `offset`.
const Token* token_ending_at(const FileContext& ctx, size_t offset) {
  const auto& toks = ctx.tokens->tokens;
  auto it = std::lower_bound(toks.begin(), toks.end(), offset,
                             [](const Token& t, size_t off) { return t.begin < off; });
  while (it != toks.begin()) {
    --it;
    if (it->end == offset && is_significant(it->kind) && it->end > it->begin) return &*it;
    if (it->end < offset && it->begin + 200 < offset) break;
  }
  return nullptr;
}

// Comment tokens that begin on `line`.
std::vector<const Token*> comments_on(const FileContext& ctx, uint32_t line) {
  std::vector<const Token*> out;
  size_t b = ctx.lines->start(line);
  size_t e = ctx.lines->end(line);
  const auto& toks = ctx.tokens->tokens;
  auto it = std::lower_bound(toks.begin(), toks.end(), b,
                             [](const Token& t, size_t off) { return t.begin < off; });
  for (; it != toks.end() && it->begin < e; ++it) {
    if (it->kind == TokKind::kComment || it->kind == TokKind::kDirectiveComment)
      out.push_back(&*it);
  }
  return out;
}

// The maximal run of blanks around `offset` within the line [lb, le).
std::pair<size_t, size_t> blank_run(std::string_view text, size_t offset, size_t lb, size_t le) {
  size_t b = offset, e = offset;
  while (b > lb && is_hspace(text[b - 1])) --b;
  while (e < le && is_hspace(text[e])) ++e;
  return {b, e};
}

// Resolves a finding's 1-based character column to a byte offset in the file.
bool offset_of(const FileContext& ctx, const Finding& f, size_t* off) {
  if (f.line == 0 || f.line > ctx.lines->count()) return false;
  std::string_view content = ctx.lines->content(f.line);
  uint32_t col = f.col == 0 ? 1 : f.col;
  size_t b = byte_of_column(content, col);
  *off = ctx.lines->start(f.line) + b;
  return true;
}

// ---- line-level whitespace -------------------------------------------------------------------

std::optional<Edit> trailing_edit(const FileContext& ctx, uint32_t line) {
  std::string_view content = ctx.lines->content(line);
  size_t k = content.size();
  while (k > 0 && is_hspace(content[k - 1])) --k;
  if (k == content.size()) return std::nullopt;
  size_t b = ctx.lines->start(line);
  return Edit{static_cast<uint32_t>(b + k), static_cast<uint32_t>(b + content.size()), ""};
}

void strip_trailing(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                    const FixClass& klass, FixerOutput* out) {
  auto one = [&](uint32_t line) {
    auto e = trailing_edit(ctx, line);
    if (!e) return false;
    Candidate c = make(f, id, rule, klass, line,
                       "remove " + std::to_string(e->end - e->begin) + " trailing blank(s)");
    c.edits.push_back(*e);
    out->candidates.push_back(std::move(c));
    return true;
  };
  if (f.line > 0) {
    if (f.line > ctx.lines->count() || !one(f.line)) {
      out->nothing_to_do = "line " + std::to_string(f.line) + " has no trailing whitespace now";
    }
    return;
  }
  bool any = false;
  for (uint32_t l = 1; l <= ctx.lines->count(); ++l) any = one(l) || any;
  if (!any) out->nothing_to_do = "no line has trailing whitespace now (the hook may have fixed it)";
}

void final_newline(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                   const FixClass& klass, FixerOutput* out, bool only_add, bool trim_blank) {
  std::string_view t = ctx.text;
  size_t n = t.size();
  if (n == 0) {
    out->nothing_to_do = "the file is empty";
    return;
  }
  if (only_add && (t[n - 1] == '\n' || t[n - 1] == '\r')) {
    out->nothing_to_do = "the file already ends with a newline";
    return;
  }
  // `keep`: end of the content that stays. W391 also drops blank lines made of blanks;
  // end-of-file-fixer and lintrunner's NEWLINE drop newlines only.
  size_t keep = n;
  if (trim_blank) {
    auto last = static_cast<uint32_t>(ctx.lines->count());
    while (last > 0 && is_blank(ctx.lines->content(last))) --last;
    keep = last == 0 ? 0 : ctx.lines->content_end(last);
  } else {
    while (keep > 0 && (t[keep - 1] == '\n' || t[keep - 1] == '\r')) --keep;
  }
  std::string want = keep == 0 ? "" : ctx.eol;
  std::string_view tail = t.substr(keep);
  if (starts_with(tail, "\r\n")) {
    want = keep == 0 ? "" : "\r\n";  // keep the file's own terminator on its last line
  } else if (!tail.empty() && tail[0] == '\n') {
    want = keep == 0 ? "" : "\n";
  }
  if (tail == want) {
    out->nothing_to_do = "the file already ends with exactly one newline";
    return;
  }
  uint32_t line = ctx.lines->line_of(keep == 0 ? 0 : keep - 1);
  std::string what = tail.empty() ? "add the missing final newline"
                                  : "remove " + std::to_string(tail.size() - want.size()) +
                                        " byte(s) of blank lines at the end of the file";
  Candidate c = make(f, id, rule, klass, line, what);
  c.edits.push_back(Edit{static_cast<uint32_t>(keep), static_cast<uint32_t>(n), want});
  c.file_level = true;
  out->candidates.push_back(std::move(c));
}

void crlf(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
          const FixClass& klass, FixerOutput* out) {
  Candidate c = make(f, id, rule, klass, 0, "");
  std::string_view t = ctx.text;
  uint32_t first = f.line, last = f.line;
  if (f.line == 0) {
    first = 1;
    last = static_cast<uint32_t>(ctx.lines->count());
  }
  size_t crs = 0;
  for (uint32_t l = first; l <= last && l <= ctx.lines->count(); ++l) {
    size_t ce = ctx.lines->content_end(l);
    std::string_view term = ctx.lines->terminator(l);
    if (term == "\r\n") {
      c.edits.push_back(Edit{static_cast<uint32_t>(ce), static_cast<uint32_t>(ce + 1), ""});
    } else if (term == "\r") {
      c.edits.push_back(Edit{static_cast<uint32_t>(ce), static_cast<uint32_t>(ce + 1), "\n"});
    } else {
      continue;
    }
    if (c.line == 0) c.line = l;
    ++crs;
  }
  (void)t;
  if (crs == 0) {
    out->nothing_to_do = "no CR line endings now";
    return;
  }
  c.what = "convert " + std::to_string(crs) + " CRLF/CR line ending(s) to LF";
  c.file_level = f.line == 0;
  out->candidates.push_back(std::move(c));
}

// ---- blank lines (pycodestyle E30x) ------------------------------------------------------------

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

LineKind kind_of(const FileContext& ctx, uint32_t line) {
  if (line == 0 || line > ctx.line_kinds.size()) return LineKind::kCode;
  return ctx.line_kinds[line - 1];
}

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
    if (!is_blank(ctx.lines->content(L)) || kind_of(ctx, L) == LineKind::kInToken) {
      out->nothing_to_do = "line " + std::to_string(L) + " is not blank now";
      return;
    }
    Candidate c = make(f, id, rule, klass, L, "delete the redundant blank line");
    c.edits.push_back(delete_lines(ctx, L, L));
    out->candidates.push_back(std::move(c));
    return;
  }
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
  if (code == "E303") {
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
    return;
  }
  // E301, E302, E305, E306: the gap between the previous code line and L (blank and comment lines).
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

// ---- indentation -------------------------------------------------------------------------------

int width_of(std::string_view ws) {
  int col = 0;
  for (char c : ws) {
    if (c == '\t') {
      col = (col / 8 + 1) * 8;
    } else if (c == '\f') {
      col = 0;
    } else {
      ++col;
    }
  }
  return col;
}

std::string_view leading_ws(std::string_view line) {
  size_t k = 0;
  while (k < line.size() && is_hspace(line[k])) ++k;
  return line.substr(0, k);
}

std::string too_long_impl(const FileContext& ctx, uint32_t line, const std::vector<Edit>& edits);

// Re-indents a Python file to 4 spaces per level, keeping the INDENT/DEDENT structure.
void reindent(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
              const FixClass& klass, FixerOutput* out) {
  if (ctx.lang != Language::kPython) {
    out->refusals.push_back(
        {"re-indentation is implemented for Python only", "Fix by hand or with the formatter."});
    return;
  }
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

// What a byte of the file belongs to, for typo and tab fixes.
enum class Region { kComment, kDirective, kString, kCode, kLayout };
Region region_at(const FileContext& ctx, size_t off);

void tabs_to_spaces(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                    const FixClass& klass, FixerOutput* out) {
  uint32_t first = f.line == 0 ? 1 : f.line;
  uint32_t last = f.line == 0 ? static_cast<uint32_t>(ctx.lines->count()) : f.line;
  size_t in_literals = 0;
  bool any = false;
  for (uint32_t l = first; l <= last && l <= ctx.lines->count(); ++l) {
    size_t b = ctx.lines->start(l);
    size_t e = ctx.lines->content_end(l);
    Candidate c = make(f, id, rule, klass, l, "");
    for (size_t k = b; k < e; ++k) {
      if (ctx.text[k] != '\t') continue;
      // Inside a literal the tab is data: leave it (and say so).
      bool literal = region_at(ctx, k) == Region::kString;
      if (literal) {
        ++in_literals;
        continue;
      }
      c.edits.push_back(Edit{static_cast<uint32_t>(k), static_cast<uint32_t>(k + 1), "    "});
    }
    if (!c.edits.empty()) {
      c.what = "replace " + std::to_string(c.edits.size()) + " tab(s) with 4 spaces each";
      out->candidates.push_back(std::move(c));
      any = true;
    }
  }
  if (in_literals > 0) {
    out->refusals.push_back(
        {std::to_string(in_literals) + " tab(s) are inside string literals, where they are data",
         "Write them as \\t escapes if a tab is meant.", f.line});
  }
  if (!any && in_literals == 0) out->nothing_to_do = "no tab on the line now";
}

// ---- side effects on other rules --------------------------------------------------------------

size_t char_count(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// The line's content after applying the (sorted) edits that fall inside it.
std::string line_after(const FileContext& ctx, uint32_t line, const std::vector<Edit>& edits) {
  size_t b = ctx.lines->start(line), e = ctx.lines->content_end(line);
  std::string out;
  size_t pos = b;
  for (const Edit& ed : edits) {
    if (ed.begin < b || ed.end > e) continue;
    out.append(ctx.text.substr(pos, ed.begin - pos));
    out.append(ed.text);
    pos = ed.end;
  }
  out.append(ctx.text.substr(pos, e - pos));
  return out;
}

// Python: would the edits push `line` past max-line-length (it was within before)? Returns the
// refusal reason, or empty.
std::string too_long_impl(const FileContext& ctx, uint32_t line, const std::vector<Edit>& edits) {
  if (ctx.lang != Language::kPython || ctx.max_line_length <= 0) return "";
  size_t before = char_count(ctx.lines->content(line));
  size_t after = char_count(line_after(ctx, line, edits));
  auto limit = static_cast<size_t>(ctx.max_line_length);
  if (before <= limit && after > limit) {
    return "the fix would make line " + std::to_string(line) + " " + std::to_string(after) +
           " characters long, past max-line-length " + std::to_string(limit) +
           ": it would trade this finding for E501";
  }
  return "";
}

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

// ---- token spacing (pycodestyle E2xx) ----------------------------------------------------------

void token_spacing(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                   const FixClass& klass, FixerOutput* out) {
  size_t off = 0;
  if (!offset_of(ctx, f, &off)) {
    out->nothing_to_do = "line " + std::to_string(f.line) + " is not in the file now";
    return;
  }
  size_t lb = ctx.lines->start(f.line);
  size_t le = ctx.lines->content_end(f.line);
  std::string_view t = ctx.text;
  const std::string& fx = rule.fixer;
  auto refuse = [&](const std::string& why) {
    out->refusals.push_back({why, "Fix the spacing by hand."});
  };
  Candidate c = make(f, id, rule, klass, f.line, "");
  if (fx == "remove-space" || fx == "single-space") {
    if (off >= le || !is_hspace(t[off])) {
      // pycodestyle points at the blank, or just after the bracket for E201.
      if (off < le && off + 1 < le && is_hspace(t[off + 1])) {
        ++off;
      } else if (off > lb && is_hspace(t[off - 1])) {
        --off;
      } else {
        out->nothing_to_do = "no blank at column " + std::to_string(f.col) + " now";
        return;
      }
    }
    auto [b, e] = blank_run(t, off, lb, le);
    if (b == lb) return refuse("the blanks start the line: they are indentation, not spacing");
    if (e == le)
      return refuse("the blanks end the line: that is trailing whitespace, fixed as such");
    std::string want = fx == "single-space" ? " " : "";
    c.edits.push_back(Edit{static_cast<uint32_t>(b), static_cast<uint32_t>(e), want});
    c.what = (want.empty() ? "remove `" : "replace `") + shown(t.substr(b, e - b)) + "`" +
             (want.empty() ? "" : " with one space");
  } else if (fx == "operator-space") {
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
      return;
    }
    if (op->begin > lb && !is_hspace(t[op->begin - 1])) {
      c.edits.push_back(Edit{op->begin, op->begin, " "});
    }
    if (op->end < le && !is_hspace(t[op->end])) c.edits.push_back(Edit{op->end, op->end, " "});
    if (c.edits.empty()) {
      out->nothing_to_do = "the operator already has spaces around it";
      return;
    }
    c.what = "put one space around `" + std::string(t.substr(op->begin, op->end - op->begin)) + "`";
  } else if (fx == "space-after") {
    if (off >= le || (t[off] != ',' && t[off] != ';' && t[off] != ':')) {
      out->nothing_to_do = "no `,` `;` or `:` at column " + std::to_string(f.col) + " now";
      return;
    }
    if (off + 1 < le && is_hspace(t[off + 1])) {
      out->nothing_to_do = "there is already a space after it";
      return;
    }
    c.edits.push_back(Edit{static_cast<uint32_t>(off + 1), static_cast<uint32_t>(off + 1), " "});
    c.what = std::string("add a space after `") + t[off] + "`";
  } else if (fx == "insert-space") {
    if (off > lb && off < le && !is_hspace(t[off - 1]) && !is_hspace(t[off])) {
      c.edits.push_back(Edit{static_cast<uint32_t>(off), static_cast<uint32_t>(off), " "});
      c.what = "add a space at column " + std::to_string(f.col);
    } else {
      out->nothing_to_do = "there is already a space at column " + std::to_string(f.col);
      return;
    }
  } else if (fx == "inline-comment-gap") {
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
      return;
    }
    size_t b = cm->begin;
    while (b > lb && is_hspace(t[b - 1])) --b;
    if (t.substr(b, cm->begin - b) == "  ") {
      out->nothing_to_do = "the comment already has two spaces before it";
      return;
    }
    c.edits.push_back(Edit{static_cast<uint32_t>(b), cm->begin, "  "});
    c.what = "put two spaces before the inline comment";
  }
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

// ---- comments ----------------------------------------------------------------------------------

void comment_prefix(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                    const FixClass& klass, FixerOutput* out) {
  if (f.line == 0 || f.line > ctx.lines->count()) {
    out->nothing_to_do = "line " + std::to_string(f.line) + " is not in the file now";
    return;
  }
  auto cs = comments_on(ctx, f.line);
  size_t off = 0;
  offset_of(ctx, f, &off);
  const Token* cm = nullptr;
  for (const Token* x : cs) {
    if (f.col == 0 || x->begin == off) cm = x;
  }
  if (cm == nullptr && !cs.empty()) cm = cs.front();
  if (cm == nullptr) {
    out->nothing_to_do = "no comment on line " + std::to_string(f.line) + " now";
    return;
  }
  std::string_view text = ctx.text.substr(cm->begin, cm->end - cm->begin);
  if (cm->kind == TokKind::kDirectiveComment) {
    out->refusals.push_back({"`" + std::string(text.substr(0, 40)) +
                                 "` is a comment tools obey (coding cookie, noqa, type:, pragma, "
                                 "NOLINT...): its text is not changed",
                             "Leave it, or add `# noqa: " + f.code + "` if the gate insists."});
    return;
  }
  std::string want;
  if (ctx.lang == Language::kPython) {
    size_t k = 0;
    while (k < text.size() && text[k] == '#') ++k;
    std::string_view body = text.substr(k);
    if (f.code == "E265") {
      // Keep the hashes the author wrote when there is only one; add the missing space.
      if (!body.empty() && body[0] != ' ')
        want = std::string(text.substr(0, k)) + " " + std::string(body);
    } else {
      size_t s = 0;
      while (s < body.size() && is_hspace(body[s])) ++s;
      want = "# " + std::string(body.substr(s));
      if (body.substr(s).empty()) want = "#";
    }
  } else if (ctx.lang == Language::kCpp) {
    if (starts_with(text, "//") && text.size() > 2 && text[2] != ' ' && text[2] != '/' &&
        text[2] != '!' && text[2] != '<') {
      want = "// " + std::string(text.substr(2));
    }
  }
  if (want.empty() || want == text) {
    out->nothing_to_do = "the comment already starts the expected way";
    return;
  }
  Candidate c = make(f, id, rule, klass, f.line,
                     "rewrite the comment start `" + std::string(text.substr(0, 8)) + "` as `" +
                         want.substr(0, 8) + "`");
  c.edits.push_back(Edit{cm->begin, cm->end, want});
  std::string side = too_long_impl(ctx, f.line, c.edits);
  if (!side.empty()) {
    out->refusals.push_back({side, "Shorten the comment by hand."});
    return;
  }
  out->candidates.push_back(std::move(c));
}

bool word_boundary(std::string_view t, size_t b, size_t e) {
  if (b > 0 && (is_word_char(static_cast<unsigned char>(t[b - 1])))) return false;
  if (e < t.size() && is_word_char(static_cast<unsigned char>(t[e]))) return false;
  return true;
}

std::string keep_case(std::string_view word, std::string corr) {
  if (corr.empty()) return corr;
  bool all_upper = word.size() > 1 && std::all_of(word.begin(), word.end(), [](unsigned char c) {
                     return !std::isalpha(c) || std::isupper(c);
                   });
  if (all_upper) {
    std::transform(corr.begin(), corr.end(), corr.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  } else if (std::isupper(static_cast<unsigned char>(word[0]))) {
    corr[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(corr[0])));
  }
  return corr;
}

Region region_at(const FileContext& ctx, size_t off) {
  const auto& toks = ctx.tokens->tokens;
  auto it = std::upper_bound(toks.begin(), toks.end(), off,
                             [](size_t o, const Token& t) { return o < t.begin; });
  // The token holding `off` is the nearest one starting at or before it, skipping newline tokens
  // (in documents they may lie inside a code span that crosses a line).
  for (auto j = it; j != toks.begin();) {
    --j;
    if (j->begin <= off && off < j->end) {
      switch (j->kind) {
        case TokKind::kComment:
          return Region::kComment;
        case TokKind::kDirectiveComment:
          return Region::kDirective;
        case TokKind::kString:
        case TokKind::kError:
        case TokKind::kHeaderName:
          return Region::kString;
        case TokKind::kNl:
          continue;
        default:
          return Region::kCode;
      }
    }
    if (j->kind != TokKind::kNl && j->end > j->begin && j->end <= off) break;
  }
  return Region::kLayout;
}

void typo(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
          const FixClass& klass, FixerOutput* out) {
  if (ctx.lang != Language::kPython && ctx.lang != Language::kCpp &&
      ctx.lang != Language::kMarkdown && ctx.lang != Language::kRst) {
    out->refusals.push_back({std::string("no tokenizer knows where comments and prose are in a ") +
                                 "file of this type, so a spelling fix cannot be proven safe here",
                             "Fix the spelling by hand if it is prose."});
    return;
  }
  std::string word = f.word;
  std::string corr = f.correction;
  if (word.empty()) {
    out->refusals.push_back({"the report does not name the misspelt word", "Fix by hand."});
    return;
  }
  if (corr.empty() && ctx.typos != nullptr) corr = ctx.typos->correct(word);
  if (corr.empty() || corr.find_first_of(" ,") != std::string::npos) {
    out->refusals.push_back({"no single correction for `" + word + "` (" + f.message + ")",
                             "Choose the right word by hand."});
    return;
  }
  if (ctx.identifier_words.count(lower(word))) {
    out->refusals.push_back(
        {"`" + word +
             "` is also an identifier (or part of one) in this file's code: a fix in the "
             "comment would no longer match the code, and renaming the code is not whitelisted",
         "Leave it, or rename the identifier by hand with a deprecation path if it is public "
         "API."});
    return;
  }
  uint32_t first = f.line == 0 ? 1 : f.line;
  uint32_t last = f.line == 0 ? static_cast<uint32_t>(ctx.lines->count()) : f.line;
  size_t want_off = 0;
  bool have_col = f.col > 0 && offset_of(ctx, f, &want_off);
  size_t fixed = 0, refused_string = 0, refused_code = 0, refused_directive = 0;
  for (uint32_t l = first; l <= last && l <= ctx.lines->count(); ++l) {
    size_t lb = ctx.lines->start(l);
    std::string_view content = ctx.lines->content(l);
    size_t p = 0;
    while ((p = content.find(word, p)) != std::string_view::npos) {
      size_t b = lb + p, e = b + word.size();
      p += word.size();
      if (!word_boundary(ctx.text, b, e)) continue;
      if (have_col && b != want_off) continue;
      // Paths, file names, dotted names and URLs are not prose.
      char before = b > 0 ? ctx.text[b - 1] : ' ';
      char after = e < ctx.text.size() ? ctx.text[e] : ' ';
      if (before == '.' || before == '/' || before == '\\' || before == '-' || after == '/' ||
          after == '\\' || after == '-' ||
          (after == '.' && e + 1 < ctx.text.size() &&
           is_word_char(static_cast<unsigned char>(ctx.text[e + 1])))) {
        ++refused_code;
        continue;
      }
      Region r = region_at(ctx, b);
      if (r == Region::kString) {
        ++refused_string;
        continue;
      }
      if (r == Region::kDirective) {
        ++refused_directive;
        continue;
      }
      if (r != Region::kComment) {
        ++refused_code;
        continue;
      }
      Candidate c =
          make(f, id, rule, klass, l, "correct `" + word + "` to `" + keep_case(word, corr) + "`");
      c.edits.push_back(
          Edit{static_cast<uint32_t>(b), static_cast<uint32_t>(e), keep_case(word, corr)});
      out->candidates.push_back(std::move(c));
      ++fixed;
    }
  }
  if (refused_string > 0) {
    out->refusals.push_back({"`" + word +
                                 "` is inside a string literal (or code span): changing it "
                                 "changes a value, a message other tools match, or an example",
                             "Fix by hand if the string is free prose no test or tool compares."});
  }
  if (refused_code > 0) {
    out->refusals.push_back({"`" + word + "` is part of an identifier, path or code, not prose",
                             "Leave it, or rename by hand with a deprecation path."});
  }
  if (refused_directive > 0) {
    out->refusals.push_back(
        {"`" + word + "` is in a comment tools obey (noqa, type:, NOLINT...)", "Leave it."});
  }
  if (fixed == 0 && out->refusals.empty()) {
    out->nothing_to_do = "`" + word + "` is not on line " + std::to_string(f.line) + " now";
  }
}

// ---- clang-format ------------------------------------------------------------------------------

// Whitespace only; in C/C++ a backslash-newline (a line splice, removed in translation phase 2,
// which clang-format adds when it breaks a #define) counts as whitespace too. The proof decides.
bool all_space(std::string_view s, bool splices = false) {
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') continue;
    if (splices && c == '\\' && i + 1 < s.size() && (s[i + 1] == '\n' || s[i + 1] == '\r'))
      continue;
    return false;
  }
  return true;
}

std::string strip_space(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')) out += c;
  }
  return out;
}

void clang_format_edit(const FileContext& ctx, const Finding& f, const Finding& repl, size_t id,
                       const Rule& rule, const FixClass& klass, FixerOutput* out) {
  std::string_view old = ctx.text.substr(repl.edit.begin, repl.edit.end - repl.edit.begin);
  bool cpp = ctx.lang == Language::kCpp;
  if (!all_space(old, cpp) || !all_space(repl.edit.text, cpp)) {
    out->refusals.push_back({"clang-format would " + repl.message +
                                 ": not a whitespace-only change (comment reflow or token edit)",
                             "Apply it by hand after checking it, or run clang-format on the file.",
                             repl.line});
    return;
  }
  Candidate c = make(f, id, rule, klass, repl.line, "clang-format: " + repl.message);
  c.edits.push_back(repl.edit);
  out->candidates.push_back(std::move(c));
}

// ---- lintrunner replacements -------------------------------------------------------------------

// Line diff (Myers, O((N+M)D)) between two texts; returns hunks as [a0,a1) x [b0,b1) line ranges.
struct LineHunk {
  size_t a0, a1, b0, b1;
};

std::vector<std::string_view> raw_lines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t b = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n') {
      out.push_back(s.substr(b, i + 1 - b));
      b = i + 1;
    }
  }
  if (b < s.size()) out.push_back(s.substr(b));
  return out;
}

std::vector<LineHunk> diff_lines(const std::vector<std::string_view>& a,
                                 const std::vector<std::string_view>& b) {
  // Trim common prefix and suffix first: formatter output usually differs in few places.
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre &&
         a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
    ++suf;
  auto n = static_cast<long>(a.size() - pre - suf);
  auto m = static_cast<long>(b.size() - pre - suf);
  std::vector<LineHunk> hunks;
  if (n == 0 && m == 0) return hunks;
  long max = n + m;
  std::vector<long> v(static_cast<size_t>(2 * max + 2), 0);
  std::vector<std::vector<long>> trace;
  long off = max;
  long found_d = -1;
  for (long d = 0; d <= max; ++d) {
    trace.push_back(v);
    for (long k = -d; k <= d; k += 2) {
      long x;
      if (k == -d ||
          (k != d && v[static_cast<size_t>(off + k - 1)] < v[static_cast<size_t>(off + k + 1)])) {
        x = v[static_cast<size_t>(off + k + 1)];
      } else {
        x = v[static_cast<size_t>(off + k - 1)] + 1;
      }
      long y = x - k;
      while (x < n && y < m && a[pre + static_cast<size_t>(x)] == b[pre + static_cast<size_t>(y)]) {
        ++x;
        ++y;
      }
      v[static_cast<size_t>(off + k)] = x;
      if (x >= n && y >= m) {
        found_d = d;
        break;
      }
    }
    if (found_d >= 0) break;
  }
  // Backtrack into a list of (x, y) matched pairs.
  std::vector<std::pair<long, long>> path;
  long x = n, y = m;
  for (long d = found_d; d > 0; --d) {
    const auto& vv = trace[static_cast<size_t>(d)];
    long k = x - y;
    long pk;
    if (k == -d ||
        (k != d && vv[static_cast<size_t>(off + k - 1)] < vv[static_cast<size_t>(off + k + 1)])) {
      pk = k + 1;
    } else {
      pk = k - 1;
    }
    long px = vv[static_cast<size_t>(off + pk)];
    long py = px - pk;
    while (x > px && y > py) {
      path.emplace_back(x - 1, y - 1);
      --x;
      --y;
    }
    x = px;
    y = py;
  }
  while (x > 0 && y > 0) {
    path.emplace_back(x - 1, y - 1);
    --x;
    --y;
  }
  std::reverse(path.begin(), path.end());
  long pa = 0, pb = 0;
  auto emit = [&](long ea, long eb) {
    if (ea > pa || eb > pb) {
      hunks.push_back({pre + static_cast<size_t>(pa), pre + static_cast<size_t>(ea),
                       pre + static_cast<size_t>(pb), pre + static_cast<size_t>(eb)});
    }
  };
  for (auto [mx, my] : path) {
    emit(mx, my);
    pa = mx + 1;
    pb = my + 1;
  }
  emit(n, m);
  return hunks;
}

void replacement_hunks(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                       const FixClass& klass, FixerOutput* out) {
  if (!f.original || !f.replacement) {
    out->refusals.push_back({"the lintrunner message carries no original/replacement text",
                             "Run `lintrunner -a` or fix by hand."});
    return;
  }
  if (*f.original != ctx.text) {
    out->refusals.push_back({"stale report: lintrunner's `original` no longer matches the file",
                             "Re-run lintrunner and feed the new report."});
    return;
  }
  auto a = raw_lines(*f.original);
  auto b = raw_lines(*f.replacement);
  auto hunks = diff_lines(a, b);
  if (hunks.empty()) {
    out->nothing_to_do = "the replacement equals the file";
    return;
  }
  std::vector<size_t> a_start(a.size() + 1, 0);
  for (size_t k = 0; k < a.size(); ++k) a_start[k + 1] = a_start[k] + a[k].size();
  for (const LineHunk& h : hunks) {
    std::string old_text, new_text;
    for (size_t k = h.a0; k < h.a1; ++k) old_text += a[k];
    for (size_t k = h.b0; k < h.b1; ++k) new_text += b[k];
    auto line = static_cast<uint32_t>(h.a0 + 1);
    if (klass.name == "clang-format" && strip_space(old_text) != strip_space(new_text)) {
      out->refusals.push_back({"lintrunner's " + f.code + " hunk at line " + std::to_string(line) +
                                   " changes more than whitespace (comment reflow or token edit)",
                               "Apply that hunk by hand after checking it.", line});
      continue;
    }
    Candidate c = make(f, id, rule, klass, line,
                       f.code + " hunk: lines " + std::to_string(h.a0 + 1) + "-" +
                           std::to_string(std::max(h.a0 + 1, h.a1)));
    c.edits.push_back(
        Edit{static_cast<uint32_t>(a_start[h.a0]), static_cast<uint32_t>(a_start[h.a1]), new_text});
    out->candidates.push_back(std::move(c));
  }
}

}  // namespace

void prepare_context(FileContext* ctx) {
  size_t n = ctx->lines->count();
  ctx->line_kinds.assign(n, LineKind::kBlank);
  if (ctx->tokens == nullptr) return;
  std::vector<uint8_t> has_code(n + 2, 0), has_comment(n + 2, 0), in_token(n + 2, 0);
  const auto& toks = ctx->tokens->tokens;
  for (size_t k = 0; k < toks.size(); ++k) {
    const Token& t = toks[k];
    if (is_significant(t.kind)) ctx->sig_index.push_back(k);
    if (t.end == t.begin) continue;
    bool layout =
        t.kind == TokKind::kNl || t.kind == TokKind::kNewline || t.kind == TokKind::kDirectiveEnd;
    if (layout) continue;
    uint32_t first = ctx->lines->line_of(t.begin);
    uint32_t last = ctx->lines->line_of(t.end - 1);
    if (t.kind == TokKind::kComment) {
      if (first <= n) has_comment[first] = 1;
    } else if (first <= n) {
      has_code[first] = 1;
    }
    for (uint32_t l = first + 1; l <= last && l <= n; ++l) in_token[l] = 1;
    if (t.kind == TokKind::kName && ctx->lang != Language::kMarkdown &&
        ctx->lang != Language::kRst) {
      std::string name = lower(ctx->text.substr(t.begin, t.end - t.begin));
      ctx->identifier_words.insert(name);
      size_t p = 0;
      while (p < name.size()) {
        size_t q = name.find('_', p);
        if (q == std::string::npos) q = name.size();
        if (q > p) ctx->identifier_words.insert(name.substr(p, q - p));
        p = q + 1;
      }
    }
  }
  for (uint32_t l = 1; l <= n; ++l) {
    LineKind k;
    if (in_token[l]) {
      k = LineKind::kInToken;
    } else if (has_code[l]) {
      k = LineKind::kCode;
    } else if (has_comment[l]) {
      k = LineKind::kComment;
    } else {
      k = is_blank(ctx->lines->content(l)) ? LineKind::kBlank : LineKind::kCode;
    }
    ctx->line_kinds[l - 1] = k;
  }
}

// ---- continuation lines ------------------------------------------------------------------------

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

ContinuationPlan plan_continuation(const FileContext& ctx) {
  ContinuationPlan plan;
  std::map<uint32_t, std::string> flagged(ctx.continuation.begin(), ctx.continuation.end());
  const auto& toks = ctx.tokens->tokens;
  const auto col_of = [&](const Token& t) {
    return static_cast<int>(
        char_count(ctx.text.substr(ctx.lines->start(t.line), t.begin - ctx.lines->start(t.line))));
  };
  struct Open {
    uint32_t row;
    int visual = -1;    // new column of the first token after the bracket on its row, or -1
    int hang = -1;      // hang (new columns past the opening row's indent) the bracket's rows use
    int old_hang = -1;  // old column of the bracket's first hanging row: rows aligned with it
    int new_hang = -1;  // follow it to its new column
  };
  size_t k = 0;
  while (k < toks.size()) {
    // One logical line: tokens up to NEWLINE, without INDENT/DEDENT.
    size_t begin = k;
    while (k < toks.size() && toks[k].kind != TokKind::kNewline && toks[k].kind != TokKind::kEnd) {
      ++k;
    }
    size_t end = k;
    ++k;
    std::vector<size_t> line_toks;
    for (size_t i = begin; i < end; ++i) {
      TokKind kd = toks[i].kind;
      if (kd == TokKind::kIndent || kd == TokKind::kDedent || kd == TokKind::kNl ||
          kd == TokKind::kBom || toks[i].end == toks[i].begin) {
        continue;
      }
      line_toks.push_back(i);
    }
    if (line_toks.empty()) continue;
    const uint32_t first_row = toks[line_toks.front()].line;
    const uint32_t last_row = toks[line_toks.back()].line;
    if (first_row == last_row) continue;
    const int indent_level = col_of(toks[line_toks.front()]);
    bool opens_block = false;
    for (size_t j = line_toks.size(); j-- > 0;) {
      const Token& t = toks[line_toks[j]];
      if (t.kind == TokKind::kComment || t.kind == TokKind::kDirectiveComment) continue;
      opens_block = t.kind == TokKind::kOp && ctx.text.substr(t.begin, t.end - t.begin) == ":";
      break;
    }
    std::map<uint32_t, int> delta;       // rows of this logical line
    std::map<uint32_t, int> row_indent;  // old column of each row's first token
    std::vector<Open> stack;
    Open backslash{first_row};
    std::string problem;  // set when this logical line cannot be changed safely
    uint32_t row = first_row;
    row_indent[first_row] = indent_level;
    delta[first_row] = 0;
    for (size_t j = 0; j < line_toks.size(); ++j) {
      const Token& t = toks[line_toks[j]];
      const std::string_view text = ctx.text.substr(t.begin, t.end - t.begin);
      if (t.line != row) {
        row = t.line;
        const int old_col = col_of(t);
        row_indent[row] = old_col;
        const bool in_string = ctx.line_kinds[row - 1] == LineKind::kInToken;
        auto fl = flagged.find(row);
        if (in_string) {
          delta[row] = 0;
          if (fl != flagged.end()) plan.refused[row] = "the row starts inside a multi-line string";
          continue;
        }
        // Rows joined by backslashes hang from the statement's first row like a bracket's.
        Open& top = stack.empty() ? backslash : stack.back();
        const int open_indent = row_indent[top.row] + delta[top.row];
        const bool closing = !stack.empty() && t.kind == TokKind::kOp && is_close_bracket(text);
        if (fl == flagged.end()) {
          delta[row] = top.visual < 0 && old_col == top.old_hang && top.new_hang >= 0
                           ? top.new_hang - old_col
                           : delta[top.row];
          // A closing bracket must sit at its bracket's visual indent while that indent holds
          // (E124); rows moved above can make it hold where it did not.
          if (closing && top.visual >= 0 && old_col + delta[row] != top.visual) {
            delta[row] = top.visual - old_col;
          }
        } else {
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
          // A row at the indent of the block the statement opens reads as the block (E125,
          // E129); pycodestyle accepts 8 columns past the statement there instead, but not for a
          // closing bracket, which must match its opening row or the visual indent.
          if (opens_block && target == indent_level + 4) {
            if (closing) {
              plan.refused[row] =
                  "the closing bracket's place (its opening row's indent or the visual indent) "
                  "equals the indent of the block the statement opens (E125); move the bracket to "
                  "the end of the previous row by hand";
              delta[row] = delta[top.row];
              continue;
            }
            target = indent_level + 8;
          }
          if (target < 0) target = 0;
          delta[row] = target - old_col;
        }
        if (!closing && top.visual < 0 && top.hang < 0) {
          top.hang = old_col + delta[row] - open_indent;
          top.old_hang = old_col;
          top.new_hang = old_col + delta[row];
        }
        std::string_view ws = leading_ws(ctx.lines->content(row));
        if (delta[row] != 0 && ws.find_first_not_of(' ') != std::string_view::npos) {
          problem = "line " + std::to_string(row) + " is indented with tabs or form feeds";
        }
      }
      if (t.kind != TokKind::kOp) continue;
      if (is_open_bracket(text)) {
        Open o{t.line};
        if (j + 1 < line_toks.size()) {
          const Token& nx = toks[line_toks[j + 1]];
          if (nx.line == t.line && nx.kind != TokKind::kComment &&
              nx.kind != TokKind::kDirectiveComment) {
            o.visual = col_of(nx) + delta[t.line];
          }
        }
        stack.push_back(o);
      } else if (is_close_bracket(text) && !stack.empty()) {
        // As pycodestyle does: a closed bracket's indent (or its row's) drops any enclosing
        // visual indent to its right, which then no longer binds the rows below.
        const Open closed = stack.back();
        stack.pop_back();
        const int prev = closed.visual >= 0 ? closed.visual : row_indent[t.line] + delta[t.line];
        for (Open& o : stack) {
          if (o.visual > prev) o.visual = -1;
        }
      }
    }
    // Whole logical line or nothing: a row pushed past max-line-length stops it.
    if (problem.empty()) {
      for (const auto& [r, d] : delta) {
        if (d == 0) continue;
        const size_t before = char_count(ctx.lines->content(r));
        const long after = static_cast<long>(before) + d;
        if (ctx.max_line_length > 0 && before <= static_cast<size_t>(ctx.max_line_length) &&
            after > ctx.max_line_length) {
          problem = "re-indenting would make line " + std::to_string(r) + " " +
                    std::to_string(after) + " characters long, past max-line-length " +
                    std::to_string(ctx.max_line_length) + " (E501/B950)";
          break;
        }
      }
    }
    for (const auto& [r, d] : delta) {
      if (!problem.empty()) {
        if (flagged.count(r) != 0 && plan.refused.count(r) == 0) plan.refused[r] = problem;
        continue;
      }
      if (d != 0) plan.delta[r] = d;
    }
  }
  return plan;
}

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
  const auto is_operator = [&](const Token& t) {
    if (t.kind == TokKind::kOp) return true;
    const std::string_view w = ctx.text.substr(t.begin, t.end - t.begin);
    return t.kind == TokKind::kName &&
           (w == "and" || w == "or" || w == "in" || w == "is" || w == "not");
  };
  if (it == toks.end() || it->begin != at || !is_operator(*it)) {
    out->refusals.push_back({"no operator at line " + std::to_string(f.line) + " column " +
                                 std::to_string(f.col) + " (the report does not match the file)",
                             "Run the linter again and move the operator by hand."});
    return;
  }
  const Token& op = *it;
  const std::string op_text(ctx.text.substr(op.begin, op.end - op.begin));
  // The neighbour across the break, with only a non-logical newline between (no comment).
  const auto neighbour = [&](bool forward) -> const Token* {
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
  };
  const Token* other = neighbour(!after_break);
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

FixerOutput run_fixer(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                      const FixClass& klass) {
  FixerOutput out;
  const std::string& fx = rule.fixer;
  if (fx == "strip-trailing") {
    strip_trailing(ctx, f, id, rule, klass, &out);
  } else if (fx == "add-final-newline") {
    final_newline(ctx, f, id, rule, klass, &out, true, false);
  } else if (fx == "trim-final-blank-lines") {
    final_newline(ctx, f, id, rule, klass, &out, false, true);
  } else if (fx == "final-newline") {
    final_newline(ctx, f, id, rule, klass, &out, false, false);
  } else if (fx == "crlf") {
    crlf(ctx, f, id, rule, klass, &out);
  } else if (fx == "blank-lines" || fx == "delete-blank-line") {
    blank_lines(ctx, f, id, rule, klass, &out);
  } else if (fx == "reindent") {
    reindent(ctx, f, id, rule, klass, &out);
  } else if (fx == "continuation-indent") {
    continuation_indent(ctx, f, id, rule, klass, &out);
  } else if (fx == "redundant-backslash") {
    redundant_backslash(ctx, f, id, rule, klass, &out);
  } else if (fx == "move-operator") {
    move_operator(ctx, f, id, rule, klass, &out);
  } else if (fx == "escape-backslash") {
    escape_backslash(ctx, f, id, rule, klass, &out);
  } else if (fx == "comment-indent") {
    comment_indent(ctx, f, id, rule, klass, &out);
  } else if (fx == "tabs-to-spaces") {
    tabs_to_spaces(ctx, f, id, rule, klass, &out);
  } else if (fx == "remove-space" || fx == "single-space" || fx == "operator-space" ||
             fx == "space-after" || fx == "insert-space" || fx == "inline-comment-gap") {
    if (fx == "inline-comment-gap" || ctx.lang == Language::kPython) {
      token_spacing(ctx, f, id, rule, klass, &out);
    } else {
      out.refusals.push_back({"pycodestyle spacing rules apply to Python files", "Fix by hand."});
    }
  } else if (fx == "comment-prefix") {
    comment_prefix(ctx, f, id, rule, klass, &out);
  } else if (fx == "typo") {
    typo(ctx, f, id, rule, klass, &out);
  } else if (fx == "clang-format-replacement") {
    clang_format_edit(ctx, f, f, id, rule, klass, &out);
  } else if (fx == "clang-format-line") {
    if (ctx.clang_format == nullptr) {
      out.refusals.push_back(
          {"clang-format did not run on this file" +
               (ctx.clang_format_error.empty() ? std::string()
                                               : " (" + ctx.clang_format_error + ")") +
               ", and this whitespace rule is fixed through clang-format's edits",
           "Run clang-format with the project's .clang-format, or fix by hand."});
    } else {
      size_t before = out.candidates.size();
      for (const Finding& r : *ctx.clang_format) {
        if (r.line <= f.line && f.line <= std::max(r.line, r.end_line)) {
          clang_format_edit(ctx, f, r, id, rule, klass, &out);
        }
      }
      if (out.candidates.size() == before && out.refusals.empty()) {
        out.refusals.push_back(
            {"clang-format with the project's style proposes no change on line " +
                 std::to_string(f.line) + ": cpplint's style and the .clang-format disagree here",
             "Fix by hand the way the project's style wants."});
      }
    }
  } else if (fx == "replacement-hunks") {
    replacement_hunks(ctx, f, id, rule, klass, &out);
  } else {
    out.refusals.push_back({"unknown fixer " + fx + " in the whitelist data", "Fix by hand."});
  }
  return out;
}

std::vector<Finding> builtin_check(const FileContext& ctx, const std::string& check) {
  std::vector<Finding> out;
  auto add = [&](uint32_t line, uint32_t col, const std::string& code, const std::string& msg) {
    Finding f;
    f.tool = "builtin";
    f.path = ctx.rel_path;
    f.line = line;
    f.col = col;
    f.code = code;
    f.message = msg;
    out.push_back(std::move(f));
    return &out.back();
  };
  std::string_view t = ctx.text;
  if (check == "trailing-whitespace") {
    for (uint32_t l = 1; l <= ctx.lines->count(); ++l) {
      std::string_view c = ctx.lines->content(l);
      if (!c.empty() && is_hspace(c.back())) {
        size_t k = c.size();
        while (k > 0 && is_hspace(c[k - 1])) --k;
        add(l, static_cast<uint32_t>(k + 1), "trailing-whitespace", "trailing whitespace");
      }
    }
  } else if (check == "final-newline") {
    if (!t.empty()) {
      size_t keep = t.size();
      while (keep > 0 && (t[keep - 1] == '\n' || t[keep - 1] == '\r')) --keep;
      size_t tail = t.size() - keep;
      bool missing = tail == 0;
      bool extra =
          keep > 0 && tail > 2 ? true : (keep > 0 && tail == 2 && t.substr(keep) != "\r\n");
      if (keep == 0 && tail > 0) extra = true;
      if (missing)
        add(static_cast<uint32_t>(ctx.lines->count()), 0, "final-newline",
            "no newline at end of file");
      if (extra)
        add(ctx.lines->line_of(keep), 0, "final-newline", "extra blank lines at end of file");
    }
  } else if (check == "crlf") {
    size_t crlf_lines = 0;
    for (uint32_t l = 1; l <= ctx.lines->count(); ++l) {
      if (ctx.lines->terminator(l) == "\r\n" || ctx.lines->terminator(l) == "\r") ++crlf_lines;
    }
    if (crlf_lines > 0)
      add(0, 0, "crlf", std::to_string(crlf_lines) + " line(s) end with CRLF or CR");
  } else if (check == "tabs") {
    for (uint32_t l = 1; l <= ctx.lines->count(); ++l) {
      size_t p = ctx.lines->content(l).find('\t');
      if (p != std::string_view::npos)
        add(l, static_cast<uint32_t>(p + 1), "tabs", "tab character");
    }
  } else if (check == "typos" && ctx.typos != nullptr && ctx.tokens != nullptr) {
    for (const Token& tk : ctx.tokens->tokens) {
      if (tk.kind != TokKind::kComment) continue;
      size_t i = tk.begin;
      while (i < tk.end) {
        while (i < tk.end && !std::isalpha(static_cast<unsigned char>(t[i]))) ++i;
        size_t e = i;
        while (e < tk.end && std::isalpha(static_cast<unsigned char>(t[e]))) ++e;
        if (e > i && word_boundary(t, i, e)) {
          std::string_view w = t.substr(i, e - i);
          std::string corr = ctx.typos->correct(w);
          if (!corr.empty()) {
            uint32_t line = ctx.lines->line_of(i);
            uint32_t col = 1;
            for (size_t k = ctx.lines->start(line); k < i; ++k) {
              if ((static_cast<unsigned char>(t[k]) & 0xC0) != 0x80) ++col;
            }
            Finding* f = add(line, col, "typo", "`" + std::string(w) + "` -> `" + corr + "`");
            f->word = std::string(w);
            f->correction = corr;
          }
        }
        i = e;
      }
    }
  }
  return out;
}

std::string too_long(const FileContext& ctx, uint32_t line, const std::vector<Edit>& edits) {
  return too_long_impl(ctx, line, edits);
}

}  // namespace skillrt::ci_fix
