#include "proof.hpp"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "text.hpp"

namespace skillrt::ci_fix {

const char* proof_level_name(ProofLevel level) {
  switch (level) {
    case ProofLevel::kComment:
      return "comments-only";
    case ProofLevel::kStringValue:
      return "string-value";
    case ProofLevel::kWhitespace:
      break;
  }
  return "whitespace-only";
}

bool provable(Language lang) { return lang != Language::kNone; }

namespace {

std::string shown(std::string_view src, const Token& t, Language lang) {
  if (t.kind == TokKind::kIndent || t.kind == TokKind::kDedent || t.kind == TokKind::kEnd ||
      t.kind == TokKind::kNewline || t.kind == TokKind::kDirectiveEnd) {
    return kind_name(t.kind);
  }
  std::string text = token_text(src, t, lang);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(kind_name(t.kind)) + " `" + ci_fix::shown(text) + "`";
}

bool same_text(std::string_view a, const Token& x, std::string_view b, const Token& y,
               Language lang) {
  std::string_view ta = a.substr(x.begin, x.end - x.begin);
  std::string_view tb = b.substr(y.begin, y.end - y.begin);
  if (lang == Language::kPython) {
    if (x.kind == TokKind::kNewline) return true;  // "\n", "\r\n" and the implied one alike
    if (x.kind == TokKind::kString &&
        (ta.find('\r') != std::string_view::npos || tb.find('\r') != std::string_view::npos)) {
      return token_text(a, x, lang) == token_text(b, y, lang);
    }
    return ta == tb;
  }
  // "\n", "\r\n" and "\r" end a directive alike (translation phase 1).
  if (lang == Language::kCpp && x.kind == TokKind::kDirectiveEnd) return true;
  if (lang == Language::kCpp && ((x.flags | y.flags) & kTokSpliced)) {
    return token_text(a, x, lang) == token_text(b, y, lang);
  }
  return ta == tb;
}

// The value of a Python string literal in a canonical spelling: every escape Python decodes
// becomes "\x{code}", an invalid escape stays backslash + character, and raw bodies are kept as
// written (f-string replacement fields cannot hold backslashes). Two literals are equal in value
// exactly when these spellings are.
std::string python_string_value(std::string_view lit) {
  size_t p = 0;
  bool raw = false, bytes = false;
  while (p < lit.size() && std::isalpha(static_cast<unsigned char>(lit[p]))) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(lit[p])));
    raw = raw || c == 'r';
    bytes = bytes || c == 'b';
    ++p;
  }
  const std::string_view open3 = lit.substr(p, 3);
  const size_t q = lit.size() >= p + 6 && (open3 == "\"\"\"" || open3 == "'''") ? 3 : 1;
  if (lit.size() < p + 2 * q) return std::string(lit);
  const std::string_view body = lit.substr(p + q, lit.size() - p - 2 * q);
  std::string out = std::string(lit.substr(0, p + q)) + "|";
  if (raw) return out + std::string(body);
  const auto code = [](unsigned long v) { return "\\x{" + std::to_string(v) + "}"; };
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 >= body.size()) {
      out += body[i];
      continue;
    }
    const char c = body[++i];
    if (c == '\n') continue;  // a backslash-newline joins lines inside the literal
    if (c == '\\' || c == '\'' || c == '"') {
      out += code(static_cast<unsigned char>(c));
      continue;
    }
    static const std::string kSimple = "abfnrtv";
    static const unsigned long kSimpleCode[] = {7, 8, 12, 10, 13, 9, 11};
    if (const size_t s = kSimple.find(c); s != std::string::npos) {
      out += code(kSimpleCode[s]);
      continue;
    }
    if (c == 'x') {
      size_t e = i + 1;
      while (e < body.size() && e < i + 3 && std::isxdigit(static_cast<unsigned char>(body[e])))
        ++e;
      if (e == i + 3) {
        out += code(std::stoul(std::string(body.substr(i + 1, 2)), nullptr, 16));
        i = e - 1;
      } else {
        out += "\\x";  // malformed \x: a syntax error either way; compared as written
      }
      continue;
    }
    if (c >= '0' && c <= '7') {
      size_t e = i;
      while (e < body.size() && e < i + 3 && body[e] >= '0' && body[e] <= '7') ++e;
      out += code(std::stoul(std::string(body.substr(i, e - i)), nullptr, 8));
      i = e - 1;
      continue;
    }
    if (!bytes && (c == 'N' || c == 'u' || c == 'U')) {
      out += "\\#";  // decoded by Python; kept as written (no fix touches them)
      out += c;
      continue;
    }
    out += code('\\');  // an invalid escape: Python keeps the backslash
    out += c;
  }
  return out;
}

// Byte ranges of (non-directive) comments, in order.
std::vector<std::pair<uint32_t, uint32_t>> comment_ranges(const TokenStream& ts) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const Token& t : ts.tokens) {
    if (t.kind == TokKind::kComment) out.emplace_back(t.begin, t.end);
  }
  return out;
}

// Walks the bytes of `s` outside the given ranges.
class OutsideCursor {
 public:
  OutsideCursor(std::string_view s, std::vector<std::pair<uint32_t, uint32_t>> ranges)
      : s_(s), ranges_(std::move(ranges)) {
    skip();
  }
  bool done() const { return pos_ >= s_.size(); }
  char get() const { return s_[pos_]; }
  size_t pos() const { return pos_; }
  void advance() {
    ++pos_;
    skip();
  }
  // The number of comments crossed so far (a comment removed or added also counts as a change).
  size_t comments() const { return r_; }

 private:
  void skip() {
    while (r_ < ranges_.size() && pos_ >= ranges_[r_].first) {
      if (pos_ < ranges_[r_].second) pos_ = ranges_[r_].second;
      ++r_;
    }
  }
  std::string_view s_;
  std::vector<std::pair<uint32_t, uint32_t>> ranges_;
  size_t pos_ = 0;
  size_t r_ = 0;
};

uint32_t line_of(std::string_view s, size_t pos) {
  uint32_t line = 1;
  for (size_t i = 0; i < pos && i < s.size(); ++i) {
    if (s[i] == '\n') ++line;
  }
  return line;
}

}  // namespace

ProofResult compare_streams(std::string_view before, const TokenStream& tb, std::string_view after,
                            const TokenStream& ta, ProofLevel level) {
  ProofResult r;
  r.method = "tokens";
  Language lang = tb.lang;
  size_t i = 0, j = 0;
  const auto& x = tb.tokens;
  const auto& y = ta.tokens;
  while (true) {
    while (i < x.size() && !is_significant(x[i].kind)) ++i;
    while (j < y.size() && !is_significant(y[j].kind)) ++j;
    if (i >= x.size() || j >= y.size()) break;
    const Token& p = x[i];
    const Token& q = y[j];
    const bool value_equal = level == ProofLevel::kStringValue && lang == Language::kPython &&
                             p.kind == TokKind::kString && q.kind == TokKind::kString &&
                             python_string_value(before.substr(p.begin, p.end - p.begin)) ==
                                 python_string_value(after.substr(q.begin, q.end - q.begin));
    if (p.kind != q.kind || (!value_equal && !same_text(before, p, after, q, lang))) {
      r.line = p.line;
      r.detail = "significant token " + std::to_string(r.compared + 1) +
                 " differs: " + shown(before, p, lang) + " before the fix, " +
                 shown(after, q, lang) + " after it";
      return r;
    }
    if (((p.flags | q.flags) & kTokSensitive) &&
        ((p.flags & kTokAdjacent) != (q.flags & kTokAdjacent))) {
      r.line = p.line;
      r.detail = std::string("whitespace ") + ((p.flags & kTokAdjacent) ? "added" : "removed") +
                 " before " + shown(before, p, lang) +
                 " inside a macro argument or #define body: the # operator would spell it "
                 "differently (e.g. TORCH_CHECK(a==b) reports \"a==b\")";
      return r;
    }
    if (((p.flags | q.flags) & kTokPositional) && p.line != q.line) {
      r.line = p.line;
      r.detail = shown(before, p, lang) + " moved from line " + std::to_string(p.line) +
                 " to line " + std::to_string(q.line) +
                 ": a shebang or coding cookie works only on lines 1-2";
      return r;
    }
    ++r.compared;
    ++i;
    ++j;
  }
  bool x_left = i < x.size(), y_left = j < y.size();
  if (x_left || y_left) {
    const Token& t = x_left ? x[i] : y[j];
    r.line = x_left ? t.line : 0;
    r.detail = std::string("token streams differ in length: ") +
               (x_left ? "the fix removed " + shown(before, t, lang)
                       : "the fix added " + shown(after, t, lang));
    return r;
  }
  if (level == ProofLevel::kComment) {
    OutsideCursor a(before, comment_ranges(tb));
    OutsideCursor b(after, comment_ranges(ta));
    while (!a.done() && !b.done() && a.get() == b.get() && a.comments() == b.comments()) {
      a.advance();
      b.advance();
    }
    if (!a.done() || !b.done() || a.comments() != b.comments()) {
      r.line = line_of(before, a.pos());
      r.detail = "a comment-only fix changed text outside comments";
      return r;
    }
  }
  r.passed = true;
  return r;
}

namespace {

bool same_yaml(const YAML::Node& a, const YAML::Node& b, std::string* where) {
  if (a.Type() != b.Type() || a.Tag() != b.Tag()) {
    *where = "node type or tag";
    return false;
  }
  switch (a.Type()) {
    case YAML::NodeType::Scalar:
      if (a.Scalar() != b.Scalar()) {
        *where = "scalar `" + a.Scalar().substr(0, 40) + "`";
        return false;
      }
      return true;
    case YAML::NodeType::Sequence:
      if (a.size() != b.size()) {
        *where = "sequence length";
        return false;
      }
      for (size_t k = 0; k < a.size(); ++k) {
        if (!same_yaml(a[k], b[k], where)) return false;
      }
      return true;
    case YAML::NodeType::Map: {
      if (a.size() != b.size()) {
        *where = "mapping size";
        return false;
      }
      auto ia = a.begin();
      auto ib = b.begin();
      for (; ia != a.end() && ib != b.end(); ++ia, ++ib) {
        if (!same_yaml(ia->first, ib->first, where) || !same_yaml(ia->second, ib->second, where)) {
          return false;
        }
      }
      return true;
    }
    default:
      return true;
  }
}

}  // namespace

ProofResult prove_values(Language lang, std::string_view before, std::string_view after) {
  ProofResult r;
  if (lang == Language::kJson) {
    r.method = "json-value";
    auto a = nlohmann::json::parse(before.begin(), before.end(), nullptr, false);
    auto b = nlohmann::json::parse(after.begin(), after.end(), nullptr, false);
    if (a.is_discarded()) {
      r.detail = "the file is not valid JSON before the fix, so its value cannot be compared";
    } else if (b.is_discarded() || a != b) {
      r.detail = "the JSON value differs after the fix";
    } else {
      r.passed = true;
      r.compared = 1;
    }
    return r;
  }
  if (lang == Language::kYaml) {
    r.method = "yaml-value";
    try {
      std::vector<YAML::Node> a = YAML::LoadAll(std::string(before));
      std::vector<YAML::Node> b;
      try {
        b = YAML::LoadAll(std::string(after));
      } catch (const YAML::Exception& e) {
        r.detail = std::string("the YAML no longer parses after the fix: ") + e.what();
        return r;
      }
      if (a.size() != b.size()) {
        r.detail = "the number of YAML documents differs after the fix";
        return r;
      }
      for (size_t k = 0; k < a.size(); ++k) {
        std::string where;
        if (!same_yaml(a[k], b[k], &where)) {
          r.detail =
              "YAML document " + std::to_string(k + 1) + " differs after the fix (" + where + ")";
          return r;
        }
      }
      r.passed = true;
      r.compared = a.size();
    } catch (const YAML::Exception& e) {
      r.detail = std::string("the file is not valid YAML before the fix: ") + e.what();
    }
    return r;
  }
  r.method = "none";
  r.detail = "no tokenizer or parser for this file type, so no fix to it can be proven";
  return r;
}

}  // namespace skillrt::ci_fix
