#include "cpp_scan.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "detail/text.hpp"

namespace skillrt::opa {
namespace {

struct Tok {
  enum class Kind { kWord, kPunct };
  Kind kind = Kind::kPunct;
  std::string text;
  size_t line = 0;
};

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Tokens with comments, string and character literals and preprocessor lines removed.
std::vector<Tok> lex(std::string_view s) {
  std::vector<Tok> out;
  size_t i = 0;
  size_t line = 1;
  bool line_has_code = false;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
      line_has_code = false;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++i;
      continue;
    }
    if (c == '#' && !line_has_code) {
      // A directive, with its backslash continuations.
      while (i < s.size() && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
          ++line;
          ++i;
        }
        ++i;
      }
      continue;
    }
    line_has_code = true;
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < s.size() && !(s[i] == '*' && s[i + 1] == '/')) {
        if (s[i] == '\n') ++line;
        ++i;
      }
      i += 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      ++i;
      while (i < s.size() && s[i] != c && s[i] != '\n') {
        if (s[i] == '\\') ++i;
        ++i;
      }
      ++i;
      out.push_back({Tok::Kind::kWord, c == '"' ? "\"\"" : "''", line});
      continue;
    }
    if (word_char(c)) {
      const size_t b = i;
      while (i < s.size() && word_char(s[i])) ++i;
      out.push_back({Tok::Kind::kWord, std::string(s.substr(b, i - b)), line});
      continue;
    }
    if (c == ':' && i + 1 < s.size() && s[i + 1] == ':') {
      out.push_back({Tok::Kind::kPunct, "::", line});
      i += 2;
      continue;
    }
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '>') {
      out.push_back({Tok::Kind::kPunct, "->", line});
      i += 2;
      continue;
    }
    out.push_back({Tok::Kind::kPunct, std::string(1, c), line});
    ++i;
  }
  return out;
}

size_t matching(const std::vector<Tok>& t, size_t open, const char* o, const char* c) {
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i].text == o) ++depth;
    if (t[i].text == c && --depth == 0) return i;
  }
  return t.size();
}

std::string join(const std::vector<Tok>& t, size_t b, size_t e) {
  std::string out;
  for (size_t i = b; i < e; ++i) {
    if (i > b && t[i].kind == Tok::Kind::kWord && t[i - 1].kind == Tok::Kind::kWord) out += ' ';
    out += t[i].text;
  }
  return out;
}

std::vector<CppParam> parse_params(const std::vector<Tok>& t, size_t open, size_t close) {
  std::vector<CppParam> out;
  int paren = 0;
  int angle = 0;
  size_t start = open + 1;
  auto flush = [&](size_t e) {
    if (start >= e) return;
    size_t stop = e;
    for (size_t k = start; k < e; ++k) {
      if (t[k].text == "=") {
        stop = k;
        break;
      }
    }
    if (stop - start == 1 && t[start].text == "void") return;
    CppParam p;
    size_t type_end = stop;
    if (stop - start >= 2 && t[stop - 1].kind == Tok::Kind::kWord && t[stop - 2].text != "::") {
      p.name = t[stop - 1].text;
      type_end = stop - 1;
    }
    p.type = canonical_cpp_type(join(t, start, type_end));
    out.push_back(p);
  };
  for (size_t i = open + 1; i < close; ++i) {
    const std::string& x = t[i].text;
    if (x == "(") ++paren;
    if (x == ")") --paren;
    if (x == "<") ++angle;
    if (x == ">") --angle;
    if (x == "," && paren == 0 && angle == 0) {
      flush(i);
      start = i + 1;
    }
  }
  flush(close);
  return out;
}

bool is_keyword(const std::string& s) {
  static const std::set<std::string> kKeywords = {
      "if",          "for",     "while",         "switch",   "return",
      "sizeof",      "catch",   "static_assert", "decltype", "alignas",
      "TORCH_CHECK", "defined", "namespace"};
  return kKeywords.count(s) != 0;
}

// Definite assignment of scalar locals through a function body, the way a compiler's
// maybe-uninitialized analysis walks structured statements: an `if` assigns what both branches
// assign (a branch that returns or throws assigns everything), loops may not run, a `switch`
// assigns only with a `default:`.
class AssignmentFlow {
 public:
  AssignmentFlow(const std::vector<Tok>& t, std::set<std::string> exec_args)
      : t_(t), exec_args_(std::move(exec_args)) {}

  std::vector<CppFunction::MaybeUninitialized> run(size_t body_open, size_t body_close) {
    State s;
    block(body_open + 1, body_close, &s);
    return std::move(found_);
  }

 private:
  struct State {
    std::set<std::string> assigned;
    bool terminated = false;
  };

  static bool scalar_type(const std::string& w) {
    static const std::set<std::string> kTypes = {
        "aclDataType", "aclFormat", "ScalarType", "int",      "int8_t",   "int16_t",
        "int32_t",     "int64_t",   "uint8_t",    "uint16_t", "uint32_t", "uint64_t",
        "size_t",      "bool",      "float",      "double",   "char",     "long"};
    return kTypes.count(w) != 0;
  }

  void block(size_t b, size_t e, State* s) {
    size_t i = b;
    while (i < e) {
      if (s->terminated) return;  // unreachable rest
      i = statement(i, e, s);
    }
  }

  size_t close_of(size_t open, const char* o, const char* c) const {
    return matching(t_, open, o, c);
  }

  // Reads and writes of tracked names in [b, e): reads first, then the assignments.
  void expression(size_t b, size_t e, State* s) {
    std::vector<std::string> writes;
    for (size_t i = b; i < e; ++i) {
      if (t_[i].kind != Tok::Kind::kWord || declared_.count(t_[i].text) == 0) continue;
      const std::string& n = t_[i].text;
      const bool address =
          i > b && t_[i - 1].text == "&" && (i < b + 2 || t_[i - 2].kind != Tok::Kind::kWord);
      const bool assign =
          i + 1 < e && t_[i + 1].text == "=" && !(i + 2 < e && t_[i + 2].text == "=");
      if (assign || address) {
        writes.push_back(n);
        continue;
      }
      if (s->assigned.count(n) != 0 || reported_.count(n) != 0) continue;
      reported_.insert(n);
      found_.push_back({n, declared_[n], t_[i].line});
    }
    for (const std::string& w : writes) s->assigned.insert(w);
  }

  // One statement starting at i; returns the index after it.
  size_t statement(size_t i, size_t e, State* s) {
    const std::string& x = t_[i].text;
    if (x == ";") return i + 1;
    if (x == "{") {
      const size_t c = close_of(i, "{", "}");
      block(i + 1, std::min(c, e), s);
      return c + 1;
    }
    if (x == "if") {
      size_t k = i + 1;
      if (k < e && t_[k].text == "constexpr") ++k;
      if (k >= e || t_[k].text != "(") return end_of_simple(i, e, s);
      const size_t c = close_of(k, "(", ")");
      expression(k + 1, c, s);
      State then = *s;
      size_t next = statement(c + 1, e, &then);
      State other = *s;
      if (next < e && t_[next].text == "else") next = statement(next + 1, e, &other);
      merge(then, other, s);
      return next;
    }
    if (x == "for" || x == "while") {
      if (i + 1 >= e || t_[i + 1].text != "(") return end_of_simple(i, e, s);
      const size_t c = close_of(i + 1, "(", ")");
      expression(i + 2, c, s);
      State body = *s;
      return statement(c + 1, e, &body);  // may run zero times: assignments do not count
    }
    if (x == "do") {
      size_t next = statement(i + 1, e, s);
      if (next < e && t_[next].text == "while") return end_of_simple(next, e, s);
      return next;
    }
    if (x == "switch" && i + 1 < e && t_[i + 1].text == "(") {
      const size_t c = close_of(i + 1, "(", ")");
      expression(i + 2, c, s);
      if (c + 1 >= e || t_[c + 1].text != "{") return c + 1;
      const size_t bc = close_of(c + 1, "{", "}");
      bool has_default = false;
      for (size_t k = c + 2; k < bc; ++k) has_default = has_default || t_[k].text == "default";
      State body = *s;
      block(c + 2, bc, &body);
      if (has_default) {
        body.terminated = false;
        s->assigned = body.assigned;
      }
      return bc + 1;
    }
    if (x == "try") {
      size_t next = statement(i + 1, e, s);
      while (next < e && t_[next].text == "catch") {
        const size_t c = close_of(next + 1, "(", ")");
        State handler = *s;
        next = statement(c + 1, e, &handler);
      }
      return next;
    }
    if (x == "return" || x == "throw") {
      const size_t end = end_of_simple(i, e, s);
      s->terminated = true;
      return end;
    }
    // `aclDataType y_acltype;`, `at::ScalarType t;`: a scalar local with no value.
    size_t k = i;
    while (k + 1 < e && t_[k + 1].text == "::") k += 2;
    if (k + 2 < e && scalar_type(t_[k].text) && t_[k + 1].kind == Tok::Kind::kWord &&
        t_[k + 2].text == ";" && exec_args_.count(t_[k + 1].text) != 0) {
      declared_[t_[k + 1].text] = t_[k + 1].line;
      s->assigned.erase(t_[k + 1].text);
      return k + 3;
    }
    const size_t end = end_of_simple(i, e, s);
    // TORCH_CHECK(false, ...) and friends never return.
    if ((x == "TORCH_CHECK" || x == "AT_ERROR" || x == "TORCH_INTERNAL_ASSERT") && i + 3 < e &&
        t_[i + 1].text == "(" && (t_[i + 2].text == "false" || t_[i + 2].text == "0") &&
        (t_[i + 3].text == "," || t_[i + 3].text == ")")) {
      s->terminated = true;
    }
    return end;
  }

  // An expression statement: up to the `;` outside brackets (lambdas included).
  size_t end_of_simple(size_t i, size_t e, State* s) {
    int depth = 0;
    size_t k = i;
    for (; k < e; ++k) {
      const std::string& x = t_[k].text;
      if (x == "(" || x == "{" || x == "[") ++depth;
      if (x == ")" || x == "}" || x == "]") --depth;
      if (depth <= 0 && x == ";") break;
      if (depth < 0) break;
    }
    expression(i, k, s);
    return k + 1;
  }

  static void merge(const State& a, const State& b, State* out) {
    if (a.terminated && b.terminated) {
      out->terminated = true;
      return;
    }
    if (a.terminated) {
      out->assigned = b.assigned;
      return;
    }
    if (b.terminated) {
      out->assigned = a.assigned;
      return;
    }
    std::set<std::string> both;
    for (const std::string& n : a.assigned) {
      if (b.assigned.count(n) != 0) both.insert(n);
    }
    out->assigned = std::move(both);
  }

  const std::vector<Tok>& t_;
  std::set<std::string> exec_args_;
  std::map<std::string, size_t> declared_;
  std::set<std::string> reported_;
  std::vector<CppFunction::MaybeUninitialized> found_;
};

}  // namespace

std::string canonical_cpp_type(std::string_view text) {
  std::string s = detail::trim(text);
  for (const char* q : {"at::", "c10::", "std::", "torch::"}) {
    const std::string qs(q);
    size_t pos = 0;
    while ((pos = s.find(qs, pos)) != std::string::npos) {
      if (pos > 0 && word_char(s[pos - 1])) {
        pos += qs.size();
        continue;
      }
      s.erase(pos, qs.size());
    }
  }
  // A global qualifier ("::std::vector" after std:: went): "<::vector" -> "<vector".
  for (size_t pos = s.find("::"); pos != std::string::npos; pos = s.find("::", pos)) {
    if (pos == 0 || !word_char(s[pos - 1])) {
      s.erase(pos, 2);
    } else {
      pos += 2;
    }
  }
  std::string out;
  for (char c : s) {
    if (c == ' ' && !out.empty() && !word_char(out.back())) continue;
    if (c == ' ') {
      out += c;
      continue;
    }
    if (!word_char(c) && !out.empty() && out.back() == ' ') out.pop_back();
    out += c;
  }
  return out;
}

std::vector<CppFunction> scan_cpp(std::string_view source) {
  const std::vector<Tok> t = lex(source);
  std::vector<CppFunction> out;
  // One entry per open brace: the namespace name, "" for an anonymous namespace, or "{" for
  // anything else (class, extern block, initializer).
  std::vector<std::string> frames;
  auto at_namespace_scope = [&] {
    for (const std::string& f : frames) {
      if (f == "{") return false;
    }
    return true;
  };
  size_t stmt = 0;
  size_t i = 0;
  while (i < t.size()) {
    const std::string& x = t[i].text;
    if (x == "namespace") {
      size_t k = i + 1;
      std::string name;
      while (k < t.size() && t[k].text != "{" && t[k].text != "=" && t[k].text != ";") {
        name += t[k].text;
        ++k;
      }
      if (k < t.size() && t[k].text == "{") {
        const size_t colon = name.rfind("::");
        frames.push_back(colon == std::string::npos ? name : name.substr(colon + 2));
      }
      i = k + 1;
      stmt = i;
      continue;
    }
    if (x == "{") {
      frames.push_back("{");
      ++i;
      stmt = i;
      continue;
    }
    if (x == "}") {
      if (!frames.empty()) frames.pop_back();
      ++i;
      stmt = i;
      continue;
    }
    if (x == ";") {
      ++i;
      stmt = i;
      continue;
    }
    if (t[i].kind == Tok::Kind::kWord && i + 1 < t.size() && t[i + 1].text == "(" && i > stmt &&
        at_namespace_scope() && !is_keyword(x)) {
      bool has_assign = false;
      for (size_t k = stmt; k < i; ++k) has_assign = has_assign || t[k].text == "=";
      const size_t close = matching(t, i + 1, "(", ")");
      size_t k = close + 1;
      while (k < t.size() && t[k].text != "{" && t[k].text != ";" && t[k].text != "=" &&
             t[k].text != "(") {
        ++k;
      }
      if (!has_assign && k < t.size() && t[k].text == "{") {
        CppFunction f;
        // Helpers in an anonymous namespace are not kernels: their namespace stays empty.
        if (!frames.empty()) f.ns = frames.back();
        f.name = x;
        std::string ret = join(t, stmt, i);
        for (const char* spec : {"inline ", "static ", "constexpr "}) {
          if (detail::starts_with(ret, spec)) ret.erase(0, std::string(spec).size());
        }
        f.return_type = canonical_cpp_type(ret);
        f.params = parse_params(t, i + 1, close);
        f.line = t[i].line;
        const size_t body_end = matching(t, k, "{", "}");
        std::set<std::string> exec_args;
        for (size_t b = k + 1; b < body_end && b < t.size(); ++b) {
          if (t[b].kind != Tok::Kind::kWord) continue;
          f.body_identifiers.insert(t[b].text);
          if (b + 2 < body_end && t[b + 1].text == "(" && t[b + 2].kind == Tok::Kind::kWord) {
            if (detail::starts_with(t[b].text, "EXEC_NPU_CMD") ||
                detail::starts_with(t[b].text, "EXEC_NPU_NO_FORMAT_CHECK_CMD")) {
              f.exec_calls.emplace_back(t[b + 2].text, t[b].line);
              const size_t args_end = matching(t, b + 1, "(", ")");
              for (size_t a = b + 3; a < args_end && a < body_end; ++a) {
                if (t[a].kind == Tok::Kind::kWord) exec_args.insert(t[a].text);
              }
            } else if (detail::starts_with(t[b].text, "DO_COMPATIBILITY")) {
              f.compat_calls.emplace_back(t[b + 2].text, t[b].line);
            }
          }
        }
        if (!exec_args.empty() && body_end < t.size()) {
          f.maybe_uninitialized = AssignmentFlow(t, std::move(exec_args)).run(k, body_end);
        }
        out.push_back(std::move(f));
        i = body_end + 1;
        stmt = i;
        continue;
      }
    }
    ++i;
  }
  return out;
}

TypeAliases scan_cpp_aliases(std::string_view source) {
  const std::vector<Tok> t = lex(source);
  TypeAliases out;
  for (size_t i = 0; i + 3 < t.size(); ++i) {
    if (t[i].text == "using" && t[i + 1].kind == Tok::Kind::kWord && t[i + 2].text == "=") {
      size_t e = i + 3;
      while (e < t.size() && t[e].text != ";") ++e;
      out[t[i + 1].text] = canonical_cpp_type(join(t, i + 3, e));
      i = e;
    } else if ((t[i].text == "const" || t[i].text == "constexpr") && i + 4 < t.size() &&
               t[i + 2].kind == Tok::Kind::kWord && t[i + 3].text == "=" && i + 5 < t.size() &&
               t[i + 5].text == ";" &&
               std::isdigit(static_cast<unsigned char>(t[i + 4].text[0])) != 0) {
      // `const int64_t DIM = 3;`: a size used in std::array<bool, DIM>.
      out[t[i + 2].text] = t[i + 4].text;
      i += 5;
    } else if (t[i].text == "typedef") {
      size_t e = i + 1;
      while (e < t.size() && t[e].text != ";" && t[e].text != "(") ++e;
      if (e < t.size() && t[e].text == ";" && e >= i + 3 && t[e - 1].kind == Tok::Kind::kWord) {
        out[t[e - 1].text] = canonical_cpp_type(join(t, i + 1, e - 1));
      }
      i = e;
    }
  }
  return out;
}

namespace {

// Replaces each identifier found in `aliases` by its definition, a few rounds deep.
std::string expand_aliases(std::string s, const TypeAliases& aliases) {
  static const TypeAliases kLibrary = {
      {"IntArrayRef", "ArrayRef<int64_t>"},
      {"SymIntArrayRef", "ArrayRef<SymInt>"},
      {"TensorList", "ArrayRef<Tensor>"},
      {"DimnameList", "ArrayRef<Dimname>"},
      {"OptionalIntArrayRef", "OptionalArrayRef<int64_t>"},
      {"OptionalSymIntArrayRef", "OptionalArrayRef<SymInt>"},
  };
  for (int round = 0; round < 4; ++round) {
    std::string out;
    bool changed = false;
    size_t i = 0;
    while (i < s.size()) {
      if (!word_char(s[i])) {
        out += s[i++];
        continue;
      }
      const size_t b = i;
      while (i < s.size() && word_char(s[i])) ++i;
      const std::string w = s.substr(b, i - b);
      const auto own = aliases.find(w);
      const auto lib = kLibrary.find(w);
      if (own != aliases.end() && own->second != w) {
        out += own->second;
        changed = true;
      } else if (lib != kLibrary.end()) {
        out += lib->second;
        changed = true;
      } else {
        out += w;
      }
    }
    s = out;
    if (!changed) break;
  }
  return s;
}

}  // namespace

std::string cpp_type_key(std::string_view canonical_type, const TypeAliases& aliases) {
  std::string s = canonical_cpp_type(canonical_type);
  // East const: "Tensor const&" -> "const Tensor&".
  for (const char* tail : {"const&", "const*", "const"}) {
    const std::string t(tail);
    if (s.size() <= t.size() || s.compare(s.size() - t.size(), t.size(), t) != 0 ||
        detail::starts_with(s, "const ")) {
      continue;
    }
    std::string head = s.substr(0, s.size() - t.size());
    if (!head.empty() && word_char(head.back())) continue;  // "myconst", not east const
    while (!head.empty() && head.back() == ' ') head.pop_back();
    s = "const " + head + t.substr(5);
    break;
  }
  s = canonical_cpp_type(expand_aliases(s, aliases));
  const bool by_value = s.empty() || (s.back() != '&' && s.back() != '*');
  if (by_value && detail::starts_with(s, "const ")) s.erase(0, 6);
  return s;
}

bool has_symint(const ops::FunctionSchema& schema) {
  for (const ops::Argument& a : schema.arguments) {
    if (a.type.base == "SymInt") return true;
  }
  return false;
}

std::string expected_cpp_name(const ops::FunctionSchema& schema) {
  std::string name = schema.name.base;
  if (schema.name.inplace) name += "_";
  if (schema.kind == ops::SchemaKind::kOut) name += "_out";
  if (has_symint(schema)) name += "_symint";
  return name;
}

namespace {

std::string scalar_cpp(const std::string& base) {
  if (base == "int") return "int64_t";
  if (base == "float") return "double";
  if (base == "str") return "string_view";
  if (base == "bool" || base == "SymInt" || base == "ScalarType" || base == "Layout" ||
      base == "Device" || base == "MemoryFormat" || base == "Dimname" || base == "Generator" ||
      base == "Stream" || base == "Storage" || base == "QScheme" || base == "Scalar" ||
      base == "ConstQuantizerPtr") {
    return base;
  }
  return "";
}

}  // namespace

std::string expected_cpp_type(const ops::Argument& arg) {
  const ops::Type& ty = arg.type;
  const std::string& s = ty.suffix;
  if (ty.base == "Tensor") {
    if (s.empty()) return arg.is_write() ? "Tensor&" : "const Tensor&";
    if (s == "?") return "const optional<Tensor>&";
    if (s == "[]") return "TensorList";
    if (s == "?[]") return "const List<optional<Tensor>>&";
    return "";
  }
  const bool list = !s.empty() && s[0] == '[';
  const bool opt = !s.empty() && s.back() == '?';
  if (ty.base == "int" && list) return opt ? "OptionalIntArrayRef" : "IntArrayRef";
  if (ty.base == "SymInt" && list) return opt ? "OptionalSymIntArrayRef" : "SymIntArrayRef";
  if (ty.base == "Dimname" && list) return opt ? "optional<DimnameList>" : "DimnameList";
  if (ty.base == "bool" && list && s.size() > 2) {
    return "array<bool," + s.substr(1, s.find(']') - 1) + ">";
  }
  const std::string base = scalar_cpp(ty.base);
  if (base.empty()) return "";
  if (list) {
    const std::string l = "ArrayRef<" + base + ">";
    return opt ? "optional<" + l + ">" : l;
  }
  if (ty.base == "Scalar") return opt ? "const optional<Scalar>&" : "const Scalar&";
  if (s == "?") return "optional<" + base + ">";
  if (s.empty()) return base;
  return "";
}

std::string expected_cpp_return(const ops::FunctionSchema& schema) {
  auto one = [](const ops::Return& r) -> std::string {
    if (r.type.base == "Tensor") {
      if (r.type.is_list()) return r.is_write() ? "void" : "vector<Tensor>";
      return r.is_write() ? "Tensor&" : "Tensor";
    }
    if (r.type.suffix.empty()) {
      const std::string b = scalar_cpp(r.type.base);
      return b == "string_view" ? "string" : b;
    }
    return "";
  };
  if (schema.returns.empty()) return "void";
  if (schema.returns.size() == 1) return one(schema.returns[0]);
  std::string out = "tuple<";
  for (size_t i = 0; i < schema.returns.size(); ++i) {
    const std::string r = one(schema.returns[i]);
    if (r.empty()) return "";
    out += (i > 0 ? "," : "") + r;
  }
  return out + ">";
}

namespace {

std::string unify(std::string s, bool tensor) {
  if (s == "optional<IntArrayRef>") s = "OptionalIntArrayRef";
  if (s == "optional<SymIntArrayRef>") s = "OptionalSymIntArrayRef";
  if (s == "OptionalArrayRef<double>") s = "optional<ArrayRef<double>>";
  if (s == "ITensorListRef" || s == "const ITensorListRef&") s = "TensorList";
  if (s == "string_view" || s == "const string_view&") s = "string_view";
  if (!tensor) {
    if (detail::starts_with(s, "const ")) s.erase(0, 6);
    if (!s.empty() && s.back() == '&') s.pop_back();
    if (s == "optional<IntArrayRef>") s = "OptionalIntArrayRef";
  }
  return s;
}

}  // namespace

bool cpp_types_match(const std::string& expected, const std::string& found) {
  if (expected == found) return true;
  const bool tensor = expected.find("Tensor") != std::string::npos &&
                      expected.find("ArrayRef") == std::string::npos;
  return unify(expected, tensor) == unify(found, tensor);
}

}  // namespace skillrt::opa
