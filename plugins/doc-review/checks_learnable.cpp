// learnable 学得会: a newcomer can follow the page in order. Acronyms are expanded before they
// are relied on, numbered procedures say what success looks like, and install or usage pages
// state their prerequisites and the versions they were written for.
#include <algorithm>
#include <map>

#include "checks.hpp"
#include "detail/blocks.hpp"
#include "detail/text.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::doc_review {

namespace {

using detail::is_digit;
using detail::is_ident_char;
using detail::is_upper;

struct Occurrence {
  int line = 0;
  size_t order = 0;  // position in reading order
  size_t paragraph = 0;
};

bool small_word(std::string_view w) {
  for (const char* s : {"of", "and", "for", "the", "to", "in", "on", "with", "a", "an", "by"})
    if (detail::iequals(w, s)) return true;
  return false;
}

// Initials of the Latin words in `text` (small words skipped), lower-case.
std::string initials(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !detail::is_ident_start(text[i])) ++i;
    size_t e = i;
    while (e < text.size() && (is_ident_char(text[e]) || text[e] == '-')) ++e;
    if (e > i && !small_word(text.substr(i, e - i))) {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(text[i]))));
      // CamelCase inside a word counts too (MatMul -> mm).
      for (size_t k = i + 1; k < e; ++k)
        if (is_upper(text[k]) && !is_upper(text[k - 1]))
          out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(text[k]))));
    }
    i = e;
  }
  return out;
}

// Whether `acr`'s letters appear in order among the initials.
bool matches_initials(std::string_view acr, std::string_view init) {
  if (init.empty()) return false;
  const std::string a = detail::lower_ascii(acr);
  if (a[0] != init[0]) return false;
  size_t j = 0;
  for (char c : init)
    if (j < a.size() && c == a[j]) ++j;
  return j >= std::min<size_t>(a.size(), 2);
}

// The byte index of a '(' or '（' at `p` (after spaces), with its length; npos when none.
size_t open_paren(std::string_view s, size_t p, size_t* len) {
  while (p < s.size() && s[p] == ' ') ++p;
  if (p < s.size() && s[p] == '(') {
    *len = 1;
    return p;
  }
  if (s.substr(p, 3) == "\xEF\xBC\x88") {  // （
    *len = 3;
    return p;
  }
  return std::string_view::npos;
}

size_t close_paren(std::string_view s, size_t from) {
  const size_t a = s.find(')', from);
  const size_t b = s.find("\xEF\xBC\x89", from);  // ）
  return std::min(a, b);
}

// Is the acronym at [p, e) of `text` expanded right there: "AMP (Automatic Mixed Precision)",
// "AMP（自动混合精度）", "Automatic Mixed Precision (AMP)", "自动混合精度（AMP）"?
// A short Chinese gloss: "自动混合精度", not a clause ("输出格式为NBSD时，仅支持...").
bool is_cjk_gloss(std::string_view inner, std::string_view acr) {
  if (inner.find(acr) != std::string_view::npos) return false;
  for (const char* stop :
       {"\xEF\xBC\x8C", "\xE3\x80\x81", "\xE3\x80\x82", ",", ";", "\xEF\xBC\x9B"})  // ，、。,;；
    if (inner.find(stop) != std::string_view::npos) return false;
  size_t chars = 0;
  for (size_t i = 0; i < inner.size();) {
    detail::next_code_point(inner, &i);
    ++chars;
  }
  return chars <= 16 && detail::count_han(inner) >= 2;
}

// How the acronym at [p, e) of `text` is expanded right there. Strong: "AMP (Automatic Mixed
// Precision)", "AMP（自动混合精度）", "Automatic Mixed Precision (AMP)", "（AMP，Automatic Mixed
// Precision）". Weak: "自动混合精度（AMP）" — Han characters before the parenthesis are as often a
// caption ("plog日志示例（HCCL）") as a gloss, so a weak one can excuse a use but never ground a
// finding.
enum class Definition { kNone, kWeak, kStrong };

Definition defines_here(std::string_view text, size_t p, size_t e) {
  const std::string_view acr = text.substr(p, e - p);
  size_t len = 0;
  const size_t open = open_paren(text, e, &len);
  if (open != std::string_view::npos) {
    const size_t close = close_paren(text, open + len);
    if (close != std::string_view::npos && close - open < 160) {
      std::string_view inner = ops::trim_view(text.substr(open + len, close - open - len));
      // "GQA（Grouped-Query Attention，分组查询注意力）": the part before a comma.
      const size_t comma = std::min(inner.find(','), inner.find("\xEF\xBC\x8C"));
      const std::string_view head =
          comma == std::string_view::npos ? inner : ops::trim_view(inner.substr(0, comma));
      if (is_cjk_gloss(inner, acr) || matches_initials(acr, initials(head)))
        return Definition::kStrong;
    }
  }
  // Inside parentheses, after its expansion: the acronym must be all the parenthesis holds, or
  // be followed by a comma and its expansion.
  size_t before = p;
  while (before > 0 && text[before - 1] == ' ') --before;
  if (before > 0 && text[before - 1] == '(') {
    --before;
  } else if (before >= 3 && text.substr(before - 3, 3) == "\xEF\xBC\x88") {
    before -= 3;
  } else {
    return Definition::kNone;
  }
  size_t after = e;
  while (after < text.size() && text[after] == ' ') ++after;
  const std::string_view rest = text.substr(after);
  const bool closes = detail::starts_with(rest, ")") || detail::starts_with(rest, "\xEF\xBC\x89");
  if (!closes) {
    size_t clen = 0;
    if (detail::starts_with(rest, ",")) clen = 1;
    if (detail::starts_with(rest, "\xEF\xBC\x8C")) clen = 3;
    if (clen == 0) return Definition::kNone;
    const size_t close = close_paren(rest, clen);
    if (close == std::string_view::npos) return Definition::kNone;
    const std::string_view gloss = ops::trim_view(rest.substr(clen, close - clen));
    return is_cjk_gloss(gloss, acr) || matches_initials(acr, initials(gloss)) ? Definition::kStrong
                                                                              : Definition::kNone;
  }
  const std::string_view tail = ops::trim_view(text.substr(0, before));
  // Latin expansion: the last few words' initials.
  size_t words = 0, k = tail.size();
  while (k > 0 && words < acr.size() + 3) {
    while (k > 0 && tail[k - 1] == ' ') --k;
    size_t b = k;
    while (b > 0 && (is_ident_char(tail[b - 1]) || tail[b - 1] == '-')) --b;
    if (b == k) break;
    ++words;
    k = b;
    const std::string init = initials(tail.substr(k));
    if (matches_initials(acr, init) && init.size() + 1 >= acr.size()) return Definition::kStrong;
  }
  // Han characters right before the parenthesis.
  if (tail.size() >= 6 && detail::count_han(tail.substr(tail.size() - 6)) == 2)
    return Definition::kWeak;
  return Definition::kNone;
}

void check_acronyms(const ReviewScope& scope, const Page& page) {
  std::map<std::string, Occurrence> first_use, first_def, first_any_def;
  size_t order = 0, para_index = 0;
  for (const Paragraph& para : page.paragraphs) {
    ++para_index;
    const std::string& t = para.text;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == kSpanOpen) {  // code and formulas are not prose
        const size_t close = t.find(kSpanClose, i);
        if (close == std::string::npos) break;
        i = close;
        continue;
      }
      if (!is_upper(t[i]) || (i > 0 && (is_ident_char(t[i - 1]) || t[i - 1] == '.' ||
                                        t[i - 1] == '-' || t[i - 1] == '/' || t[i - 1] == '$')))
        continue;
      size_t e = i;
      while (e < t.size() && (is_upper(t[e]) || is_digit(t[e]))) ++e;
      const size_t letters = e - i;
      // Plural "NPUs" stays the same acronym.
      size_t end = e;
      if (end < t.size() && t[end] == 's' && (end + 1 >= t.size() || !is_ident_char(t[end + 1])))
        ++end;
      if (letters < 2 || letters > 8 ||
          (end < t.size() &&
           (is_ident_char(t[end]) || t[end] == '-' || t[end] == '/' || t[end] == '_'))) {
        i = end;
        continue;
      }
      const std::string acr = t.substr(i, e - i);
      const auto digits = std::count_if(acr.begin(), acr.end(), [](char c) { return is_digit(c); });
      // "A2", "V1": product or version names; "EI0002": an error code.
      if ((is_digit(acr[1]) && letters == 2) || digits > 2) {
        i = end;
        continue;
      }
      const Occurrence occ{para.line_at(i), ++order, para_index};
      if (!first_use.count(acr)) first_use[acr] = occ;
      const Definition d = defines_here(t, i, e);
      if (d != Definition::kNone && !first_any_def.count(acr)) first_any_def[acr] = occ;
      if (d == Definition::kStrong && !first_def.count(acr)) first_def[acr] = occ;
      i = end;
    }
  }
  for (const auto& [acr, def] : first_def) {
    const Occurrence& use = first_use[acr];
    const Occurrence& any = first_any_def[acr];
    // Expanded (even weakly) at or before the first use, or in the same paragraph a few words
    // later: the reader has it in time.
    if (use.order >= any.order || use.paragraph == any.paragraph) continue;
    scope.add({Axis::kLearnable, Severity::kWarning, "term-before-definition", page.rel, use.line,
               acr + " is used on line " + std::to_string(use.line) +
                   " but expanded only on line " + std::to_string(def.line),
               detail::excerpt(page.line(use.line)), "", "",
               "expand " + acr + " at its first use (line " + std::to_string(use.line) +
                   "), e.g. \"Full Name (" + acr + ")\""});
  }
}

bool says_result(std::string_view text) {
  for (const char* w :
       {"预期",         "结果",     "输出",       "回显",    "显示",       "成功",     "打印",
        "得到",         "如下信息", "验证",       "确认",    "检查",       "则表示",   "即可生成",
        "即可看到",     "完成后",   "将生成",     "会生成",  "即生成",     "可以看到", "出现",
        "expected",     "output",   "result",     "success", "should see", "prints",   "returns",
        "you will see", "verify",   "check that", "shows",   "is created", "appears"})
    if (detail::icontains(text, w)) return true;
  return false;
}

// A verification section right after the steps ("## 安装后验证", "## Verify") states the result.
bool is_verification_heading(std::string_view h) {
  for (const char* w : {"验证", "检查", "结果", "确认", "输出", "预期", "verify", "verification",
                        "check", "result", "output", "expected"})
    if (detail::icontains(h, w)) return true;
  return false;
}

// "根据实际场景选择以下方式之一：" introduces alternatives, not a procedure.
bool introduces_alternatives(std::string_view text) {
  for (const char* w : {"之一", "任选", "任一", "选择以下", "以下方式", "以下方法", "one of",
                        "either", "alternatives", "options"})
    if (detail::icontains(text, w)) return true;
  return false;
}

// Ordered list marker at top level: "1. ", "2) ", "3、".
int step_number(std::string_view l) {
  size_t i = 0;
  while (i < l.size() && l[i] == ' ') ++i;
  if (i > 3) return 0;
  size_t d = i;
  while (d < l.size() && is_digit(l[d])) ++d;
  if (d == i || d - i > 2 || d >= l.size()) return 0;
  const bool marker = ((l[d] == '.' || l[d] == ')') && (d + 1 == l.size() || l[d + 1] == ' ')) ||
                      l.substr(d, 3) == "\xE3\x80\x81";
  return marker ? std::stoi(std::string(l.substr(i, d - i))) : 0;
}

void check_steps(const ReviewScope& scope, const Page& page) {
  const int n = static_cast<int>(page.lines.size());
  int k = 1;
  while (k <= n) {
    if (page.kind(k) != LineKind::kProse || step_number(page.line(k)) != 1) {
      ++k;
      continue;
    }
    // The procedure: items 1..N with their indented content, up to a heading or a line that
    // starts again at the left margin without being the next item.
    const int start = k;
    int steps = 1, expected = 2, last = k;
    bool has_code = false;
    int j = k + 1;
    for (; j <= n; ++j) {
      const LineKind kind = page.kind(j);
      if (kind == LineKind::kHeading) break;
      if (kind == LineKind::kFence || kind == LineKind::kCode) {
        has_code = true;
        last = j;
        continue;
      }
      if (kind == LineKind::kBlank) continue;
      const std::string& l = page.line(j);
      const int num = step_number(l);
      if (num == expected) {
        ++steps;
        ++expected;
        last = j;
        continue;
      }
      if (num == 1) break;
      if (!l.empty() && l[0] != ' ' && l[0] != '\t' && kind == LineKind::kProse) break;
      last = j;
    }
    k = j;
    if (steps < scope.limits.min_steps || !has_code) continue;
    // A procedure runs something: at least one shell block among its steps (steps that only
    // edit files or write code have no run to show).
    bool runs = false;
    for (const CodeBlock& b : page.blocks)
      if (b.fence_line > start && b.fence_line <= last &&
          detail::classify_block(page, b) == detail::BlockKind::kShell)
        runs = true;
    if (!runs) continue;
    // The two prose lines before step 1 may say these are alternatives.
    bool alternatives = false;
    for (int q = start - 1, seen = 0; q >= 1 && seen < 2; --q) {
      if (page.kind(q) == LineKind::kBlank) continue;
      if (page.kind(q) != LineKind::kProse) break;
      alternatives = alternatives || introduces_alternatives(page.line(q));
      ++seen;
    }
    if (alternatives) continue;
    // Preparation steps (准备, 前提, Prerequisites) set things up; the procedure that follows is
    // where a result is due.
    const int section = page.heading_of(start);
    if (section >= 0) {
      const std::string& h = page.headings[static_cast<size_t>(section)].plain;
      bool preparation = false;
      for (const char* w : {"准备", "前提", "前置", "prepar", "prerequisite", "before you"})
        preparation = preparation || detail::icontains(h, w);
      if (preparation) continue;
    }
    // The result may be stated inside the steps, right after them, or in a verification
    // section that follows.
    bool found = false;
    for (int q = start; q <= std::min(n, last + 12) && !found; ++q) {
      if (q > last && page.kind(q) == LineKind::kHeading) {
        // A verification or output section right after the steps is the stated result.
        const int h = page.heading_of(q);
        found = h >= 0 && is_verification_heading(page.headings[static_cast<size_t>(h)].plain);
        break;
      }
      if (page.kind(q) == LineKind::kCode) continue;
      found = says_result(page.line(q));
    }
    if (found) continue;
    scope.add({Axis::kLearnable, Severity::kWarning, "steps-without-result", page.rel, start,
               std::to_string(steps) + " numbered steps (lines " + std::to_string(start) + "-" +
                   std::to_string(last) + ") never say what a successful run shows",
               detail::excerpt(page.line(start)), "", "",
               "after the steps (or the step that matters), state the expected result: the "
               "output, file or message that shows it worked"});
  }
}

// Install, quick-start and deployment pages: by the file name's words or the title.
bool is_setup_page(const Page& page) {
  const std::string name = detail::lower_ascii(page.path.stem().string());
  // Link lists (a menu of install pages) and pages without commands are not procedures.
  if (detail::starts_with(name, "_") || detail::starts_with(name, "menu") ||
      detail::starts_with(name, "index") || detail::starts_with(name, "readme"))
    return false;
  bool commands = false;
  for (const CodeBlock& b : page.blocks)
    commands = commands || detail::classify_block(page, b) == detail::BlockKind::kShell;
  if (!commands) return false;
  size_t b = 0;
  while (b < name.size()) {
    size_t e = name.find_first_of("_-. ", b);
    if (e == std::string::npos) e = name.size();
    const std::string word = name.substr(b, e - b);
    for (const char* w : {"install", "installation", "installing", "quickstart", "deploy",
                          "deployment", "getting", "安装", "部署", "快速入门", "快速安装"})
      if (word == w) return true;
    b = e + 1;
  }
  for (const char* w : {"安装", "部署", "快速入门", "快速上手", "快速开始", "install",
                        "quick start", "getting started", "使用指南"})
    if (detail::icontains(page.title, w)) return true;
  return false;
}

bool has_version_number(std::string_view l) {
  for (size_t i = 0; i + 2 < l.size(); ++i)
    if (is_digit(l[i]) && l[i + 1] == '.' && is_digit(l[i + 2])) return true;
  return false;
}

void check_setup_page(const ReviewScope& scope, const Page& page) {
  if (!is_setup_page(page)) return;
  bool prerequisites = false, versions = false;
  for (int n = 1; n <= static_cast<int>(page.lines.size()); ++n) {
    const LineKind kind = page.kind(n);
    if (kind == LineKind::kCode || kind == LineKind::kComment) continue;
    const std::string l = detail::strip_inline_markdown(page.line(n));
    for (const char* w :
         {"前提", "前置", "依赖", "准备", "环境要求", "配套", "要求", "需要安装", "需先", "已安装",
          "root用户", "权限", "prerequisite", "requirement", "depend", "before you begin",
          "before you start", "as root", "permission"})
      prerequisites = prerequisites || detail::icontains(l, w);
    if (has_version_number(l)) {
      for (const char* w : {"版本", "version", "配套", "compatib", "python", "pytorch", "torch",
                            "cann", "gcc", "cmake", "固件", "驱动", "driver"})
        versions = versions || detail::icontains(l, w);
    }
  }
  const int title_line = page.headings.empty() ? 1 : page.headings.front().line;
  if (!prerequisites) {
    scope.add({Axis::kLearnable, Severity::kWarning, "missing-prerequisites", page.rel, title_line,
               "an install or usage page without prerequisites: nothing says what must be in "
               "place first (hardware, CANN, driver, Python, PyTorch)",
               detail::excerpt(page.line(title_line)), "", "",
               "add a 前提条件 / Prerequisites section before the first step"});
  }
  if (!versions) {
    scope.add({Axis::kLearnable, Severity::kWarning, "missing-version-note", page.rel, title_line,
               "an install or usage page that names no versions (CANN, PyTorch, Python, "
               "torch_npu): a reader cannot tell whether it applies to their setup",
               detail::excerpt(page.line(title_line)), "", "",
               "state the versions the page was written and tested for, e.g. a 版本配套 table"});
  }
}

}  // namespace

void check_learnable(const ReviewScope& scope) {
  for (const Page& page : scope.pages) {
    if (scope.cancelled && scope.cancelled()) return;
    check_acronyms(scope, page);
    check_steps(scope, page);
    check_setup_page(scope, page);
  }
}

}  // namespace skillrt::doc_review
