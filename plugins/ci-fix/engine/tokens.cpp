// Shared token helpers and the document tokenizer. In Markdown and reStructuredText the text a
// reader sees as code (fenced and indented blocks, literal blocks, inline code, URLs, link targets,
// HTML tags, directives) is significant; prose is layout. So a typo fix in prose proves that no
// code sample, URL or identifier in backticks changed.
#include <algorithm>
#include <cctype>
#include <string>

#include "tokens.hpp"

namespace skillrt::ci_fix {

const char* language_name(Language lang) {
  switch (lang) {
    case Language::kPython:
      return "python";
    case Language::kCpp:
      return "c++";
    case Language::kMarkdown:
      return "markdown";
    case Language::kRst:
      return "rst";
    case Language::kJson:
      return "json";
    case Language::kYaml:
      return "yaml";
    case Language::kNone:
      break;
  }
  return "none";
}

const char* kind_name(TokKind k) {
  switch (k) {
    case TokKind::kName:
      return "NAME";
    case TokKind::kNumber:
      return "NUMBER";
    case TokKind::kString:
      return "STRING";
    case TokKind::kOp:
      return "OP";
    case TokKind::kNewline:
      return "NEWLINE";
    case TokKind::kIndent:
      return "INDENT";
    case TokKind::kDedent:
      return "DEDENT";
    case TokKind::kEnd:
      return "END";
    case TokKind::kError:
      return "ERROR";
    case TokKind::kDirectiveEnd:
      return "DIRECTIVE_END";
    case TokKind::kHeaderName:
      return "HEADER_NAME";
    case TokKind::kDirectiveComment:
      return "DIRECTIVE_COMMENT";
    case TokKind::kBom:
      return "BOM";
    case TokKind::kComment:
      return "COMMENT";
    case TokKind::kNl:
      return "NL";
  }
  return "?";
}

std::string token_text(std::string_view src, const Token& tok, Language lang) {
  std::string_view raw = src.substr(tok.begin, tok.end - tok.begin);
  if (lang == Language::kCpp && (tok.flags & kTokSpliced)) {
    std::string out;
    out.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\\' && i + 1 < raw.size() && (raw[i + 1] == '\n' || raw[i + 1] == '\r')) {
        i += 1;
        if (raw[i] == '\r' && i + 1 < raw.size() && raw[i + 1] == '\n') i += 1;
        continue;
      }
      out += raw[i];
    }
    return out;
  }
  if (lang == Language::kPython && tok.kind == TokKind::kString &&
      raw.find('\r') != std::string_view::npos) {
    std::string out;
    out.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\r') {
        out += '\n';
        if (i + 1 < raw.size() && raw[i + 1] == '\n') ++i;
      } else {
        out += raw[i];
      }
    }
    return out;
  }
  if (lang == Language::kPython && tok.kind == TokKind::kNewline) return "\n";
  return std::string(raw);
}

namespace {

// Case-insensitive search for a lower-case needle, without allocating.
bool contains_ci(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    size_t k = 0;
    while (k < needle.size() &&
           static_cast<char>(std::tolower(static_cast<unsigned char>(hay[i + k]))) == needle[k]) {
      ++k;
    }
    if (k == needle.size()) return true;
  }
  return false;
}

bool has_coding_cookie(std::string_view text) {
  // PEP 263: ^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)
  size_t p = text.find("coding");
  while (p != std::string_view::npos) {
    size_t q = p + 6;
    if (q < text.size() && (text[q] == ':' || text[q] == '=')) return true;
    p = text.find("coding", p + 1);
  }
  return false;
}

}  // namespace

bool is_directive_comment(std::string_view text, uint32_t line, Language lang) {
  static constexpr std::string_view kCommon[] = {"@generated",
                                                 "codespell:", "typos:", "spellchecker:", "nosec"};
  for (std::string_view k : kCommon) {
    if (contains_ci(text, k)) return true;
  }
  if (lang == Language::kPython) {
    if (line == 1 && text.substr(0, 2) == "#!") return true;
    if (line <= 2 && has_coding_cookie(text)) return true;
    static constexpr std::string_view kPy[] = {
        "noqa",     "type:", "pragma", "pylint:", "fmt:",  "isort:",   "mypy:",
        "pyright:", "yapf:", "ruff:",  "flake8:", "pyre-", "autopep8:"};
    for (std::string_view k : kPy) {
      if (contains_ci(text, k)) return true;
    }
    return false;
  }
  static constexpr std::string_view kCppWords[] = {
      "nolint",      "clang-format off",  "clang-format on", "iwyu pragma",
      "fallthrough", "fall through",      "falls through",   "fall-through",
      "fallthru",    "cppcheck-suppress", "coverity[",       "nosonar"};
  for (std::string_view k : kCppWords) {
    if (contains_ci(text, k)) return true;
  }
  return false;
}

namespace {

class DocLexer {
 public:
  DocLexer(std::string_view s, Language lang) : s_(s), rst_(lang == Language::kRst) {}

  TokenStream run(Language lang) {
    TokenStream out;
    out.lang = lang;
    toks_ = &out.tokens;
    size_t n = s_.size();
    size_t i = 0;
    bool prev_blank = true;
    int literal_indent = -1;  // rst: indentation of the paragraph that announced a literal block
    bool literal_pending = false;
    while (i < n) {
      size_t eol = i;
      while (eol < n && s_[eol] != '\n' && s_[eol] != '\r') ++eol;
      size_t next = eol;
      if (next < n && s_[next] == '\r') ++next;
      if (next < n && s_[next] == '\n' && (next == eol || s_[eol] == '\r')) ++next;
      std::string_view line = s_.substr(i, eol - i);
      int indent = indentation(line);
      bool blank = line.find_first_not_of(" \t\f\v") == std::string_view::npos;

      if (!rst_ && is_fence(line)) {
        size_t end = fenced_block_end(i, line);
        code(i, end);
        i = end;
        prev_blank = false;
        continue;
      }
      bool is_code = false;
      if (rst_) {
        if (literal_pending && !blank && indent > literal_indent) is_code = true;
        if (literal_pending && !blank && indent <= literal_indent) literal_pending = false;
        if (!blank && line.substr(static_cast<size_t>(indent), 3) == ".. " &&
            line.find("::") != std::string_view::npos) {
          is_code = true;  // a directive and its body
          literal_pending = true;
          literal_indent = indent;
        } else if (!blank && !is_code && ends_with_double_colon(line)) {
          literal_pending = true;
          literal_indent = indent;
        }
        if (!blank && line.substr(static_cast<size_t>(indent), 4) == ">>> ") is_code = true;
      } else if (!blank && (indent >= 4) && (prev_blank || last_line_code_)) {
        is_code = true;  // indented code block (list continuations are treated as code too)
      }
      size_t start = std::max(i, skip_to_);  // an inline code span may have covered it
      if (is_code) {
        if (start < eol) code(start, eol);
      } else if (!blank && start < eol) {
        prose_line(start, eol);
      }
      last_line_code_ = is_code;
      if (eol < next) push(TokKind::kNl, eol, next);
      ++line_;
      prev_blank = blank;
      i = next;
    }
    push(TokKind::kEnd, n, n);
    return out;
  }

 private:
  static int indentation(std::string_view line) {
    int col = 0;
    for (char c : line) {
      if (c == ' ') {
        ++col;
      } else if (c == '\t') {
        col = (col / 4 + 1) * 4;
      } else {
        break;
      }
    }
    return col;
  }
  static bool ends_with_double_colon(std::string_view line) {
    size_t e = line.find_last_not_of(" \t");
    return e != std::string_view::npos && e >= 1 && line[e] == ':' && line[e - 1] == ':';
  }
  static bool is_fence(std::string_view line) {
    size_t k = 0;
    while (k < line.size() && k < 3 && line[k] == ' ') ++k;
    if (k + 3 > line.size()) return false;
    char c = line[k];
    return (c == '`' || c == '~') && line[k + 1] == c && line[k + 2] == c;
  }
  // End offset (after the closing fence line's newline) of the fenced block opening at `i`.
  size_t fenced_block_end(size_t i, std::string_view open) {
    size_t k = open.find_first_not_of(' ');
    char c = open[k];
    size_t len = 0;
    while (k + len < open.size() && open[k + len] == c) ++len;
    size_t n = s_.size();
    size_t p = i + open.size();
    while (p < n) {
      if (s_[p] == '\r' || s_[p] == '\n') {
        if (s_[p] == '\n' || p + 1 >= n || s_[p + 1] != '\n') ++line_;
        ++p;
        continue;
      }
      size_t eol = p;
      while (eol < n && s_[eol] != '\n' && s_[eol] != '\r') ++eol;
      std::string_view line = s_.substr(p, eol - p);
      size_t f = line.find_first_not_of(' ');
      if (f != std::string_view::npos && f <= 3) {
        size_t m = 0;
        while (f + m < line.size() && line[f + m] == c) ++m;
        if (m >= len && line.find_first_not_of(" \t", f + m) == std::string_view::npos) return eol;
      }
      p = eol;
    }
    return n;
  }

  void push(TokKind kind, size_t b, size_t e) {
    Token t;
    t.begin = static_cast<uint32_t>(b);
    t.end = static_cast<uint32_t>(e);
    t.line = line_;
    t.kind = kind;
    toks_->push_back(t);
  }
  void code(size_t b, size_t e) {
    if (e > b) push(TokKind::kString, b, e);
  }

  // Splits one prose line into prose (layout) and inline code, URLs, link targets and tags.
  void prose_line(size_t b, size_t e) {
    size_t i = b;
    size_t prose_start = b;
    auto flush = [&](size_t upto) {
      if (upto > prose_start) push(TokKind::kComment, prose_start, upto);
    };
    while (i < e) {
      char c = s_[i];
      size_t end = 0;
      if (c == '`') {
        size_t run = 0;
        while (i + run < e && s_[i + run] == '`') ++run;
        std::string closer(run, '`');
        size_t close = s_.find(closer, i + run);
        // Code spans do not cross a blank line; keep the search inside this paragraph.
        size_t para_end = s_.find("\n\n", i);
        if (close != std::string_view::npos &&
            (para_end == std::string_view::npos || close < para_end)) {
          end = close + run;
          // rst: a role such as :func: belongs to the span.
          size_t start = i;
          if (rst_ && start > prose_start && s_[start - 1] == ':') {
            size_t r = start - 1;
            while (r > prose_start && (std::isalnum(static_cast<unsigned char>(s_[r - 1])) ||
                                       s_[r - 1] == ':' || s_[r - 1] == '-' || s_[r - 1] == '_')) {
              --r;
            }
            start = r;
          }
          flush(start);
          code(start, std::min(end, s_.size()));
          // A span may end on a later line: continue after it.
          if (end > e) {
            skip_to_ = end;
          }
          i = end;
          prose_start = i;
          if (end > e) return;
          continue;
        }
        i += run;
        continue;
      }
      if (c == '<' && i + 1 < e &&
          (std::isalpha(static_cast<unsigned char>(s_[i + 1])) || s_[i + 1] == '/' ||
           s_[i + 1] == '!')) {
        size_t close = s_.find('>', i);
        if (close != std::string_view::npos && close < e) end = close + 1;
      } else if (c == ']' && i + 1 < e && s_[i + 1] == '(') {
        size_t close = s_.find(')', i);
        if (close != std::string_view::npos && close < e) {
          flush(i + 2);
          code(i + 2, close);
          i = close;
          prose_start = i;
          continue;
        }
      } else if ((c == 'h' || c == 'f' || c == 'w') && starts_url(i)) {
        end = i;
        while (end < e && !std::isspace(static_cast<unsigned char>(s_[end])) && s_[end] != ')' &&
               s_[end] != '>' && s_[end] != '`') {
          ++end;
        }
      }
      if (end > i) {
        flush(i);
        code(i, end);
        i = end;
        prose_start = i;
        continue;
      }
      ++i;
    }
    flush(e);
  }

  bool starts_url(size_t i) const {
    for (std::string_view p : {"http://", "https://", "ftp://", "www."}) {
      if (s_.compare(i, p.size(), p) == 0) return true;
    }
    return false;
  }

  std::string_view s_;
  bool rst_;
  std::vector<Token>* toks_ = nullptr;
  uint32_t line_ = 1;
  bool last_line_code_ = false;
  size_t skip_to_ = 0;
};

}  // namespace

TokenStream tokenize_doc(std::string_view src, Language lang) {
  return DocLexer(src, lang).run(lang);
}

TokenStream tokenize(std::string_view src, Language lang) {
  switch (lang) {
    case Language::kPython:
      return tokenize_python(src);
    case Language::kCpp:
      return tokenize_cpp(src);
    case Language::kMarkdown:
    case Language::kRst:
      return tokenize_doc(src, lang);
    default:
      break;
  }
  TokenStream empty;
  empty.lang = lang;
  return empty;
}

}  // namespace skillrt::ci_fix
