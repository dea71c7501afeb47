#include "detail/blocks.hpp"

#include "detail/text.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::doc_review::detail {

namespace {

bool any_of_words(std::string_view text, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (icontains(text, w)) return true;
  return false;
}

// "name(...) -> T" (the prototype form): a dotted name, a balanced '(...)', then "->".
bool looks_like_signature(std::string_view text) {
  std::string_view t = ops::trim_view(text);
  if (starts_with(t, "def ") || starts_with(t, "class ")) return false;
  size_t i = 0;
  while (i < t.size() && (is_ident_char(t[i]) || t[i] == '.')) ++i;
  if (i == 0 || i >= t.size() || t[i] != '(') return false;
  int depth = 0;
  for (; i < t.size(); ++i) {
    if (t[i] == '(') ++depth;
    if (t[i] == ')' && --depth == 0) break;
  }
  if (i >= t.size()) return false;
  return starts_with(ops::trim_view(t.substr(i + 1)), "->");
}

}  // namespace

bool is_prototype_heading(std::string_view h) {
  return any_of_words(h, {"函数原型", "接口原型", "原型", "prototype", "signature", "函数定义",
                          "接口定义", "接口形式"});
}

bool is_parameter_heading(std::string_view h) {
  if (any_of_words(h, {"返回", "return", "输出", "output"})) return false;
  return any_of_words(h, {"参数", "parameter", "args", "argument", "输入"});
}

bool is_python_label(std::string_view lang) {
  return lang == "python" || lang == "py" || lang == "python3" || lang == "py3" ||
         lang == "ipython" || lang == "pycon";
}

namespace {

bool starts_like_shell(std::string_view t) {
  for (const char* p :
       {"$ ",    "pip ",     "pip3 ",    "git ",      "cd ",     "export ",  "source ",
        "bash ", "sh ",      "python -", "python3 -", "python ", "python3 ", "conda ",
        "apt ",  "apt-get ", "yum ",     "sudo ",     "mkdir ",  "wget ",    "curl "})
    if (starts_with(t, p)) return true;
  return false;
}

// "python3 train.py" is a command; "python = 3" is Python.
bool shell_not_python(std::string_view t) {
  if (!starts_like_shell(t)) return false;
  const size_t sp = t.find(' ');
  const std::string_view rest =
      ops::trim_view(t.substr(sp == std::string_view::npos ? t.size() : sp));
  return rest.empty() || (rest[0] != '=' && rest[0] != '(' && rest[0] != '.');
}

}  // namespace

BlockKind classify_block(const Page& page, const CodeBlock& block) {
  const std::string& lang = block.lang;
  const std::string heading =
      block.heading >= 0 ? page.headings[static_cast<size_t>(block.heading)].plain : "";
  const bool python_lang = is_python_label(lang);
  const bool shell_lang = lang == "bash" || lang == "sh" || lang == "shell" || lang == "console" ||
                          lang == "zsh" || lang == "shellscript" || lang == "shell-session";
  if (shell_lang) return BlockKind::kShell;
  if (!lang.empty() && !python_lang) return BlockKind::kOther;
  const std::vector<std::string> lines = split_lines(block.text);
  std::string_view first;
  for (const std::string& l : lines) {
    if (!ops::trim_view(l).empty()) {
      first = ops::trim_view(l);
      break;
    }
  }
  if (starts_with(first, "Traceback (most recent call last)")) return BlockKind::kOutput;
  if (block.text.find('(') != std::string::npos &&
      (is_prototype_heading(heading) || looks_like_signature(block.text)))
    return BlockKind::kPrototype;
  if (shell_not_python(first)) return BlockKind::kShell;
  if (python_lang) return BlockKind::kPython;
  // Unlabelled: Python when it imports like Python.
  if (starts_with(first, "import ") ||
      (starts_with(first, "from ") && first.find(" import ") != std::string_view::npos) ||
      starts_with(first, ">>> "))
    return BlockKind::kPython;
  return BlockKind::kOther;
}

std::set<std::string> names_defined_on_page(const Page& page) {
  std::set<std::string> out;
  for (const CodeBlock& b : page.blocks) {
    for (const std::string& raw : split_lines(b.text)) {
      std::string_view l = ops::trim_view(raw);
      for (const char* lead : {"- func:", "func:", "def ", "class ", "m.def(\"", ".def(\""}) {
        const size_t p = l.find(lead);
        if (p == std::string_view::npos) continue;
        std::string_view rest = ops::trim_view(l.substr(p + std::string_view(lead).size()));
        size_t e = 0;
        while (e < rest.size() && is_ident_char(rest[e])) ++e;
        if (e > 0) out.emplace(rest.substr(0, e));
      }
    }
  }
  return out;
}

namespace {

// Bracket depth change of a line of code (strings and comments skipped).
int bracket_delta(std::string_view l) {
  int d = 0;
  char quote = 0;
  for (size_t i = 0; i < l.size(); ++i) {
    const char c = l[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '#') break;
    if (c == '"' || c == '\'') quote = c;
    if (c == '(' || c == '[' || c == '{') ++d;
    if (c == ')' || c == ']' || c == '}') --d;
  }
  return d;
}

bool announces_output(std::string_view comment) {
  const bool about_output = icontains(comment, "输出") || icontains(comment, "结果") ||
                            icontains(comment, "output") || icontains(comment, "prints") ||
                            icontains(comment, "回显");
  if (!about_output) return false;
  const std::string_view t = ops::trim_view(comment);
  return icontains(t, "如下") || icontains(t, "类似") || ends_with(t, ":") ||
         ends_with(t, "\xEF\xBC\x9A");  // ：
}

bool is_elision(std::string_view t) {
  if (t.size() < 2) return false;
  for (size_t i = 0; i < t.size();) {
    if (t[i] == '.') {
      ++i;
      continue;
    }
    if (t.substr(i, 3) == "\xE2\x80\xA6") {  // …
      i += 3;
      continue;
    }
    return false;
  }
  return true;
}

}  // namespace

std::string python_source(std::string_view block_text, bool* output_cut) {
  const std::vector<std::string> lines = split_lines(block_text);
  bool doctest = false;
  for (const std::string& l : lines) {
    const std::string_view t = ops::trim_view(l);
    if (starts_with(t, ">>>") || starts_with(t, "In [")) doctest = true;
  }
  std::string out;
  int depth = 0;  // doctest: open brackets of the statement being read
  bool cut = false;
  for (const std::string& l : lines) {
    std::string_view t = l;
    const std::string_view s = ops::trim_view(l);
    if (cut) {
      t = "";
    } else if (doctest) {
      if (starts_with(s, ">>> ") || s == ">>>") {
        t = s.size() > 4 ? s.substr(4) : "";
        depth = std::max(0, bracket_delta(t));
      } else if (starts_with(s, "... ") || s == "...") {
        t = s.size() > 4 ? s.substr(4) : "";
        depth = std::max(0, depth + bracket_delta(t));
      } else if (starts_with(s, "In [")) {
        const size_t colon = s.find("]:");
        t = colon == std::string_view::npos ? "" : ops::trim_view(s.substr(colon + 2));
        depth = std::max(0, bracket_delta(t));
      } else if (depth > 0) {
        t = s;  // a continuation line written without its "..." prompt
        depth = std::max(0, depth + bracket_delta(t));
      } else {
        t = "";  // output of the previous prompt
      }
    } else if ((starts_with(s, "#") && announces_output(s)) ||
               starts_with(s, "Traceback (most recent call last)")) {
      // Output announced by a comment, or a traceback pasted after the code that raised it.
      cut = true;
      if (output_cut) *output_cut = true;
      t = "";
    } else if (is_elision(s)) {
      out.append(l.substr(0, l.find_first_not_of(" \t")));  // keep the indentation
      out += "...\n";
      continue;
    }
    out.append(t);
    out.push_back('\n');
  }
  return out;
}

bool marked_as_fragment(const Page& page, const CodeBlock& block) {
  static const char* kMarkers[] = {
      "不可直接拷贝", "不可直接运行",       "不能直接运行", "仅供参考", "伪代码",
      "示意",         "代码片段",           "关键步骤",     "部分代码", "pseudo",
      "not runnable", "for reference only", "snippet",      "excerpt"};
  auto marked = [](std::string_view text) {
    for (const char* m : kMarkers)
      if (icontains(text, m)) return true;
    return false;
  };
  // The nearest prose lines above the fence (at most two, within five lines).
  int seen = 0;
  for (int n = block.fence_line - 1; n >= 1 && n >= block.fence_line - 5 && seen < 2; --n) {
    const LineKind k = page.kind(n);
    if (k == LineKind::kBlank) continue;
    if (k != LineKind::kProse) break;
    if (marked(page.line(n))) return true;
    ++seen;
  }
  for (const std::string& l : split_lines(block.text)) {
    const std::string_view t = ops::trim_view(l);
    if (t.empty()) continue;
    return starts_with(t, "#") && marked(t);
  }
  return false;
}

std::vector<Prototype> parse_prototypes(const CodeBlock& block) {
  std::vector<Prototype> out;
  const std::string& t = block.text;
  int line = block.first_line;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '\n') {
      ++line;
      continue;
    }
    if (!is_ident_start(t[i]) || (i > 0 && (is_ident_char(t[i - 1]) || t[i - 1] == '.'))) continue;
    size_t e = i;
    while (e < t.size() && (is_ident_char(t[e]) || t[e] == '.')) ++e;
    std::string name = t.substr(i, e - i);
    if (name == "def" || name == "class") {
      i = e;
      continue;
    }
    if (e >= t.size() || t[e] != '(') {
      i = e - 1;
      continue;
    }
    // The balanced parameter list.
    int depth = 0;
    size_t close = e;
    int end_line = line;
    for (; close < t.size(); ++close) {
      if (t[close] == '\n') ++end_line;
      if (t[close] == '(') ++depth;
      if (t[close] == ')' && --depth == 0) break;
    }
    if (close >= t.size()) break;
    Prototype p;
    p.name = name;
    p.line = line;
    const size_t eol = t.find('\n', i);
    p.text =
        std::string(ops::trim_view(t.substr(i, (eol == std::string::npos ? t.size() : eol) - i)));
    const std::string_view list = std::string_view(t).substr(e + 1, close - e - 1);
    bool open = false;
    p.params = parse_python_params(list, &open);
    p.variadic = open || list.find("*args") != std::string_view::npos ||
                 list.find("...") != std::string_view::npos;
    out.push_back(std::move(p));
    // Skip the return annotation and anything to the end of this signature's line.
    size_t next = t.find('\n', close);
    if (next == std::string::npos) break;
    line = end_line + 1;
    i = next;
  }
  return out;
}

}  // namespace skillrt::doc_review::detail
