// Python tokenizer for the proofs. It follows CPython's tokenizer where that decides meaning:
// logical lines (NEWLINE vs NL inside brackets and after backslash continuations), INDENT and
// DEDENT from the indentation stack with CPython's tab rules (tabs to multiples of 8, and the
// "tab size 1" consistency check that raises TabError), string prefixes, triple-quoted strings,
// and f-strings whose replacement fields may hold nested strings (PEP 701). Anything CPython would
// reject becomes an error token, so a fix that turns an error into valid code (or back) changes the
// stream and fails its proof.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <string>

#include "tokens.hpp"

namespace skillrt::ci_fix {
namespace {

bool is_name_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool is_name_char(unsigned char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
// The blanks CPython skips between tokens. A vertical tab is not one of them: CPython rejects it
// ("invalid non-printable character U+000B"), so it is an error token, and a fix that removes it
// turns an invalid file into a valid one.
bool is_hspace(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// Length of the operator at i (longest match), 0 when none.
size_t match_op(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return i + k < s.size() ? s[i + k] : '\0'; };
  char c = s[i];
  char d = at(1);
  switch (c) {
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
    case ',':
    case ';':
    case '~':
      return 1;
    case '.':
      return d == '.' && at(2) == '.' ? 3 : 1;
    case ':':
      return d == '=' ? 2 : 1;
    case '-':
      return d == '=' || d == '>' ? 2 : 1;
    case '*':
    case '/':
    case '<':
    case '>':
      if (d == c) return at(2) == '=' ? 3 : 2;  // ** // << >> and **= //= <<= >>=
      return d == '=' ? 2 : 1;
    case '+':
    case '%':
    case '&':
    case '|':
    case '^':
    case '@':
    case '=':
      return d == '=' ? 2 : 1;
    case '!':
      return d == '=' ? 2 : 0;
    default:
      return 0;
  }
}

// Length of a valid string prefix at i followed by a quote, or 0 (then it is a name).
size_t string_prefix(std::string_view s, size_t i, bool* is_f, bool* is_raw) {
  size_t j = i;
  bool f = false, r = false, b = false, u = false, t = false;
  while (j < s.size() && j - i < 3) {
    char c = static_cast<char>(s[j] | 0x20);
    if (c == 'f' && !f && !b && !u && !t) {
      f = true;
    } else if (c == 't' && !t && !f && !b && !u) {
      t = true;  // PEP 750 template strings scan like f-strings
    } else if (c == 'r' && !r && !u) {
      r = true;
    } else if (c == 'b' && !b && !f && !u && !t) {
      b = true;
    } else if (c == 'u' && j == i && !r) {
      u = true;
    } else {
      break;
    }
    ++j;
  }
  if (j == i || j >= s.size() || (s[j] != '\'' && s[j] != '"')) return 0;
  if (u && j - i > 1) return 0;
  *is_f = f || t;
  *is_raw = r;
  return j - i;
}

class PyLexer {
 public:
  explicit PyLexer(std::string_view s) : s_(s) {}

  TokenStream run() {
    TokenStream out;
    out.lang = Language::kPython;
    toks_ = &out.tokens;
    out.tokens.reserve(s_.size() / 4 + 16);
    size_t n = s_.size();
    size_t i = 0;
    if (s_.size() >= 3 && std::memcmp(s_.data(), "\xEF\xBB\xBF", 3) == 0) {
      push(TokKind::kBom, 0, 3);
      i = 3;
    }
    bool at_line_start = true;
    bool continued = false;  // the previous physical line ended with a backslash
    while (i < n) {
      if (at_line_start) {
        at_line_start = false;
        i = line_start(i, continued);
        continued = false;
        continue;
      }
      char c = s_[i];
      if (is_hspace(c)) {
        ++i;
        continue;
      }
      if (c == '\n' || c == '\r') {
        size_t e = i + 1;
        if (c == '\r' && e < n && s_[e] == '\n') ++e;
        bool logical = depth_ == 0 && line_has_code_;
        push(logical ? TokKind::kNewline : TokKind::kNl, i, e);
        if (logical) line_has_code_ = false;
        line_ += 1;
        i = e;
        at_line_start = true;
        continue;
      }
      if (c == '#') {
        size_t e = i;
        while (e < n && s_[e] != '\n' && s_[e] != '\r') ++e;
        size_t t = e;
        while (t > i && is_hspace(s_[t - 1])) --t;
        std::string_view text = s_.substr(i, t - i);
        bool directive = is_directive_comment(text, line_, Language::kPython);
        push(directive ? TokKind::kDirectiveComment : TokKind::kComment, i, t);
        // A shebang works on line 1 only and a coding cookie on lines 1-2: moving one changes
        // how the file runs or is decoded.
        if (directive && line_ <= 2 &&
            (text.substr(0, 2) == "#!" || text.find("coding") != std::string_view::npos)) {
          toks_->back().flags |= kTokPositional;
        }
        i = e;
        continue;
      }
      if (c == '\\') {
        size_t e = i + 1;
        if (e < n && (s_[e] == '\n' || s_[e] == '\r')) {
          if (s_[e] == '\r' && e + 1 < n && s_[e + 1] == '\n') ++e;
          i = e + 1;
          line_ += 1;
          at_line_start = true;
          continued = true;
          continue;
        }
        code(TokKind::kError, i, i + 1);  // a backslash not followed by a newline
        i = e;
        continue;
      }
      auto uc = static_cast<unsigned char>(c);
      if (is_name_start(uc)) {
        bool is_f = false, is_raw = false;
        size_t plen = string_prefix(s_, i, &is_f, &is_raw);
        if (plen > 0) {
          i = string(i, i + plen, is_f, is_raw);
          continue;
        }
        size_t e = i + 1;
        while (e < n && is_name_char(static_cast<unsigned char>(s_[e]))) ++e;
        code(TokKind::kName, i, e);
        i = e;
        continue;
      }
      if (c == '\'' || c == '"') {
        i = string(i, i, false, false);
        continue;
      }
      if (is_digit(uc) ||
          (c == '.' && i + 1 < n && is_digit(static_cast<unsigned char>(s_[i + 1])))) {
        size_t e = number(i);
        code(TokKind::kNumber, i, e);
        i = e;
        continue;
      }
      size_t len = match_op(s_, i);
      if (len > 0) {
        if (c == '(' || c == '[' || c == '{') ++depth_;
        if ((c == ')' || c == ']' || c == '}') && depth_ > 0) --depth_;
        code(TokKind::kOp, i, i + len);
        i += len;
        continue;
      }
      // '$', '?', '`', '!' alone, control characters: CPython rejects them.
      size_t e = i + 1;
      while (e < n && (static_cast<unsigned char>(s_[e]) & 0xC0) == 0x80) ++e;
      code(TokKind::kError, i, e);
      i = e;
    }
    if (line_has_code_) push(TokKind::kNewline, static_cast<uint32_t>(n), static_cast<uint32_t>(n));
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(TokKind::kDedent, n, n);
    }
    push(TokKind::kEnd, n, n);
    return out;
  }

 private:
  void push(TokKind kind, size_t b, size_t e) {
    Token t;
    t.begin = static_cast<uint32_t>(b);
    t.end = static_cast<uint32_t>(e);
    t.line = line_;
    t.kind = kind;
    toks_->push_back(t);
  }
  void code(TokKind kind, size_t b, size_t e) {
    push(kind, b, e);
    line_has_code_ = true;
  }

  // Measures the indentation of a physical line and emits INDENT/DEDENT when it starts a logical
  // line. Returns the offset of the first non-blank character.
  size_t line_start(size_t i, bool continued) {
    int col = 0, alt = 0;
    size_t j = i;
    size_t n = s_.size();
    while (j < n) {
      char c = s_[j];
      if (c == ' ') {
        ++col;
        ++alt;
      } else if (c == '\t') {
        col = (col / 8 + 1) * 8;
        ++alt;
      } else if (c == '\f') {
        col = alt = 0;
      } else {
        break;
      }
      ++j;
    }
    if (j >= n || continued || depth_ > 0) return j;
    char c = s_[j];
    if (c == '\n' || c == '\r' || c == '#') return j;  // blank or comment-only: no indentation
    if (col == indents_.back()) {
      if (alt != alt_indents_.back()) push(TokKind::kError, j, j);  // TabError
    } else if (col > indents_.back()) {
      if (alt <= alt_indents_.back()) push(TokKind::kError, j, j);
      indents_.push_back(col);
      alt_indents_.push_back(alt);
      push(TokKind::kIndent, j, j);
    } else {
      while (indents_.size() > 1 && col < indents_.back()) {
        indents_.pop_back();
        alt_indents_.pop_back();
        push(TokKind::kDedent, j, j);
      }
      if (col != indents_.back() || alt != alt_indents_.back()) push(TokKind::kError, j, j);
    }
    return j;
  }

  size_t number(size_t i) {
    size_t n = s_.size();
    size_t e = i;
    auto digits = [&](auto pred) {
      while (e < n && (pred(static_cast<unsigned char>(s_[e])) || s_[e] == '_')) ++e;
    };
    if (s_[e] == '0' && e + 1 < n &&
        std::string_view("xXoObB").find(s_[e + 1]) != std::string_view::npos) {
      e += 2;
      digits([](unsigned char c) { return std::isxdigit(c) != 0; });
      return e;
    }
    digits(is_digit);
    if (e < n && s_[e] == '.') {
      ++e;
      digits(is_digit);
    }
    if (e < n && (s_[e] == 'e' || s_[e] == 'E')) {
      size_t k = e + 1;
      if (k < n && (s_[k] == '+' || s_[k] == '-')) ++k;
      if (k < n && is_digit(static_cast<unsigned char>(s_[k]))) {
        e = k;
        digits(is_digit);
      }
    }
    if (e < n && (s_[e] == 'j' || s_[e] == 'J')) ++e;
    return e;
  }

  // Scans a string literal whose prefix starts at `begin` and whose quote is at `q`; emits it
  // (or an error token when unterminated) and returns the offset after it.
  size_t string(size_t begin, size_t q, bool is_f, bool is_raw) {
    uint32_t first_line = line_;
    size_t e = scan_string(q, is_f, is_raw);
    bool ok = e != std::string_view::npos;
    if (!ok) {
      // Unterminated: the rest of the line (single quotes) or of the file (triple quotes) is
      // an error token, which keeps every later change visible to the proof.
      bool triple = s_.compare(q, 3, std::string(3, s_[q])) == 0;
      e = q + 1;
      if (triple) {
        e = s_.size();
      } else {
        while (e < s_.size() && s_[e] != '\n' && s_[e] != '\r') ++e;
      }
    }
    Token t;
    t.begin = static_cast<uint32_t>(begin);
    t.end = static_cast<uint32_t>(e);
    t.line = first_line;
    t.kind = ok ? TokKind::kString : TokKind::kError;
    toks_->push_back(t);
    line_has_code_ = true;
    for (size_t k = begin; k < e; ++k) {
      if (s_[k] == '\n' || (s_[k] == '\r' && (k + 1 >= e || s_[k + 1] != '\n'))) ++line_;
    }
    return e;
  }

  // Returns the offset after the closing quote, or npos when the literal is not closed.
  size_t scan_string(size_t q, bool is_f, bool is_raw) {
    size_t n = s_.size();
    char quote = s_[q];
    bool triple = q + 2 < n && s_[q + 1] == quote && s_[q + 2] == quote;
    size_t i = q + (triple ? 3 : 1);
    while (i < n) {
      char c = s_[i];
      if (c == '\\') {
        i += 2;  // in raw strings too, a backslash keeps the next quote from closing the literal
        if (i - 1 < n && s_[i - 1] == '\r' && i < n && s_[i] == '\n') ++i;
        continue;
      }
      if (!triple && (c == '\n' || c == '\r')) return std::string_view::npos;
      if (c == quote) {
        if (!triple) return i + 1;
        if (i + 2 < n && s_[i + 1] == quote && s_[i + 2] == quote) return i + 3;
      }
      if (is_f && c == '{') {
        if (i + 1 < n && s_[i + 1] == '{') {
          i += 2;
          continue;
        }
        size_t e = replacement_field(i, triple);
        if (e == std::string_view::npos) return e;
        i = e;
        continue;
      }
      ++i;
    }
    (void)is_raw;
    return std::string_view::npos;
  }

  // An f-string replacement field starting at the '{' at i: brackets balance, nested strings
  // (any prefix, any quote) are skipped whole. Returns the offset after the closing '}'.
  size_t replacement_field(size_t i, bool triple) {
    size_t n = s_.size();
    int depth = 0;
    while (i < n) {
      char c = s_[i];
      if (!triple && (c == '\n' || c == '\r')) return std::string_view::npos;
      if (c == '{' || c == '(' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ')' || c == ']') {
        if (--depth == 0) return i + 1;
      } else if (c == '\'' || c == '"') {
        size_t e = scan_string(i, false, false);
        if (e == std::string_view::npos) return e;
        i = e;
        continue;
      } else if (is_name_start(static_cast<unsigned char>(c))) {
        bool is_f = false, is_raw = false;
        size_t plen = string_prefix(s_, i, &is_f, &is_raw);
        if (plen > 0) {
          size_t e = scan_string(i + plen, is_f, is_raw);
          if (e == std::string_view::npos) return e;
          i = e;
          continue;
        }
        while (i < n && is_name_char(static_cast<unsigned char>(s_[i]))) ++i;
        continue;
      }
      ++i;
    }
    return std::string_view::npos;
  }

  std::string_view s_;
  std::vector<Token>* toks_ = nullptr;
  std::vector<int> indents_{0};
  std::vector<int> alt_indents_{0};
  int depth_ = 0;
  bool line_has_code_ = false;
  uint32_t line_ = 1;
};

}  // namespace

TokenStream tokenize_python(std::string_view src) { return PyLexer(src).run(); }

}  // namespace skillrt::ci_fix
