#include "page.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "optoolkit/text.hpp"

namespace skillrt::op_apidoc {
namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

size_t indent_of(const std::string& s) {
  size_t n = 0;
  while (n < s.size() && (s[n] == ' ' || s[n] == '\t')) ++n;
  return n;
}

// The position of the first top-level `ch` in s, or npos.
size_t find_top(const std::string& s, char ch) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (depth == 0 && c == ch) return i;
  }
  return std::string::npos;
}

// Where `api(` starts in `text` as the called name: after "torch_npu." or at a word boundary
// not preceded by another module's dot.
size_t find_api(const std::string& text, const std::string& api, size_t from) {
  for (size_t pos = text.find(api, from); pos != std::string::npos; pos = text.find(api, pos + 1)) {
    const size_t after = pos + api.size();
    size_t k = after;
    while (k < text.size() && text[k] == ' ') ++k;
    if (k >= text.size() || text[k] != '(') continue;
    if (pos > 0 && word_char(text[pos - 1])) continue;
    if (pos > 0 && text[pos - 1] == '.') {
      const std::string prefix = "torch_npu.";
      if (pos < prefix.size() || text.compare(pos - prefix.size(), prefix.size(), prefix) != 0) {
        continue;  // another module's function of the same name
      }
    }
    return pos;
  }
  return std::string::npos;
}

// The argument text of the call whose '(' is at or after `col` on line `i` (possibly over
// several lines); `end` receives the line index and column after the ')'.
std::string call_text(const std::vector<std::string>& plain, size_t i, size_t col, size_t* end_line,
                      size_t* end_col) {
  int depth = 0;
  std::string out;
  char quote = 0;
  for (size_t k = i; k < plain.size() && k < i + 200; ++k) {
    const std::string& t = plain[k];
    for (size_t p = (k == i ? col : 0); p < t.size(); ++p) {
      const char c = t[p];
      if (quote != 0) {
        if (c == quote) quote = 0;
        out += c;
        continue;
      }
      if (depth > 0 && (c == '\'' || c == '"')) quote = c;
      if (c == '(') {
        if (depth++ == 0) continue;
      }
      if (c == ')' && --depth == 0) {
        *end_line = k;
        *end_col = p + 1;
        return out;
      }
      if (depth > 0) out += c;
    }
    if (depth == 0 && k > i) break;
    out += ' ';
  }
  *end_line = i;
  *end_col = plain[i].size();
  return out;
}

int count_returns(std::string r) {
  r = ops::trim(r);
  while (!r.empty() && (r.back() == '`' || r.back() == ':')) r.pop_back();
  r = ops::trim(r);
  if (r.empty()) return -1;
  if (r == "None" || r == "()") return 0;
  auto inner_count = [](const std::string& s, size_t open) {
    const size_t close = s.rfind(s[open] == '(' ? ')' : ']');
    if (close == std::string::npos || close <= open) return -1;
    return static_cast<int>(ops::split_top_level(s.substr(open + 1, close - open - 1)).size());
  };
  if (r.front() == '(') return inner_count(r, 0);
  for (const char* t : {"tuple(", "Tuple[", "tuple["}) {
    if (r.rfind(t, 0) == 0) return inner_count(r, std::string(t).size() - 1);
  }
  if (r.find(',') != std::string::npos) return -1;  // "Tensor, Tensor" without brackets
  return 1;
}

PageArg parse_arg(const std::string& token, bool kwonly, size_t line) {
  PageArg a;
  a.kwonly = kwonly;
  a.line = line;
  std::string left = token;
  const size_t eq = find_top(token, '=');
  if (eq != std::string::npos) {
    a.default_text = ops::trim(token.substr(eq + 1));
    left = ops::trim(token.substr(0, eq));
  }
  const size_t colon = find_top(left, ':');
  if (colon != std::string::npos) {
    a.name = ops::trim(left.substr(0, colon));
    a.type = ops::trim(left.substr(colon + 1));
    return a;
  }
  // "Tensor? x", "float glu_alpha", "int[] size": the last word is the name.
  const size_t sp = left.find_last_of(' ');
  if (sp == std::string::npos) {
    a.name = left;
  } else {
    a.name = ops::trim(left.substr(sp + 1));
    a.type = ops::trim(left.substr(0, sp));
  }
  return a;
}

// After "默认值为", "默认为", "default value is", ...: the value written, up to where prose
// resumes.
std::optional<std::string> default_in(const std::string& text) {
  static const char* kLeads[] = {
      "默认值为", "默认值是", "默认值：",    "默认值:",          "默认为",
      "默认是",   "默认值",   "defaults to", "default value is", "default value:",
      "default:", "Default:", "Defaults to"};
  for (const char* lead : kLeads) {
    const size_t at = text.find(lead);
    if (at == std::string::npos) continue;
    size_t i = at + std::string(lead).size();
    while (i < text.size() && (text[i] == ' ' || text[i] == '`' || text[i] == ':')) ++i;
    if (i >= text.size()) return std::nullopt;
    std::string v;
    if (text[i] == '"' || text[i] == '\'') {
      const size_t close = text.find(text[i], i + 1);
      if (close == std::string::npos) return std::nullopt;
      return text.substr(i, close - i + 1);
    }
    if (text[i] == '[' || text[i] == '(') {
      const char open = text[i];
      const char close_ch = open == '[' ? ']' : ')';
      const size_t close = text.find(close_ch, i);
      if (close == std::string::npos) return std::nullopt;
      return text.substr(i, close - i + 1);
    }
    // A number, a name (None, True, torch.float16) or 2^63-1: ASCII characters of a value.
    while (i < text.size()) {
      const char c = text[i];
      const bool ok = word_char(c) || c == '.' || c == '-' || c == '+' || c == '^';
      if (!ok) break;
      v += c;
      ++i;
    }
    while (!v.empty() && (v.back() == '.' || v.back() == '-')) v.pop_back();
    if (v.empty()) return std::nullopt;
    return v;
  }
  return std::nullopt;
}

// "- **head\_num**（`int`）：..." and its variants, already in plain text:
// "- head_num (int): ...", "head_num (int): ...", "1. head_num (int): ...".
std::optional<PageParamItem> param_item(const std::string& raw, size_t number) {
  std::string s = ops::trim(raw);
  const bool bold = s.find("**") != std::string::npos;
  std::string t = plain_text(s);
  size_t i = 0;
  if (t.size() >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ') {
    i = 2;
  } else if (!t.empty() && std::isdigit(static_cast<unsigned char>(t[0])) != 0) {
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])) != 0) ++i;
    if (i >= t.size() || (t[i] != '.' && t[i] != ')')) return std::nullopt;
    ++i;
  } else if (!bold) {
    return std::nullopt;  // an unbulleted item must at least bold its name
  }
  while (i < t.size() && t[i] == ' ') ++i;
  const size_t b = i;
  while (i < t.size() && word_char(t[i])) ++i;
  if (i == b || std::isdigit(static_cast<unsigned char>(t[b])) != 0) return std::nullopt;
  PageParamItem item;
  item.name = t.substr(b, i - b);
  item.line = number;
  while (i < t.size() && t[i] == ' ') ++i;
  if (i < t.size() && t[i] == '(') {
    const size_t close = t.find(')', i);
    if (close == std::string::npos) return std::nullopt;
    item.type = ops::trim(t.substr(i + 1, close - i - 1));
    i = close + 1;
    while (i < t.size() && t[i] == ' ') ++i;
  } else if (!bold) {
    return std::nullopt;
  }
  // The name is followed by its colon (possibly after the type), or at least by a type in
  // brackets: "- **actual_seq_lengths** (`Tensor`)可选输入". A bold word in running text is not
  // an item.
  if ((i >= t.size() || t[i] != ':') && item.type.empty()) return std::nullopt;
  if (i < t.size() && t[i] == ':') ++i;
  item.default_text = default_in(t.substr(std::min(i, t.size())));
  return item;
}

bool heading_of(const std::string& line, int* level, std::string* title) {
  const std::string t = ops::trim(line);
  size_t n = 0;
  while (n < t.size() && t[n] == '#') ++n;
  if (n == 0 || n > 6 || n >= t.size() || t[n] != ' ') return false;
  std::string h = t.substr(n + 1);
  // Anchors: "## 参数说明<a name="..."></a>".
  for (size_t a = h.find("<a"); a != std::string::npos; a = h.find("<a")) {
    const size_t close = h.find("</a>", a);
    h.erase(a, close == std::string::npos ? std::string::npos : close + 4 - a);
  }
  *level = static_cast<int>(n);
  *title = ops::trim(plain_text(h));
  return true;
}

bool is_section(const std::string& title, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (title == n) return true;
  }
  return false;
}

}  // namespace

std::string plain_text(std::string_view md) { return plain_text(md, false); }

std::string plain_text(std::string_view md, bool code) {
  static const std::pair<const char*, const char*> kWide[] = {
      {"（", "("}, {"）", ")"}, {"：", ":"}, {"，", ","}, {"；", ";"}, {"　", " "},
      {"【", "["}, {"】", "]"}, {"“", "\""}, {"”", "\""}, {"‘", "'"},  {"’", "'"}};
  std::string s;
  s.reserve(md.size());
  for (size_t i = 0; i < md.size(); ++i) {
    const char c = md[i];
    // Inside a code block Markdown escapes and emphasis are literal text.
    if (!code && c == '\\' && i + 1 < md.size() &&
        std::ispunct(static_cast<unsigned char>(md[i + 1])) != 0) {
      s += md[++i];
      continue;
    }
    if (!code && c == '`') continue;
    if (!code && c == '*' && i + 1 < md.size() && md[i + 1] == '*') {
      ++i;
      continue;
    }
    bool wide = false;
    for (const auto& [from, to] : kWide) {
      const size_t n = std::char_traits<char>::length(from);
      if (md.substr(i, n) == from) {
        s += to;
        i += n - 1;
        wide = true;
        break;
      }
    }
    if (!wide) s += c;
  }
  return s;
}

ApiPage read_api_page(std::string_view text, const std::string& api) {
  ApiPage page;
  {
    std::istringstream in{std::string(text)};
    std::string l;
    size_t n = 0;
    bool fence = false;
    while (std::getline(in, l)) {
      if (!l.empty() && l.back() == '\r') l.pop_back();
      const bool marker = ops::trim(l).rfind("```", 0) == 0;
      page.lines.push_back({++n, l, fence || marker});
      if (marker) fence = !fence;
    }
  }
  std::vector<std::string> plain;
  for (const PageLine& l : page.lines) {
    std::string t = plain_text(l.text, l.in_code);
    // A Python comment is not an argument: "x=1,  # GQA: ...".
    if (l.in_code) {
      char quote = 0;
      for (size_t k = 0; k < t.size(); ++k) {
        if (quote != 0) {
          if (t[k] == quote) quote = 0;
        } else if (t[k] == '\'' || t[k] == '"') {
          quote = t[k];
        } else if (t[k] == '#') {
          t.erase(k);
          break;
        }
      }
    }
    // Doctest prompts are not code: ">>> y = f(" and "...     x, w)".
    const size_t b = t.find_first_not_of(' ');
    if (l.in_code && b != std::string::npos &&
        (t.compare(b, 4, ">>> ") == 0 || t.compare(b, 4, "... ") == 0 || t.substr(b) == "...")) {
      t = t.substr(std::min(t.size(), b + 4));
    }
    plain.push_back(std::move(t));
  }
  // Headings and sections.
  for (size_t i = 0; i < page.lines.size(); ++i) {
    int level = 0;
    std::string title;
    if (page.lines[i].in_code || !heading_of(page.lines[i].text, &level, &title)) continue;
    if (level == 1 && page.title_line == 0) {
      page.title = title;
      page.title_line = page.lines[i].number;
    }
    page.sections.push_back({title, level, i, page.lines.size()});
  }
  for (size_t s = 0; s < page.sections.size(); ++s) {
    for (size_t t = s + 1; t < page.sections.size(); ++t) {
      if (page.sections[t].level <= page.sections[s].level) {
        page.sections[s].end = page.sections[t].heading;
        break;
      }
    }
  }
  auto section = [&](std::initializer_list<const char*> names) -> const PageSection* {
    for (const PageSection& s : page.sections) {
      if (is_section(s.title, names)) return &s;
    }
    return nullptr;
  };
  // Prototypes: every `api(` in the prototype section, in code or in text.
  if (const PageSection* proto =
          section({"函数原型", "接口原型", "Prototype", "Function Prototype", "Syntax", "原型"})) {
    for (size_t i = proto->heading + 1; i < proto->end; ++i) {
      size_t from = 0;
      for (size_t pos = find_api(plain[i], api, from); pos != std::string::npos;
           pos = find_api(plain[i], api, from)) {
        size_t end_line = i;
        size_t end_col = 0;
        const std::string args = call_text(plain, i, pos + api.size(), &end_line, &end_col);
        PagePrototype p;
        p.line = page.lines[i].number;
        bool star = false;
        for (const std::string& tok : ops::split_top_level(args)) {
          if (tok == "*") {
            star = true;
            continue;
          }
          if (tok.rfind("*", 0) == 0) {
            p.has_varargs = true;
            continue;
          }
          // The line holding this argument inside a multi-line prototype.
          size_t line = page.lines[i].number;
          const std::string head = tok.substr(0, std::min(tok.find('='), tok.find(':')));
          for (size_t k = i; k <= end_line; ++k) {
            if (plain[k].find(ops::trim(head)) != std::string::npos) {
              line = page.lines[k].number;
              break;
            }
          }
          p.args.push_back(parse_arg(tok, star, line));
        }
        const std::string rest = plain[end_line].substr(std::min(end_col, plain[end_line].size()));
        const size_t arrow = rest.find("->");
        if (arrow != std::string::npos) {
          p.returns_text = ops::trim(rest.substr(arrow + 2));
          p.return_count = count_returns(p.returns_text);
        }
        page.prototypes.push_back(std::move(p));
        if (end_line > i) {
          i = end_line;
          break;
        }
        from = pos + api.size();
      }
    }
  }
  // Parameter items: the least-indented items of the parameter section, outside code and HTML.
  if (const PageSection* params =
          section({"参数说明", "参数", "Parameters", "Parameter", "Arguments", "入参说明"})) {
    page.params_heading_line = page.lines[params->heading].number;
    std::vector<std::pair<size_t, PageParamItem>> found;
    for (size_t i = params->heading + 1; i < params->end; ++i) {
      const std::string& raw = page.lines[i].text;
      if (page.lines[i].in_code || ops::trim(raw).rfind("<", 0) == 0) continue;
      if (auto item = param_item(raw, page.lines[i].number)) {
        found.emplace_back(indent_of(raw), std::move(*item));
      }
    }
    // Up to three spaces is still the top level in Markdown (" **sinks**(`float`)：").
    for (auto& [ind, item] : found) ind = ind <= 3 ? 0 : ind;
    size_t least = std::string::npos;
    for (const auto& [ind, item] : found) least = std::min(least, ind);
    for (auto& [ind, item] : found) {
      if (ind == least) page.params.push_back(std::move(item));
    }
  }
  // Example calls.
  if (const PageSection* ex = section({"调用示例", "示例", "Examples", "Example", "使用示例"})) {
    for (size_t i = ex->heading + 1; i < ex->end; ++i) {
      if (!page.lines[i].in_code) continue;
      const size_t pos = find_api(plain[i], api, 0);
      if (pos == std::string::npos) continue;
      // `def npu_x(...)` defines, it does not call.
      if (plain[i].find("def ") != std::string::npos && plain[i].find("def ") < pos) continue;
      size_t end_line = i;
      size_t end_col = 0;
      const std::string args = call_text(plain, i, pos + api.size(), &end_line, &end_col);
      PageCall call;
      call.line = page.lines[i].number;
      for (const std::string& tok : ops::split_top_level(args)) {
        const size_t eq = find_top(tok, '=');
        const bool kw = eq != std::string::npos && eq + 1 < tok.size() && tok[eq + 1] != '=' &&
                        eq > 0 && tok[eq - 1] != '!' && tok[eq - 1] != '<' && tok[eq - 1] != '>';
        std::string key = kw ? ops::trim(tok.substr(0, eq)) : "";
        const bool name_ok = !key.empty() && std::all_of(key.begin(), key.end(),
                                                         [](char c) { return word_char(c); });
        if (kw && name_ok) {
          call.keywords.emplace_back(key, ops::trim(tok.substr(eq + 1)));
        } else if (tok.rfind("*", 0) == 0) {
          call.keywords.emplace_back("**", tok);  // *args / **kwargs: anything may be in there
        } else {
          call.positional.push_back(tok);
        }
      }
      page.calls.push_back(std::move(call));
      i = end_line;
    }
  }
  return page;
}

}  // namespace skillrt::op_apidoc
