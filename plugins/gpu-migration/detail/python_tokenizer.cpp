#include "detail/python_tokenizer.hpp"

#include <algorithm>

namespace skillrt::gpu_migration::detail {
namespace {

// Byte classes by table: the tokenizer asks for every byte of every source file.
constexpr uint8_t kIdentStart = 1;
constexpr uint8_t kIdentChar = 2;
constexpr uint8_t kBlank = 4;
// Bytes the general dispatch reads as a one-byte operator that opens, closes or leaves the
// bracket depth alone ('.' is not one: it may start a number).
constexpr uint8_t kOpen = 8;
constexpr uint8_t kClose = 16;
constexpr uint8_t kPlainOp = 32;

struct ByteClasses {
  uint8_t of[256] = {};
  constexpr ByteClasses() {
    for (int c = 0; c < 256; ++c) {
      const bool start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
      const bool digit = c >= '0' && c <= '9';
      const bool blank = c == ' ' || c == '\t' || c == '\f' || c == '\r';
      if (start) of[c] |= kIdentStart | kIdentChar;
      if (digit) of[c] |= kIdentChar;
      if (blank) of[c] |= kBlank;
      if (c == '(' || c == '[' || c == '{') {
        of[c] |= kOpen;
      } else if (c == ')' || c == ']' || c == '}') {
        of[c] |= kClose;
      } else if (!start && !digit && !blank && c != '\n' && c != '#' && c != '\\' && c != '"' &&
                 c != '\'' && c != '.') {
        of[c] |= kPlainOp;
      }
    }
  }
};
constexpr ByteClasses kBytes;

bool is_ident_start(unsigned char c) { return (kBytes.of[c] & kIdentStart) != 0; }

bool is_ident_char(unsigned char c) { return (kBytes.of[c] & kIdentChar) != 0; }

bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

// Python allows at most two prefix letters, u alone, and never b together with f.
bool string_prefix(std::string_view p, bool* fstring) {
  if (p.size() > 2) return false;
  bool f = false, b = false, r = false, u = false;
  for (char ch : p) {
    switch (ch) {
      case 'f':
      case 'F':
        if (f) return false;
        f = true;
        break;
      case 'b':
      case 'B':
        if (b) return false;
        b = true;
        break;
      case 'r':
      case 'R':
        if (r) return false;
        r = true;
        break;
      case 'u':
      case 'U':
        if (u) return false;
        u = true;
        break;
      default:
        return false;
    }
  }
  if (u && p.size() > 1) return false;
  if (f && b) return false;
  *fstring = f;
  return true;
}

class Tokenizer {
 public:
  Tokenizer(std::string_view src, TokenStream* out, const LineFilter* filter,
            const LineFilter* extra)
      : src_(src), out_(out), filter_(filter), extra_(extra) {}

  void run(size_t begin, size_t end, bool in_fstring) {
    int depth = 0;
    bool code_since_newline = false;
    size_t i = begin;
    auto push = [&](TokenKind kind, size_t b, size_t e) {
      if (kind != TokenKind::kComment && kind != TokenKind::kNewline) code_since_newline = true;
      if (kind == TokenKind::kName && filter_ != nullptr && !wanted_ &&
          wants_name(src_.substr(b, e - b))) {
        wanted_ = true;
      }
      if (!emit_) return;
      Token t;
      t.kind = kind;
      t.begin = b;
      t.end = e;
      t.in_fstring = in_fstring;
      out_->tokens.push_back(t);
    };
    // A logical line ends at [b, e). With a filter, a line is first read without storing tokens;
    // when the filter wants it, it is read again from its start, storing them (true: `i` was
    // moved back). Storing every token only to drop most of them cost more than the rereading.
    auto end_of_line = [&](size_t b, size_t e) {
      code_since_newline = false;
      if (filter_ != nullptr && !replaying_) {
        if (wanted_) {
          replaying_ = true;
          emit_ = true;
          i = line_begin_;
          depth = 0;
          return true;
        }
        line_begin_ = e;
        return false;
      }
      push(TokenKind::kNewline, b, e);
      if (filter_ != nullptr) {
        replaying_ = false;
        emit_ = false;
        wanted_ = false;
        line_begin_ = e;
      }
      return false;
    };
    while (i < end) {
      if (!emit_) {
        // Most of a file is read this way: a line the filter has not asked for yet.
        i = skim(i, end, &depth, &code_since_newline);
        if (i >= end) break;
      }
      const unsigned char c = static_cast<unsigned char>(src_[i]);
      if (kBytes.of[c] & kBlank) {
        ++i;
        while (i < end && (kBytes.of[static_cast<unsigned char>(src_[i])] & kBlank)) ++i;
        continue;
      }
      if (c == '\n') {
        if (depth == 0 && !in_fstring && code_since_newline && end_of_line(i, i + 1)) continue;
        ++i;
        continue;
      }
      if (c == '#') {
        size_t e = src_.find('\n', i);
        if (e == std::string_view::npos || e > end) e = end;
        push(TokenKind::kComment, i, e);
        i = e;
        continue;
      }
      if (c == '\\') {
        size_t j = i + 1;
        if (j < end && src_[j] == '\r') ++j;
        if (j < end && src_[j] == '\n') {
          i = j + 1;  // explicit line joining: the logical line goes on
          continue;
        }
        error(i, "a backslash outside a string must end the line");
        i = j;
        continue;
      }
      if (c == '"' || c == '\'') {
        i = string_at(i, i, end, false, in_fstring);
        continue;
      }
      if (is_ident_start(c)) {
        size_t j = i + 1;
        while (j < end && is_ident_char(static_cast<unsigned char>(src_[j]))) ++j;
        bool fstring = false;
        if (j < end && (src_[j] == '"' || src_[j] == '\'') &&
            string_prefix(src_.substr(i, j - i), &fstring)) {
          i = string_at(i, j, end, fstring, in_fstring);
          continue;
        }
        push(TokenKind::kName, i, j);
        i = j;
        continue;
      }
      if (is_digit(c) ||
          (c == '.' && i + 1 < end && is_digit(static_cast<unsigned char>(src_[i + 1])))) {
        size_t j = i + 1;
        while (j < end) {
          const unsigned char d = static_cast<unsigned char>(src_[j]);
          if ((d == 'e' || d == 'E') && j + 1 < end && (src_[j + 1] == '+' || src_[j + 1] == '-') &&
              !(src_[i] == '0' && i + 1 < end && (src_[i + 1] == 'x' || src_[i + 1] == 'X'))) {
            j += 2;
            continue;
          }
          if (!is_ident_char(d) && d != '.') break;
          ++j;
        }
        push(TokenKind::kNumber, i, j);
        i = j;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++depth;
      if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
      push(TokenKind::kOp, i, i + 1);
      ++i;
    }
    // The last logical line may have no newline; when it is read again, this loop runs again.
    if (!in_fstring && code_since_newline && end_of_line(end, end)) run(i, end, false);
  }

 private:
  // Reading a line without storing its tokens, names are only offered to the filter and
  // operators only move the bracket depth: both are passed over here, without the general
  // dispatch. Returns where a byte needs that dispatch: a string (or a name that may be its
  // prefix), a comment, a number, a backslash or a newline. The tokens it passes over are the
  // ones the general dispatch would read there, so the lines found and the errors are the same.
  size_t skim(size_t i, size_t end, int* depth, bool* code) {
    const char* s = src_.data();
    while (i < end) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      const uint8_t k = kBytes.of[c];
      if (k & kBlank) {
        ++i;
        continue;
      }
      if (k & kIdentStart) {
        size_t j = i + 1;
        while (j < end && (kBytes.of[static_cast<unsigned char>(s[j])] & kIdentChar)) ++j;
        if (j < end && (s[j] == '"' || s[j] == '\'')) return i;
        *code = true;
        if (!wanted_ && wants_name(std::string_view(s + i, j - i))) wanted_ = true;
        i = j;
        continue;
      }
      if (k & (kPlainOp | kOpen | kClose)) {
        if (k & kOpen) ++*depth;
        if ((k & kClose) && *depth > 0) --*depth;
        *code = true;
        ++i;
        continue;
      }
      if (c == '.' && !(i + 1 < end && is_digit(static_cast<unsigned char>(s[i + 1])))) {
        *code = true;
        ++i;
        continue;
      }
      return i;
    }
    return i;
  }

  void error(size_t offset, std::string message) {
    if (replaying_) return;  // reported when the line was first read
    out_->errors.push_back(TokenizeError{offset, std::move(message)});
  }

  // `start` is where the prefix begins, `quote` where the opening quote is. Returns the offset
  // after the string.
  size_t string_at(size_t start, size_t quote, size_t end, bool fstring, bool in_fstring) {
    const char q = src_[quote];
    const bool triple = quote + 2 < end && src_[quote + 1] == q && src_[quote + 2] == q;
    const size_t open = triple ? 3 : 1;
    const size_t content_begin = quote + open;
    size_t i = content_begin;
    size_t content_end = end;
    size_t after = end;
    bool terminated = false;
    int field_depth = 0;  // inside an f-string replacement field
    while (i < end) {
      const char c = src_[i];
      if (c == '\\') {
        i += 2;
        continue;
      }
      if (fstring) {
        if (c == '{') {
          if (field_depth == 0 && i + 1 < end && src_[i + 1] == '{') {
            i += 2;
            continue;
          }
          ++field_depth;
          ++i;
          continue;
        }
        if (c == '}' && field_depth > 0) {
          --field_depth;
          ++i;
          continue;
        }
        if (field_depth > 0 && (c == '\'' || c == '"')) {
          // A string inside a field; Python 3.12 lets it reuse the enclosing quote.
          size_t j = i + 1;
          while (j < end && src_[j] != c && src_[j] != '\n') j += src_[j] == '\\' ? 2 : 1;
          i = j + 1;
          continue;
        }
      }
      if (c == q && (!triple || (i + 2 < end && src_[i + 1] == q && src_[i + 2] == q))) {
        content_end = i;
        after = i + open;
        terminated = true;
        break;
      }
      if (c == '\n' && !triple) {
        content_end = i;
        after = i;
        break;
      }
      ++i;
    }
    if (i >= end) {
      content_end = end;
      after = end;
    }
    if (!terminated) {
      error(start, triple ? "unterminated triple-quoted string" : "unterminated string literal");
    }
    Token t;
    t.kind = TokenKind::kString;
    t.begin = start;
    t.end = after;
    t.content_begin = content_begin;
    t.content_end = std::min(content_end, end);
    t.fstring = fstring;
    t.in_fstring = in_fstring;
    if (emit_) out_->tokens.push_back(t);
    if (filter_ != nullptr && !wanted_ &&
        filter_->wants_string(src_.substr(t.content_begin, t.content_end - t.content_begin))) {
      wanted_ = true;
    }
    if (fstring) fields(t.content_begin, t.content_end);
    return after;
  }

  // Tokenizes the expressions of an f-string's replacement fields as code.
  void fields(size_t begin, size_t end) {
    size_t i = begin;
    while (i < end) {
      const char c = src_[i];
      if (c == '{' && i + 1 < end && src_[i + 1] == '{') {
        i += 2;
        continue;
      }
      if (c != '{') {
        ++i;
        continue;
      }
      size_t j = i + 1;
      int depth = 0;
      size_t expr_end = std::string_view::npos;
      while (j < end) {
        const char d = src_[j];
        if (d == '\'' || d == '"') {
          const char q = d;
          ++j;
          while (j < end && src_[j] != q) j += (src_[j] == '\\') ? 2 : 1;
          ++j;
          continue;
        }
        if (d == '(' || d == '[' || d == '{') ++depth;
        if (d == ')' || d == ']') --depth;
        if (d == '}') {
          if (depth == 0) break;
          --depth;
        }
        if (depth == 0 && expr_end == std::string_view::npos &&
            ((d == '!' && j + 1 < end && src_[j + 1] != '=') || d == ':')) {
          expr_end = j;
        }
        ++j;
      }
      if (expr_end == std::string_view::npos) expr_end = std::min(j, end);
      run(i + 1, expr_end, true);
      // A format specification may hold replacement fields of its own, f"{x:{width}}", whose
      // expressions are code like the field's. Python allows two levels; the bound keeps a
      // hostile file from recursing without end.
      if (expr_end < std::min(j, end) && spec_depth_ < kMaxSpecDepth) {
        ++spec_depth_;
        fields(expr_end + 1, std::min(j, end));
        --spec_depth_;
      }
      i = j + 1;
    }
  }

  bool wants_name(std::string_view name) const {
    return filter_->wants_name(name) || (extra_ != nullptr && extra_->wants_name(name));
  }

  std::string_view src_;
  TokenStream* out_;
  const LineFilter* filter_;
  const LineFilter* extra_;         // names wanted for this source only (import aliases)
  bool emit_ = filter_ == nullptr;  // tokens are stored (always without a filter)
  bool replaying_ = false;          // reading a wanted line the second time
  bool wanted_ = false;             // the filter wants the line being read
  size_t line_begin_ = 0;           // where the logical line being read starts
  static constexpr int kMaxSpecDepth = 8;
  int spec_depth_ = 0;  // format specifications being read inside one another
};

}  // namespace

void LineFilter::add_name(std::string_view name) {
  if (name.empty()) return;
  const uint32_t bit = 1u << (name.size() & 31);
  by_first_[static_cast<unsigned char>(name.front())] |= bit;
  by_last_[static_cast<unsigned char>(name.back())] |= bit;
  names_.insert(name);
}

void LineFilter::add_needle(std::string_view needle) {
  if (needle.empty()) {
    every_string_ = true;
    return;
  }
  if (std::find(needles_.begin(), needles_.end(), needle) == needles_.end()) {
    needles_.push_back(needle);
  }
}

bool LineFilter::wants_string(std::string_view content) const {
  if (every_string_) return true;
  for (std::string_view n : needles_) {
    if (content.find(n) != std::string_view::npos) return true;
  }
  return false;
}

TokenStream tokenize_python(std::string_view source) {
  TokenStream out;
  tokenize_python(source, &out);
  return out;
}

void tokenize_python(std::string_view source, TokenStream* out, const LineFilter* filter,
                     const LineFilter* extra) {
  out->tokens.clear();
  out->errors.clear();
  out->tokens.reserve(filter != nullptr ? 256 : source.size() / 4);
  Tokenizer(source, out, filter, extra).run(0, source.size(), false);
}

LineIndex::LineIndex(std::string_view text) { assign(text); }

void LineIndex::assign(std::string_view text) {
  text_ = text;
  starts_.clear();
  starts_.push_back(0);
  for (size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1)) {
    if (i + 1 < text.size()) starts_.push_back(i + 1);
  }
}

int LineIndex::line_of(size_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<int>(it - starts_.begin());
}

int LineIndex::column_of(size_t offset) const {
  return static_cast<int>(offset - starts_[line_of(offset) - 1]) + 1;
}

size_t LineIndex::line_begin(int line) const {
  if (line < 1) return 0;
  if (line > line_count()) return text_.size();
  return starts_[line - 1];
}

std::string_view LineIndex::line_text(int line) const {
  if (line < 1 || line > line_count()) return {};
  const size_t b = starts_[line - 1];
  size_t e = text_.find('\n', b);
  if (e == std::string_view::npos) e = text_.size();
  if (e > b && text_[e - 1] == '\r') --e;
  return text_.substr(b, e - b);
}

}  // namespace skillrt::gpu_migration::detail
