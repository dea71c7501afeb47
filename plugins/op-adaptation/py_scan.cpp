#include "py_scan.hpp"

#include <cctype>
#include <set>

namespace skillrt::opa {
namespace {

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool is_name_char(char c) {
  return is_name_start(c) || std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// Length of a string prefix (r, b, u, f and two-letter combinations) that is followed by a
// quote at `i`; 0 when `s[i]` does not start a prefixed string.
size_t string_prefix(std::string_view s, size_t i) {
  size_t n = 0;
  while (n < 2 && i + n < s.size() &&
         std::string_view("rRbBuUfF").find(s[i + n]) != std::string_view::npos) {
    ++n;
  }
  if (n > 0 && i + n < s.size() && (s[i + n] == '\'' || s[i + n] == '"')) return n;
  return 0;
}

}  // namespace

std::vector<PyToken> tokenize_python(std::string_view s) {
  std::vector<PyToken> out;
  size_t i = 0;
  size_t line = 1;
  int depth = 0;
  bool at_line_start = true;
  size_t indent = 0;
  auto push = [&](PyToken::Kind kind, std::string text, size_t tok_line) {
    PyToken t;
    t.kind = kind;
    t.text = std::move(text);
    t.line = tok_line;
    t.indent = indent;
    t.line_start = at_line_start;
    at_line_start = false;
    out.push_back(std::move(t));
  };
  while (i < s.size()) {
    if (at_line_start && depth == 0) {
      // Measure the indentation of the next line that holds code.
      size_t j = i;
      size_t col = 0;
      while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) {
        col = s[j] == '\t' ? (col / 8 + 1) * 8 : col + 1;
        ++j;
      }
      if (j < s.size() && (s[j] == '\n' || s[j] == '#' || s[j] == '\r')) {
        while (j < s.size() && s[j] != '\n') ++j;
        if (j < s.size()) ++line;
        i = j + 1;
        continue;
      }
      indent = col;
      i = j;
      if (i >= s.size()) break;
    }
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
      if (depth == 0 && !at_line_start) {
        PyToken t;
        t.kind = PyToken::Kind::kNewline;
        t.line = line - 1;
        t.indent = indent;
        out.push_back(t);
        at_line_start = true;
      }
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
      ++i;
      continue;
    }
    if (c == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
      i += 2;
      ++line;
      continue;
    }
    if (c == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    const size_t prefix = string_prefix(s, i);
    if (c == '\'' || c == '"' || prefix > 0) {
      const size_t start = i;
      const size_t start_line = line;
      i += prefix;
      const char q = s[i];
      const bool triple = i + 2 < s.size() && s[i + 1] == q && s[i + 2] == q;
      i += triple ? 3 : 1;
      while (i < s.size()) {
        if (s[i] == '\\' && i + 1 < s.size()) {
          if (s[i + 1] == '\n') ++line;
          i += 2;
          continue;
        }
        if (s[i] == '\n') {
          ++line;
          if (!triple) break;  // unterminated: end the string at the line end
        }
        if (s[i] == q) {
          if (!triple) {
            ++i;
            break;
          }
          if (i + 2 < s.size() && s[i + 1] == q && s[i + 2] == q) {
            i += 3;
            break;
          }
        }
        ++i;
      }
      push(PyToken::Kind::kString, std::string(s.substr(start, i - start)), start_line);
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) != 0 ||
        (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])) != 0)) {
      const size_t start = i;
      const bool hex = c == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X');
      while (i < s.size()) {
        const char d = s[i];
        if (is_name_char(d) || d == '.') {
          ++i;
          continue;
        }
        if (!hex && (d == '-' || d == '+') && (s[i - 1] == 'e' || s[i - 1] == 'E')) {
          ++i;
          continue;
        }
        break;
      }
      push(PyToken::Kind::kNumber, std::string(s.substr(start, i - start)), line);
      continue;
    }
    if (is_name_start(c)) {
      const size_t start = i;
      while (i < s.size() && is_name_char(s[i])) ++i;
      push(PyToken::Kind::kName, std::string(s.substr(start, i - start)), line);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    static const char* const kTwo[] = {"**", "->", "==", "!=", "<=", ">=", "//", ":=", "<<", ">>"};
    std::string op(1, c);
    for (const char* two : kTwo) {
      if (s.compare(i, 2, two) == 0) op = two;
    }
    if (op.size() == 1 && i + 1 < s.size() && s[i + 1] == '=' &&
        std::string_view("+-*/%&|^@").find(c) != std::string_view::npos) {
      op += '=';
    }
    i += op.size();
    push(PyToken::Kind::kOp, op, line);
  }
  if (!out.empty() && out.back().kind != PyToken::Kind::kNewline) {
    PyToken t;
    t.kind = PyToken::Kind::kNewline;
    t.line = line;
    t.indent = indent;
    out.push_back(t);
  }
  return out;
}

namespace {

using Tokens = std::vector<PyToken>;

bool is_open(const PyToken& t) {
  return t.kind == PyToken::Kind::kOp && (t.text == "(" || t.text == "[" || t.text == "{");
}
bool is_close(const PyToken& t) {
  return t.kind == PyToken::Kind::kOp && (t.text == ")" || t.text == "]" || t.text == "}");
}
bool is_op(const PyToken& t, std::string_view text) {
  return t.kind == PyToken::Kind::kOp && t.text == text;
}

// Index of the bracket closing the one at `open`, or tokens.size().
size_t matching(const Tokens& t, size_t open) {
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (is_open(t[i])) ++depth;
    if (is_close(t[i]) && --depth == 0) return i;
  }
  return t.size();
}

// Splits [b, e) at commas outside brackets.
std::vector<std::pair<size_t, size_t>> split_commas(const Tokens& t, size_t b, size_t e) {
  std::vector<std::pair<size_t, size_t>> out;
  int depth = 0;
  size_t start = b;
  for (size_t i = b; i < e; ++i) {
    if (is_open(t[i])) ++depth;
    if (is_close(t[i])) --depth;
    if (depth == 0 && is_op(t[i], ",")) {
      out.emplace_back(start, i);
      start = i + 1;
    }
  }
  if (start < e) out.emplace_back(start, e);
  return out;
}

std::string join_tokens(const Tokens& t, size_t b, size_t e) {
  std::string out;
  for (size_t i = b; i < e; ++i) {
    const bool word = t[i].kind != PyToken::Kind::kOp;
    if (i > b && word && t[i - 1].kind != PyToken::Kind::kOp) out += ' ';
    out += t[i].text;
  }
  return out;
}

std::string unquote(const std::string& s) {
  size_t b = 0;
  while (b < s.size() && s[b] != '\'' && s[b] != '"') ++b;
  if (b >= s.size()) return s;
  const char q = s[b];
  const size_t e = s.rfind(q);
  return e > b ? s.substr(b + 1, e - b - 1) : s;
}

std::vector<PyParam> parse_params(const Tokens& t, size_t open, size_t close) {
  std::vector<PyParam> out;
  bool kwonly = false;
  for (auto [b, e] : split_commas(t, open + 1, close)) {
    if (b >= e) continue;
    if (is_op(t[b], "/")) continue;
    PyParam p;
    if (is_op(t[b], "*") || is_op(t[b], "**")) {
      const bool star = is_op(t[b], "*");
      kwonly = true;
      if (b + 1 >= e) continue;  // the bare '*' marker
      p.varargs = true;
      p.name = (star ? "*" : "**") + t[b + 1].text;
      out.push_back(p);
      continue;
    }
    p.name = t[b].text;
    p.kwonly = kwonly;
    int depth = 0;
    for (size_t i = b + 1; i < e; ++i) {
      if (is_open(t[i])) ++depth;
      if (is_close(t[i])) --depth;
      if (depth == 0 && is_op(t[i], "=")) {
        p.default_text = join_tokens(t, i + 1, e);
        break;
      }
    }
    out.push_back(p);
  }
  return out;
}

PyReturn parse_return(const Tokens& t, size_t ret, size_t end) {
  PyReturn r;
  r.line = t[ret].line;
  const size_t b = ret + 1;
  if (b >= end) {
    r.is_none = true;
    r.count = 0;
    return r;
  }
  auto parts = split_commas(t, b, end);
  if (parts.size() > 1) {
    r.count = static_cast<int>(parts.size());
    return r;
  }
  if (end - b == 1 && t[b].text == "None") {
    r.is_none = true;
    r.count = 0;
    return r;
  }
  if ((is_op(t[b], "(") || is_op(t[b], "[")) && matching(t, b) == end - 1) {
    bool comprehension = false;
    for (size_t i = b + 1; i + 1 < end; ++i) comprehension = comprehension || t[i].text == "for";
    auto inner = split_commas(t, b + 1, end - 1);
    if (comprehension) {
      r.is_single_expression = true;  // one list of unknown length
      return r;
    }
    bool trailing_comma = end - b >= 3 && is_op(t[end - 2], ",");
    if (inner.size() > 1 || is_op(t[b], "[") || trailing_comma) {
      r.count = static_cast<int>(inner.size());
      return r;
    }
  }
  r.is_single_expression = true;
  // A call to a tensor constructor returns one tensor; a name or another helper's result may
  // be a tuple, which the text alone cannot tell.
  static const std::set<std::string> kOneTensor = {
      "empty",         "empty_like", "new_empty",  "new_empty_strided",
      "empty_strided", "zeros",      "zeros_like", "new_zeros",
      "ones",          "ones_like",  "new_ones",   "full",
      "new_full",      "full_like",  "clone",      "view",
      "reshape",       "contiguous", "to",         "randn",
      "rand",          "expand",     "transpose",  "permute",
      "as_strided",    "new_tensor", "tensor",     "empty_like_"};
  size_t callee = end;
  for (size_t i = b; i < end; ++i) {
    if (is_op(t[i], "(")) {
      callee = i;
      break;
    }
  }
  if (callee != end && callee > b && matching(t, callee) == end - 1 &&
      kOneTensor.count(t[callee - 1].text) != 0) {
    r.count = 1;
  }
  return r;
}

}  // namespace

std::vector<PyRegistration> scan_registrations(std::string_view source) {
  const Tokens t = tokenize_python(source);
  std::vector<PyRegistration> out;
  std::vector<PyRegistration> pending;
  size_t i = 0;
  auto line_end = [&](size_t from) {
    while (from < t.size() && t[from].kind != PyToken::Kind::kNewline) ++from;
    return from;
  };
  while (i < t.size()) {
    if (!t[i].line_start) {
      ++i;
      continue;
    }
    const size_t end = line_end(i);
    if (is_op(t[i], "@")) {
      // @impl(m, "op") / @impl(m_aten, "op") / @register_fake("npu::op") /
      // @torch.library.register_fake("npu::op")
      for (size_t k = i + 1; k + 1 < end; ++k) {
        if (t[k].kind != PyToken::Kind::kName || !is_op(t[k + 1], "(")) continue;
        const size_t close = matching(t, k + 1);
        const auto args = split_commas(t, k + 2, std::min(close, end));
        PyRegistration reg;
        reg.decorator_line = t[i].line;
        if (t[k].text == "impl" && args.size() >= 2 &&
            t[args[1].first].kind == PyToken::Kind::kString) {
          reg.library = t[args[0].first].text;
          reg.op = unquote(t[args[1].first].text);
        } else if (t[k].text == "register_fake" && !args.empty() &&
                   t[args[0].first].kind == PyToken::Kind::kString) {
          reg.library = "fake";
          reg.op = unquote(t[args[0].first].text);
          if (reg.op.rfind("npu::", 0) == 0) reg.op = reg.op.substr(5);
        } else {
          continue;
        }
        pending.push_back(reg);
        break;
      }
      i = end + 1;
      continue;
    }
    const bool is_def =
        t[i].text == "def" || (t[i].text == "async" && i + 1 < end && t[i + 1].text == "def");
    if (!is_def) {
      pending.clear();
      i = end + 1;
      continue;
    }
    const size_t def = t[i].text == "def" ? i : i + 1;
    const size_t def_indent = t[i].indent;
    if (def + 2 >= t.size() || !is_op(t[def + 2], "(")) {
      pending.clear();
      i = end + 1;
      continue;
    }
    const size_t close = matching(t, def + 2);
    std::vector<PyParam> params = parse_params(t, def + 2, close);
    // The body: following logical lines indented deeper than the def; returns inside nested
    // defs belong to those.
    std::vector<PyReturn> returns;
    std::set<std::string> body_names;
    size_t j = line_end(close) + 1;
    std::vector<size_t> nested;
    while (j < t.size() && t[j].indent > def_indent) {
      const size_t e = line_end(j);
      for (size_t k = j; k < e; ++k) {
        if (t[k].kind == PyToken::Kind::kName) body_names.insert(t[k].text);
      }
      while (!nested.empty() && t[j].indent <= nested.back()) nested.pop_back();
      if (t[j].text == "def" || t[j].text == "class" || t[j].text == "lambda") {
        if (t[j].text != "lambda") nested.push_back(t[j].indent);
      } else if (t[j].text == "return" && nested.empty()) {
        returns.push_back(parse_return(t, j, e));
      }
      j = e + 1;
    }
    for (PyRegistration& reg : pending) {
      reg.function = t[def + 1].text;
      reg.def_line = t[def].line;
      reg.params = params;
      reg.returns = returns;
      reg.body_names = body_names;
      out.push_back(std::move(reg));
    }
    pending.clear();
    i = j;
  }
  return out;
}

}  // namespace skillrt::opa
