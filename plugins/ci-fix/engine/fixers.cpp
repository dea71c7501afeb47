// The fixers' entry points: the order of fix classes, the per-file context, the dispatch from a
// whitelist rule's fixer name to its family (engine/fix_<family>.cpp) and the built-in checks.
#include "fixers.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "fixer_kit.hpp"

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
      std::string name = detail::lower(ctx->text.substr(t.begin, t.end - t.begin));
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

FixerOutput run_fixer(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                      const FixClass& klass) {
  FixerOutput out;
  const std::string& fx = rule.fixer;
  if (fx == "strip-trailing") {
    detail::strip_trailing(ctx, f, id, rule, klass, &out);
  } else if (fx == "add-final-newline") {
    detail::final_newline(ctx, f, id, rule, klass, &out, true, false);
  } else if (fx == "trim-final-blank-lines") {
    detail::final_newline(ctx, f, id, rule, klass, &out, false, true);
  } else if (fx == "final-newline") {
    detail::final_newline(ctx, f, id, rule, klass, &out, false, false);
  } else if (fx == "crlf") {
    detail::crlf(ctx, f, id, rule, klass, &out);
  } else if (fx == "blank-lines" || fx == "delete-blank-line") {
    detail::blank_lines(ctx, f, id, rule, klass, &out);
  } else if (fx == "reindent") {
    detail::reindent(ctx, f, id, rule, klass, &out);
  } else if (fx == "continuation-indent") {
    detail::continuation_indent(ctx, f, id, rule, klass, &out);
  } else if (fx == "redundant-backslash") {
    detail::redundant_backslash(ctx, f, id, rule, klass, &out);
  } else if (fx == "move-operator") {
    detail::move_operator(ctx, f, id, rule, klass, &out);
  } else if (fx == "escape-backslash") {
    detail::escape_backslash(ctx, f, id, rule, klass, &out);
  } else if (fx == "comment-indent") {
    detail::comment_indent(ctx, f, id, rule, klass, &out);
  } else if (fx == "tabs-to-spaces") {
    detail::tabs_to_spaces(ctx, f, id, rule, klass, &out);
  } else if (fx == "remove-space" || fx == "single-space" || fx == "operator-space" ||
             fx == "space-after" || fx == "insert-space" || fx == "inline-comment-gap") {
    if (fx == "inline-comment-gap" || ctx.lang == Language::kPython) {
      detail::token_spacing(ctx, f, id, rule, klass, &out);
    } else {
      out.refusals.push_back({"pycodestyle spacing rules apply to Python files", "Fix by hand."});
    }
  } else if (fx == "comment-prefix") {
    detail::comment_prefix(ctx, f, id, rule, klass, &out);
  } else if (fx == "typo") {
    detail::typo(ctx, f, id, rule, klass, &out);
  } else if (fx == "clang-format-replacement") {
    detail::clang_format_edit(ctx, f, f, id, rule, klass, &out);
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
          detail::clang_format_edit(ctx, f, r, id, rule, klass, &out);
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
    detail::replacement_hunks(ctx, f, id, rule, klass, &out);
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
        if (e > i && detail::word_boundary(t, i, e)) {
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
  return detail::too_long_impl(ctx, line, edits);
}

}  // namespace skillrt::ci_fix
