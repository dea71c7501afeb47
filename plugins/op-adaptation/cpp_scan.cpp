#include "cpp_scan.hpp"

#include <cctype>

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
  if (detail::starts_with(s, "::")) s.erase(0, 2);
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
        for (size_t b = k + 1; b < body_end && b < t.size(); ++b) {
          if (t[b].kind != Tok::Kind::kWord) continue;
          f.body_identifiers.insert(t[b].text);
          if (b + 2 < body_end && t[b + 1].text == "(" && t[b + 2].kind == Tok::Kind::kWord) {
            if (detail::starts_with(t[b].text, "EXEC_NPU_CMD") ||
                detail::starts_with(t[b].text, "EXEC_NPU_NO_FORMAT_CHECK_CMD")) {
              f.exec_calls.emplace_back(t[b + 2].text, t[b].line);
            } else if (detail::starts_with(t[b].text, "DO_COMPATIBILITY")) {
              f.compat_calls.emplace_back(t[b + 2].text, t[b].line);
            }
          }
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
