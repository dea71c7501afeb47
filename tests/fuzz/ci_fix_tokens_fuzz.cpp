// Fuzz target of ci-fix's Python and C/C++ tokenizers (plugins/ci-fix/engine/tokenize_*.cpp),
// whose token streams are the proofs that a whitespace fix changes no behaviour. The first byte
// picks the language (even: Python, odd: C/C++), the rest is the source. Besides no crash and
// ASan/UBSan clean, the proof's own assumptions are checked:
// - every token's span lies inside the source, spans are in order and do not overlap, and the
//   stream ends with one END at the end of the source;
// - only layout lies between tokens (the blanks the language skips, where CPython rejects a
//   vertical tab, and a backslash-newline: Python's continuation, C's splice): a byte no token
//   covers would be invisible to the proof, so a fix could change it;
// - a token's line is the line of its first byte (the proof reports it, and compares it for the
//   Python shebang and coding cookie, which work on lines 1-2 only);
// - tokenizing is deterministic;
// - the line-level whitespace fixes the whitelist proves with tokens pass their proof whenever
//   the whitelist says they must (data/whitelist.json): converting CRLF/CR line ends to LF
//   (Python reads universal newlines, also inside literals; only a CR kept inside a C/C++
//   literal, or in an error token, may refuse it), adding the missing final line end (unless the
//   source ends in a backslash or inside an unterminated literal or comment), and removing blanks
//   at line ends that lie outside significant tokens and do not follow a backslash (which they
//   would turn into a continuation).
// Built as a libFuzzer target by `make fuzz`, and run over its corpus by ctest.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "proof.hpp"
#include "tokens.hpp"

namespace {

using skillrt::ci_fix::compare_streams;
using skillrt::ci_fix::is_significant;
using skillrt::ci_fix::kind_name;
using skillrt::ci_fix::Language;
using skillrt::ci_fix::ProofLevel;
using skillrt::ci_fix::ProofResult;
using skillrt::ci_fix::Token;
using skillrt::ci_fix::TokenStream;
using skillrt::ci_fix::TokKind;

[[noreturn]] void broken(const char* what, size_t at, std::string_view src,
                         const std::string& detail = {}) {
  std::fprintf(stderr, "ci_fix_tokens: %s at offset %zu%s%s\nsource: %.*s\n", what, at,
               detail.empty() ? "" : ": ", detail.c_str(),
               static_cast<int>(src.size() > 2000 ? 2000 : src.size()), src.data());
  std::abort();
}

// Blanks as the language reads them: CPython skips space, tab and form feed between tokens and
// rejects a vertical tab; C and C++ treat all four as whitespace.
bool is_blank(char c, Language lang) {
  return c == ' ' || c == '\t' || c == '\f' || (c == '\v' && lang == Language::kCpp);
}

// Length of the line break at i ("\r\n", "\r" or "\n"), 0 when none.
size_t line_break(std::string_view s, size_t i) {
  if (i >= s.size()) return 0;
  if (s[i] == '\n') return 1;
  if (s[i] != '\r') return 0;
  return i + 1 < s.size() && s[i + 1] == '\n' ? 2 : 1;
}

void check_spans(std::string_view src, const TokenStream& ts, Language lang) {
  if (ts.lang != lang) broken("the stream names another language", 0, src);
  if (ts.tokens.empty() || ts.tokens.back().kind != TokKind::kEnd ||
      ts.tokens.back().begin != src.size() || ts.tokens.back().end != src.size()) {
    broken("the stream does not end with END at the end of the source", src.size(), src);
  }
  size_t pos = 0;  // end of the previous token
  uint32_t line = 1;
  size_t counted = 0;  // line breaks before `counted` are in `line`
  for (size_t k = 0; k < ts.tokens.size(); ++k) {
    const Token& t = ts.tokens[k];
    if (t.kind == TokKind::kEnd && k + 1 != ts.tokens.size()) {
      broken("END before the last token", t.begin, src);
    }
    if (t.begin > t.end || t.end > src.size()) {
      broken("a token span outside the source", t.begin, src, kind_name(t.kind));
    }
    if (t.begin < pos) broken("tokens overlap or are out of order", t.begin, src);
    // The gap before the token: blanks and backslash-newlines only.
    for (size_t i = pos; i < t.begin;) {
      if (is_blank(src[i], lang)) {
        ++i;
      } else if (src[i] == '\\' && line_break(src, i + 1) > 0) {
        i += 1 + line_break(src, i + 1);
      } else {
        broken("a byte outside every token that is not layout", i, src,
               std::string("before ") + kind_name(t.kind));
      }
    }
    // A "\r\n" is one line break even when a token boundary falls between its bytes.
    while (counted < t.begin) {
      const size_t b = line_break(src, counted);
      if (b == 0) {
        ++counted;
        continue;
      }
      if (counted + b > t.begin && b == 2) break;  // the token starts at the "\n" of a "\r\n"
      counted += b;
      ++line;
    }
    if (t.line != line) {
      broken("a token's line is not the line of its first byte", t.begin, src,
             std::string(kind_name(t.kind)) + " says line " + std::to_string(t.line) +
                 ", its first byte is on line " + std::to_string(line));
    }
    pos = t.end;
  }
}

void check_same_streams(std::string_view src, const TokenStream& a, const TokenStream& b) {
  if (a.tokens.size() != b.tokens.size()) broken("tokenizing twice gave two streams", 0, src);
  for (size_t k = 0; k < a.tokens.size(); ++k) {
    const Token& x = a.tokens[k];
    const Token& y = b.tokens[k];
    if (x.begin != y.begin || x.end != y.end || x.line != y.line || x.kind != y.kind ||
        x.flags != y.flags) {
      broken("tokenizing twice gave two streams", x.begin, src);
    }
  }
}

// What the line-endings fix writes: every "\r\n" and lone "\r" becomes "\n".
std::string to_lf(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\r') {
      out += s[i];
      continue;
    }
    out += '\n';
    if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
  }
  return out;
}

// Whether the proof may refuse the line-endings fix: a significant token (other than a line end,
// whose spelling is not its meaning) whose text keeps a CR.
bool cr_in_significant_text(std::string_view src, const TokenStream& ts, Language lang) {
  for (const Token& t : ts.tokens) {
    if (!is_significant(t.kind) || t.kind == TokKind::kNewline ||
        t.kind == TokKind::kDirectiveEnd) {
      continue;
    }
    if (skillrt::ci_fix::token_text(src, t, lang).find('\r') != std::string::npos) return true;
  }
  return false;
}

// What the trailing-whitespace fix writes: the blanks at the end of every line removed. Sets
// `must_pass` false when one removed blank lies inside a significant token or the run follows a
// backslash: then the proof may (and should) refuse.
std::string strip_trailing(std::string_view s, const TokenStream& ts, bool* must_pass) {
  // The fix removes what pycodestyle and clang-format call trailing whitespace: all four blanks.
  const auto trailing = [](char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; };
  std::vector<bool> significant(s.size(), false);
  for (const Token& t : ts.tokens) {
    if (!is_significant(t.kind)) continue;
    for (uint32_t k = t.begin; k < t.end; ++k) significant[k] = true;
  }
  *must_pass = true;
  std::string out;
  out.reserve(s.size());
  size_t start = 0;
  while (start < s.size()) {
    size_t end = start;
    while (end < s.size() && s[end] != '\n' && s[end] != '\r') ++end;
    size_t keep = end;
    while (keep > start && trailing(s[keep - 1])) --keep;
    if (keep < end) {
      if (keep > start && s[keep - 1] == '\\') *must_pass = false;
      // Blanks alone between a lone CR and an LF: removing them joins two line ends into one
      // CRLF, which the proof must refuse (found by fuzzing: backslash, CR, form feed, LF).
      if (keep == start && start > 0 && s[start - 1] == '\r' && end < s.size() && s[end] == '\n') {
        *must_pass = false;
      }
      for (size_t k = keep; k < end; ++k) *must_pass = *must_pass && !significant[k];
    }
    out.append(s.substr(start, keep - start));
    const size_t b = line_break(s, end);
    out.append(s.substr(end, b));
    start = end + b;
  }
  return out;
}

// Whether the source ends inside an error token that a line end appended would extend (an
// unterminated triple-quoted string, raw string or block comment).
bool ends_in_error(const TokenStream& ts, size_t n) {
  for (size_t k = ts.tokens.size(); k-- > 0;) {
    const Token& t = ts.tokens[k];
    if (t.begin == t.end || !is_significant(t.kind)) continue;  // END, an implied NEWLINE ...
    return t.kind == TokKind::kError && t.end == n;
  }
  return false;
}

void check_fix_proven(const char* fix, std::string_view before, const TokenStream& tb,
                      const std::string& after, Language lang) {
  const TokenStream ta = skillrt::ci_fix::tokenize(after, lang);
  check_spans(after, ta, lang);
  const ProofResult r = compare_streams(before, tb, after, ta, ProofLevel::kWhitespace);
  if (!r.passed) {
    broken(
        fix, 0, before,
        "the whitespace proof refused it: " + r.detail + " (line " + std::to_string(r.line) + ")");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Language lang = (data[0] & 1) == 0 ? Language::kPython : Language::kCpp;
  const std::string_view src(reinterpret_cast<const char*>(data) + 1, size - 1);
  const TokenStream ts = skillrt::ci_fix::tokenize(src, lang);
  check_spans(src, ts, lang);
  check_same_streams(src, ts, skillrt::ci_fix::tokenize(src, lang));

  if (src.find('\r') != std::string_view::npos && !cr_in_significant_text(src, ts, lang)) {
    check_fix_proven("converting line ends to LF changed the token stream", src, ts, to_lf(src),
                     lang);
  }
  if (!src.empty() && src.back() != '\n' && src.back() != '\r' && src.back() != '\\' &&
      !ends_in_error(ts, src.size())) {
    check_fix_proven("adding the missing final line end changed the token stream", src, ts,
                     std::string(src) + "\n", lang);
  }
  bool must_pass = false;
  const std::string stripped = strip_trailing(src, ts, &must_pass);
  if (stripped.size() != src.size() && must_pass) {
    check_fix_proven("removing blanks at line ends changed the token stream", src, ts, stripped,
                     lang);
  }
  return 0;
}
