// C/C++ preprocessing-token tokenizer for the proofs (translation phases 1-3 as far as layout
// changes can matter): line splices are removed everywhere except inside raw strings, where the
// standard reverts them; comments (also spliced ones) are layout; a newline that ends a
// preprocessor directive is a token; header names after #include are one token; pp-numbers
// follow the standard (0xe+1 is one token); literals carry their encoding prefix and ud-suffix.
//
// Whitespace between two tokens is not always invisible in C/C++: the # operator turns a macro
// argument's spelling into a string, keeping one space wherever the argument had whitespace
// between tokens. TORCH_CHECK(a==b) reports "a==b", TORCH_CHECK(a == b) reports "a == b". So the
// tokenizer marks tokens inside the arguments of macro-like calls, and tokens of directives, as
// spacing-sensitive; a proof then also compares whether whitespace separates them.
#include <string>
#include <unordered_set>

#include "tokens.hpp"

namespace skillrt::ci_fix {
namespace {

bool is_id_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}
bool is_id_char(unsigned char c) { return is_id_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

// Punctuators, longest first.
constexpr std::string_view kPunct[] = {
    "%:%:", "...", "<=>", "->*", "<<=", ">>=", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
    "!=",   "&&",  "||",  "+=",  "-=",  "*=",  "/=", "%=", "&=", "|=", "^=", "##", ".*", "<:", ":>",
    "<%",   "%>",  "%:",  "{",   "}",   "[",   "]",  "(",  ")",  ";",  ":",  "?",  ".",  "+",  "-",
    "*",    "/",   "%",   "^",   "&",   "|",   "~",  "!",  "=",  "<",  ">",  ",",  "#"};

class CppLexer {
 public:
  explicit CppLexer(std::string_view s) : s_(s) {}

  TokenStream run() {
    TokenStream out;
    out.lang = Language::kCpp;
    toks_ = &out.tokens;
    out.tokens.reserve(s_.size() / 4 + 16);
    size_t n = s_.size();
    size_t i = 0;
    if (n >= 3 && s_.substr(0, 3) == "\xEF\xBB\xBF") {
      push(TokKind::kBom, 0, 3);
      i = 3;
    }
    bool line_start = true;
    int directive_tokens = -1;  // tokens seen in the current directive, -1 outside one
    bool expect_header = false;
    while (true) {
      i = skip_splices(i);
      if (i >= n) break;
      char c = s_[i];
      if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
        ++i;
        continue;
      }
      if (c == '\n' || c == '\r') {
        size_t e = i + 1;
        if (c == '\r' && e < n && s_[e] == '\n') ++e;
        push(directive_tokens >= 0 ? TokKind::kDirectiveEnd : TokKind::kNl, i, e);
        directive_tokens = -1;
        in_define_ = false;
        expect_header = false;
        line_start = true;
        ++line_;
        i = e;
        continue;
      }
      if (c == '/' && peek(i, 1) == '/') {
        i = line_comment(i);
        continue;
      }
      if (c == '/' && peek(i, 1) == '*') {
        i = block_comment(i);
        continue;
      }
      bool starts_directive = false;
      if (line_start && (c == '#' || (c == '%' && peek(i, 1) == ':' && !(peek(i, 2) == '%')))) {
        starts_directive = true;
      }
      line_start = false;
      if (expect_header && c == '<') {
        size_t e = i + 1;
        while (e < n && s_[e] != '>' && s_[e] != '\n' && s_[e] != '\r') ++e;
        if (e < n && s_[e] == '>') {
          sig(TokKind::kHeaderName, i, e + 1);
          i = e + 1;
          expect_header = false;
          if (directive_tokens >= 0) ++directive_tokens;
          continue;
        }
      }
      expect_header = false;
      size_t before = toks_->size();
      i = token(i);
      if (starts_directive) directive_tokens = 0;
      if (directive_tokens >= 0 && toks_->size() > before) {
        ++directive_tokens;
        const Token& t = toks_->back();
        if (directive_tokens == 2 && t.kind == TokKind::kName) {
          std::string name = token_text(s_, t, Language::kCpp);
          expect_header = name == "include" || name == "include_next" || name == "import";
          in_define_ = name == "define";
        } else if (directive_tokens == 3 && in_define_ && t.kind == TokKind::kName) {
          define_name_ = token_text(s_, t, Language::kCpp);
        } else if (directive_tokens == 4 && in_define_ && (t.flags & kTokAdjacent) &&
                   token_text(s_, t, Language::kCpp) == "(") {
          function_macros_.insert(define_name_);
        }
        // A macro's name and body may be spelled into a string after expansion (STR(X) with
        // #define STR(x) XSTR(x)) and are compared by spelling on redefinition, and the space
        // between name and '(' decides function-like or object-like: spacing is observable.
        // Conditions (#if) and other directives are not spelled anywhere.
        if (directive_tokens >= 3 && in_define_) toks_->back().flags |= kTokSensitive;
      }
    }
    // The end of the file ends the last line, and a directive on it ([lex.phases]: a missing
    // final newline is implied), as a newline there would.
    if (directive_tokens >= 0) push(TokKind::kDirectiveEnd, n, n);
    push(TokKind::kEnd, n, n);
    mark_macro_arguments(out);
    return out;
  }

 private:
  // Index of the first character at or after i that is not the start of a line splice.
  size_t skip_splices(size_t i) const {
    size_t n = s_.size();
    while (i + 1 < n && s_[i] == '\\') {
      if (s_[i + 1] == '\n') {
        i += 2;
      } else if (s_[i + 1] == '\r') {
        i += (i + 2 < n && s_[i + 2] == '\n') ? 3 : 2;
      } else {
        break;
      }
      ++pending_lines_;
    }
    if (pending_lines_ > 0) {
      line_ += pending_lines_;
      pending_lines_ = 0;
    }
    return i;
  }
  // The k-th logical character after i (splices skipped), or 0 past the end.
  char peek(size_t i, int k) const {
    size_t j = i;
    uint32_t saved = line_;
    for (int m = 0; m < k; ++m) j = skip_splices(j + 1);
    line_ = saved;
    return j < s_.size() ? s_[j] : '\0';
  }
  size_t next(size_t i) const { return skip_splices(i + 1); }

  void push(TokKind kind, size_t b, size_t e, uint32_t line = 0) {
    Token t;
    t.begin = static_cast<uint32_t>(b);
    t.end = static_cast<uint32_t>(e);
    t.line = line == 0 ? line_ : line;
    t.kind = kind;
    toks_->push_back(t);
  }
  // A significant token: records whether it touches the previous significant token.
  void sig(TokKind kind, size_t b, size_t e, uint32_t line = 0) {
    push(kind, b, e, line);
    Token& t = toks_->back();
    if (has_prev_ && adjacent(prev_end_, b)) t.flags |= kTokAdjacent;
    for (size_t k = b; k + 1 < e; ++k) {
      if (s_[k] == '\\' && (s_[k + 1] == '\n' || s_[k + 1] == '\r')) {
        t.flags |= kTokSpliced;
        break;
      }
    }
    has_prev_ = true;
    prev_end_ = e;
  }
  bool adjacent(size_t a, size_t b) const {
    // Only splices may lie between two touching tokens.
    return skip_splices_const(a) >= b;
  }
  size_t skip_splices_const(size_t i) const {
    uint32_t saved = line_;
    size_t r = skip_splices(i);
    line_ = saved;
    return r;
  }

  size_t line_comment(size_t i) {
    size_t n = s_.size();
    uint32_t first = line_;
    size_t e = i;
    size_t last = i;  // end of the last non-blank character
    while (e < n) {
      e = skip_splices(e);
      if (e >= n || s_[e] == '\n' || s_[e] == '\r') break;
      if (s_[e] != ' ' && s_[e] != '\t' && s_[e] != '\f' && s_[e] != '\v') last = e + 1;
      ++e;
    }
    std::string_view raw = s_.substr(i, last - i);
    bool directive = raw.find('\\') == std::string_view::npos
                         ? is_directive_comment(raw, first, Language::kCpp)
                         : is_directive_comment(token_text(s_,
                                                           Token{static_cast<uint32_t>(i),
                                                                 static_cast<uint32_t>(last), first,
                                                                 TokKind::kComment, kTokSpliced},
                                                           Language::kCpp),
                                                first, Language::kCpp);
    TokKind kind = directive ? TokKind::kDirectiveComment : TokKind::kComment;
    if (kind == TokKind::kDirectiveComment) {
      sig(kind, i, last, first);
    } else {
      push(kind, i, last, first);
    }
    return e;
  }

  size_t block_comment(size_t i) {
    size_t n = s_.size();
    uint32_t first = line_;
    size_t e = i + 2;
    bool closed = false;
    while (e < n) {
      if (s_[e] == '\n' || (s_[e] == '\r' && (e + 1 >= n || s_[e + 1] != '\n'))) ++line_;
      if (s_[e] == '*' && peek(e, 1) == '/') {
        e = next(e) + 1;
        closed = true;
        break;
      }
      ++e;
    }
    if (!closed) {
      sig(TokKind::kError, i, n, first);  // unterminated: keep the rest of the file visible
      return n;
    }
    if (is_directive_comment(s_.substr(i, e - i), first, Language::kCpp)) {
      sig(TokKind::kDirectiveComment, i, e, first);
    } else {
      push(TokKind::kComment, i, e, first);
    }
    return e;
  }

  // One token starting at i; returns the offset after it. The token's line is the line of i:
  // scanning it (and the splices after it) moves line_ on.
  size_t token(size_t i) {
    size_t n = s_.size();
    const uint32_t first = line_;
    auto c = static_cast<unsigned char>(s_[i]);
    if (is_id_start(c) || (c == '\\' && (peek(i, 1) == 'u' || peek(i, 1) == 'U'))) {
      size_t e = i;
      size_t chars = 0;
      while (e < n) {
        auto d = static_cast<unsigned char>(s_[e]);
        if (is_id_char(d)) {
          e = next(e);
        } else if (d == '\\' && (peek(e, 1) == 'u' || peek(e, 1) == 'U')) {
          e = next(next(e));
        } else {
          break;
        }
        ++chars;
      }
      char q = e < n ? s_[e] : '\0';
      if ((q == '"' || q == '\'') && chars <= 3) {
        // Encoding and raw prefixes are at most three characters: spell them only then.
        std::string spelled = token_text(s_,
                                         Token{static_cast<uint32_t>(i), static_cast<uint32_t>(e),
                                               0, TokKind::kName, kTokSpliced},
                                         Language::kCpp);
        bool raw_prefix = spelled == "R" || spelled == "LR" || spelled == "uR" || spelled == "UR" ||
                          spelled == "u8R";
        bool enc_prefix = spelled == "L" || spelled == "u" || spelled == "U" || spelled == "u8";
        if (q == '"' && raw_prefix) return raw_string(i, e, first);
        if (enc_prefix) return quoted(i, e, first);
      }
      sig(TokKind::kName, i, e, first);
      return e;
    }
    if (c == '"' || c == '\'') return quoted(i, i, first);
    if (is_digit(c) || (c == '.' && is_digit(static_cast<unsigned char>(peek(i, 1))))) {
      char prev = s_[i];
      size_t e = next(i);
      while (e < n) {
        auto d = static_cast<unsigned char>(s_[e]);
        bool sign =
            (d == '+' || d == '-') && (prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P');
        bool separator = d == '\'' && is_id_char(static_cast<unsigned char>(peek(e, 1)));
        if (!sign && !separator && !is_id_char(d) && d != '.') break;
        prev = static_cast<char>(d);
        e = next(e);
      }
      sig(TokKind::kNumber, i, e, first);
      return e;
    }
    // Punctuators. Fast path: no backslash among the next four bytes, so no splice inside.
    std::string_view ahead = s_.substr(i, 4);
    if (ahead.find('\\') == std::string_view::npos) {
      for (std::string_view p : kPunct) {
        if (p[0] != ahead[0] || ahead.compare(0, p.size(), p) != 0) continue;
        size_t e = i + p.size();
        if (p == "<:" && ahead.size() >= 3 && ahead[2] == ':' &&
            (ahead.size() < 4 || (ahead[3] != ':' && ahead[3] != '>'))) {
          e = i + 1;  // <:: not followed by : or > is < followed by :: (C++11 [lex.pptoken]/3)
        }
        sig(TokKind::kOp, i, e, first);
        return e;
      }
    }
    // Compare logically (splices may sit between the characters of one).
    for (std::string_view p : kPunct) {
      const uint32_t saved = line_;  // next() counts the splices it crosses: undone on a miss
      size_t e = i;
      bool ok = true;
      for (char pc : p) {
        if (e >= n || s_[e] != pc) {
          ok = false;
          break;
        }
        e = next(e);
      }
      if (!ok) {
        line_ = saved;
        continue;
      }
      if (p == "<:" && peek(i, 2) == ':' && peek(i, 3) != ':' && peek(i, 3) != '>') {
        // <:: not followed by : or > is < followed by :: (C++11 [lex.pptoken]/3).
        line_ = saved;
        e = next(i);
      }
      sig(TokKind::kOp, i, e, first);
      return e;
    }
    size_t e = i + 1;
    while (e < n && (static_cast<unsigned char>(s_[e]) & 0xC0) == 0x80) ++e;
    sig(TokKind::kError, i, e, first);  // stray backslash, @, backtick...
    return e;
  }

  // A string or character literal (quote at q, prefix from begin), with its ud-suffix.
  size_t quoted(size_t begin, size_t q, uint32_t first) {
    size_t n = s_.size();
    char quote = s_[q];
    size_t e = next(q);
    bool closed = false;
    while (e < n) {
      char c = s_[e];
      if (c == '\n' || c == '\r') break;
      if (c == '\\') {
        e = next(e);
        if (e < n && s_[e] != '\n' && s_[e] != '\r') e = next(e);
        continue;
      }
      if (c == quote) {
        e = next(e);
        closed = true;
        break;
      }
      e = next(e);
    }
    if (closed) {
      while (e < n && is_id_char(static_cast<unsigned char>(s_[e]))) e = next(e);
    }
    sig(closed ? TokKind::kString : TokKind::kError, begin, e, first);
    return e;
  }

  // R"delim( ... )delim": no splices, no escapes.
  size_t raw_string(size_t begin, size_t q, uint32_t first) {
    size_t n = s_.size();
    size_t open = s_.find('(', q + 1);
    size_t e = n;
    bool closed = false;
    if (open != std::string_view::npos && open - q - 1 <= 16) {
      std::string delim(s_.substr(q + 1, open - q - 1));
      bool bad = delim.find_first_of(" \t\n\r\\)\"") != std::string::npos;
      if (!bad) {
        std::string close = ")" + delim + "\"";
        size_t c = s_.find(close, open + 1);
        if (c != std::string_view::npos) {
          e = c + close.size();
          closed = true;
        }
      }
    }
    // Counted from the prefix on: splices in it were already counted while it was read.
    line_ = first;
    for (size_t k = begin; k < e; ++k) {
      if (s_[k] == '\n' || (s_[k] == '\r' && (k + 1 >= e || s_[k + 1] != '\n'))) ++line_;
    }
    if (closed) {
      while (e < n && is_id_char(static_cast<unsigned char>(s_[e]))) ++e;
    }
    Token t;
    t.begin = static_cast<uint32_t>(begin);
    t.end = static_cast<uint32_t>(e);
    t.line = first;
    t.kind = closed ? TokKind::kString : TokKind::kError;
    if (has_prev_ && adjacent(prev_end_, begin)) t.flags |= kTokAdjacent;
    toks_->push_back(t);
    has_prev_ = true;
    prev_end_ = e;
    return e;
  }

  bool macro_like(const std::string& name) const {
    if (function_macros_.count(name) > 0 || name == "assert") return true;
    if (name.size() < 2) return false;
    bool letter = false;
    for (char c : name) {
      if (c >= 'a' && c <= 'z') return false;
      if (c >= 'A' && c <= 'Z') letter = true;
    }
    return letter;
  }

  // Marks the tokens inside the arguments of macro-like calls (NAME followed by '('): whether
  // whitespace separates two tokens of one argument is visible through #.
  void mark_macro_arguments(TokenStream& out) {
    std::vector<size_t> sig_idx;
    for (size_t k = 0; k < out.tokens.size(); ++k) {
      if (is_significant(out.tokens[k].kind)) sig_idx.push_back(k);
    }
    auto text = [&](size_t k) { return token_text(s_, out.tokens[sig_idx[k]], Language::kCpp); };
    size_t k = 0;
    while (k + 1 < sig_idx.size()) {
      const Token& t = out.tokens[sig_idx[k]];
      if (t.kind != TokKind::kName || text(k + 1) != "(" || !macro_like(text(k))) {
        ++k;
        continue;
      }
      // Walk to the matching ')'; tokens of one argument are sensitive to their spacing.
      int depth = 0;
      size_t m = k + 1;
      bool prev_is_boundary = true;
      for (; m < sig_idx.size(); ++m) {
        Token& u = out.tokens[sig_idx[m]];
        std::string tx = text(m);
        if (u.kind == TokKind::kEnd) break;
        bool boundary = false;
        if (tx == "(" || tx == "[" || tx == "{") {
          ++depth;
          boundary = depth == 1;
        } else if (tx == ")" || tx == "]" || tx == "}") {
          --depth;
          boundary = depth == 0;
        } else if (tx == "," && depth == 1) {
          boundary = true;
        }
        if (!boundary && !prev_is_boundary) u.flags |= kTokSensitive;
        prev_is_boundary = boundary;
        if (depth == 0) break;
      }
      k = m + 1;
    }
  }

  std::string_view s_;
  std::vector<Token>* toks_ = nullptr;
  mutable uint32_t line_ = 1;
  mutable uint32_t pending_lines_ = 0;
  bool has_prev_ = false;
  size_t prev_end_ = 0;
  bool in_define_ = false;
  std::string define_name_;
  std::unordered_set<std::string> function_macros_;
};

}  // namespace

TokenStream tokenize_cpp(std::string_view src) { return CppLexer(src).run(); }

}  // namespace skillrt::ci_fix
