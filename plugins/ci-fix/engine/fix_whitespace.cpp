// Line-level whitespace fixers: trailing blanks, the final newline, CRLF line ends and tabs.

#include "fixer_kit.hpp"

namespace skillrt::ci_fix::detail {

namespace {

std::optional<Edit> trailing_edit(const FileContext& ctx, uint32_t line) {
  std::string_view content = ctx.lines->content(line);
  size_t k = content.size();
  while (k > 0 && is_hspace(content[k - 1])) --k;
  if (k == content.size()) return std::nullopt;
  size_t b = ctx.lines->start(line);
  return Edit{static_cast<uint32_t>(b + k), static_cast<uint32_t>(b + content.size()), ""};
}

}  // namespace

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

}  // namespace skillrt::ci_fix::detail
