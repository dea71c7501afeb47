#include "fixer_kit.hpp"

#include <algorithm>
#include <cctype>

namespace skillrt::ci_fix::detail {

bool is_word_char(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
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

std::pair<size_t, size_t> blank_run(std::string_view text, size_t offset, size_t lb, size_t le) {
  size_t b = offset, e = offset;
  while (b > lb && is_hspace(text[b - 1])) --b;
  while (e < le && is_hspace(text[e])) ++e;
  return {b, e};
}

bool offset_of(const FileContext& ctx, const Finding& f, size_t* off) {
  if (f.line == 0 || f.line > ctx.lines->count()) return false;
  std::string_view content = ctx.lines->content(f.line);
  uint32_t col = f.col == 0 ? 1 : f.col;
  size_t b = byte_of_column(content, col);
  *off = ctx.lines->start(f.line) + b;
  return true;
}

LineKind kind_of(const FileContext& ctx, uint32_t line) {
  if (line == 0 || line > ctx.line_kinds.size()) return LineKind::kCode;
  return ctx.line_kinds[line - 1];
}

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

size_t char_count(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

namespace {

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

}  // namespace

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

bool word_boundary(std::string_view t, size_t b, size_t e) {
  if (b > 0 && (is_word_char(static_cast<unsigned char>(t[b - 1])))) return false;
  if (e < t.size() && is_word_char(static_cast<unsigned char>(t[e]))) return false;
  return true;
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

}  // namespace skillrt::ci_fix::detail
