#include "detail/scanner.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <unordered_map>
#include <unordered_set>

namespace skillrt::gpu_migration::detail {

class RuleIndex {
 public:
  struct ChainEntry {
    const Rule* rule;
    const Dotted* pattern;
  };
  // Chain and import candidates keyed by the pattern's first component, in table order.
  // Keys view strings owned by the rules, which outlive the index.
  std::unordered_map<std::string_view, std::vector<ChainEntry>> chains;
  std::unordered_map<std::string_view, std::vector<ChainEntry>> imports;
  std::unordered_map<std::string_view, std::vector<const Rule*>> attributes;
  // (length, first byte) of every key above: most identifiers are ruled out without hashing.
  std::vector<bool> shapes = std::vector<bool>(32 * 256, false);
  void add_shape(std::string_view key) {
    if (!key.empty() && key.size() < 32) {
      shapes[key.size() * 256 + static_cast<unsigned char>(key[0])] = true;
    }
  }
  bool maybe_key(std::string_view name) const {
    if (name.empty() || name.size() >= 32) return true;
    return shapes[name.size() * 256 + static_cast<unsigned char>(name[0])];
  }
  std::vector<const Rule*> strings;
  // Per string rule: the text a string must start with for its regex to match ("^cuda(:.*)?$"
  // needs "cuda"), or empty when the regex does not say. Most strings holding a needle (messages
  // that mention cuda) are ruled out without running std::regex.
  std::vector<std::string_view> string_starts;
  std::vector<const Rule*> texts;
  // Every text rule's file globs, once each: asked for every file of the repository.
  std::vector<std::string_view> text_globs;
  std::vector<const Rule*> transpose_view;
  std::vector<const Rule*> assignments;
  std::unordered_map<std::string, std::string> min_versions;  // apis_config.json
  // The logical lines any Python rule can fire on (see Scanner::Scanner for why it is exact).
  LineFilter lines;
};

namespace {

std::string_view view(std::string_view src, const Token& t) {
  return src.substr(t.begin, t.end - t.begin);
}

bool is_op(std::string_view src, const Token& t, char c) {
  return t.kind == TokenKind::kOp && src[t.begin] == c;
}

bool is_name(std::string_view src, const Token& t, std::string_view name) {
  return t.kind == TokenKind::kName && view(src, t) == name;
}

bool prefix_of(const Dotted& pattern, const std::vector<std::string_view>& chain) {
  if (pattern.size() > chain.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != chain[i]) return false;
  }
  return true;
}

std::string join(const std::vector<std::string_view>& parts, size_t n) {
  std::string out;
  for (size_t i = 0; i < n && i < parts.size(); ++i) {
    if (i) out += '.';
    out += parts[i];
  }
  return out;
}

std::vector<int> parse_version(std::string_view v) {
  std::vector<int> out;
  int cur = 0;
  bool any = false;
  for (char c : v) {
    if (c >= '0' && c <= '9') {
      cur = cur * 10 + (c - '0');
      any = true;
    } else if (c == '.') {
      out.push_back(cur);
      cur = 0;
      any = false;
    } else {
      break;
    }
  }
  if (any) out.push_back(cur);
  return out;
}

bool version_less(const std::vector<int>& a, const std::vector<int>& b) {
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const int x = i < a.size() ? a[i] : 0;
    const int y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y;
  }
  return false;
}

// Refines a dependency finding with the minimum versions of apis_config.json.
void check_version(const RuleIndex& index, std::string_view line, Match& m) {
  static const std::regex kSpec(
      "(transformers|accelerate|peft|trl)\\s*(==|>=|<=|~=|<|>|!=)?\\s*([0-9][0-9A-Za-z.]*)?");
  std::match_results<std::string_view::const_iterator> r;
  if (!std::regex_search(line.begin(), line.end(), r, kSpec)) return;
  const std::string pkg = r[1].str();
  auto it = index.min_versions.find(pkg);
  if (it == index.min_versions.end()) return;
  const std::string op = r[2].str();
  const std::string ver = r[3].str();
  if (op.empty() || ver.empty()) {
    m.note = pkg + " is not pinned: transfer_to_npu's hooks need at least " + it->second +
             "; the installed version cannot be told from the sources";
    return;
  }
  const bool below = version_less(parse_version(ver), parse_version(it->second));
  if ((op == "==" || op == "<=" || op == "<" || op == "~=") && below) {
    m.effort = "small_manual";
    m.note = pkg + " " + op + ver + " is below " + it->second +
             ", the minimum for which transfer_to_npu hooks its CUDA checks: upgrade it";
    return;
  }
  if (op == "<" || op == "<=") {
    m.note = pkg + " " + op + ver + " allows versions below " + it->second + ": raise the floor";
    m.effort = "small_manual";
    return;
  }
  m.note = pkg + " " + op + ver + " is at or above " + it->second + " (apis_config.json)";
}

// `import a.b as c` -> c: a.b; `from a.b import c [as d]` -> c (or d): a.b.c. Relative imports
// and star imports name nothing here. Read from the raw text before tokenizing, so that one
// tokenization can keep the lines that use an alias.
// `top_level` (when given) collects the names bound by imports at column 0: what the module
// offers to `from module import name` elsewhere. A relative import's path starts with one "."
// component per level.
std::unordered_map<std::string_view, std::vector<std::string_view>> prescan_aliases(
    std::string_view src, std::unordered_set<std::string_view>* top_level = nullptr) {
  std::unordered_map<std::string_view, std::vector<std::string_view>> out;
  const auto is_word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  size_t line = 0;
  while (line < src.size()) {
    size_t eol = src.find('\n', line);
    if (eol == std::string_view::npos) eol = src.size();
    size_t p = line;
    while (p < eol && (src[p] == ' ' || src[p] == '\t')) ++p;
    const bool from = src.compare(p, 5, "from ") == 0;
    const bool imp = src.compare(p, 7, "import ") == 0;
    if (!from && !imp) {
      line = eol + 1;
      continue;
    }
    // The statement's extent: to the ')' of a parenthesised list, past backslash joins.
    size_t end = eol;
    const std::string_view first_line = src.substr(p, eol - p);
    const size_t hash = first_line.find('#');
    const std::string_view code = first_line.substr(0, hash);
    if (code.find('(') != std::string_view::npos && code.find(')') == std::string_view::npos) {
      const size_t close = src.find(')', eol);
      end = close == std::string_view::npos ? src.size() : close + 1;
    } else {
      while (end > p && end < src.size() && src[end - 1] == '\\') {
        const size_t next = src.find('\n', end + 1);
        end = next == std::string_view::npos ? src.size() : next;
      }
    }
    // Words and dots of the statement, comments dropped.
    std::vector<std::string_view> words;  // "." stands for a dot
    for (size_t q = p; q < end;) {
      const char c = src[q];
      if (c == '#') {
        while (q < end && src[q] != '\n') ++q;
      } else if (is_word(c)) {
        size_t e = q;
        while (e < end && is_word(src[e])) ++e;
        words.push_back(src.substr(q, e - q));
        q = e;
      } else {
        if (c == '.' || c == ',') words.push_back(src.substr(q, 1));
        ++q;
      }
    }
    size_t w = 1;
    const auto dotted = [&](std::vector<std::string_view>* path) {
      while (w < words.size() && words[w] != "." && words[w] != ",") {
        path->push_back(words[w++]);
        if (w < words.size() && words[w] == ".") {
          ++w;
        } else {
          break;
        }
      }
    };
    std::vector<std::string_view> base;
    bool ok = true;
    if (from) {
      while (w < words.size() && words[w] == ".") base.push_back(words[w++]);
      const size_t dots = base.size();
      if (w < words.size() && words[w] != "import") dotted(&base);
      ok = (base.size() > dots || dots > 0) && w < words.size() && words[w] == "import";
      ++w;
    }
    while (ok && w < words.size()) {
      if (words[w] == ",") {
        ++w;
        continue;
      }
      std::vector<std::string_view> path = base;
      const size_t before = path.size();
      dotted(&path);
      if (path.size() == before) break;
      std::string_view name = from ? path.back() : path.front();
      if (w + 1 < words.size() && words[w] == "as") {
        name = words[w + 1];
        w += 2;
      } else if (!from) {
        path.resize(1);  // `import a.b` binds a
      }
      out[name] = path;
      if (top_level != nullptr && p == line) top_level->insert(name);
    }
    line = end >= eol ? (src.find('\n', end) == std::string_view::npos ? src.size()
                                                                       : src.find('\n', end) + 1)
                      : eol + 1;
  }
  return out;
}

// name -> the contents of the string literals assigned to it (`device_type = 'cuda' if ... else
// 'cpu'`, `self.device = torch.device(f"cuda:{i}")`), all assignments of the file together.
std::unordered_map<std::string_view, std::string> collect_assignments(
    std::string_view src, const std::vector<Token>& tk) {
  std::unordered_map<std::string_view, std::string> out;
  bool start = true;
  for (size_t k = 0; k < tk.size(); ++k) {
    const Token& t = tk[k];
    if (t.kind == TokenKind::kComment) continue;
    const bool at_start = start;
    start = t.kind == TokenKind::kNewline || is_op(src, t, ';');
    if (!at_start || t.kind != TokenKind::kName) continue;
    size_t j = k;
    std::string_view target = view(src, t);
    while (j + 2 < tk.size() && is_op(src, tk[j + 1], '.') && tk[j + 2].kind == TokenKind::kName) {
      j += 2;
      target = view(src, tk[j]);
    }
    if (j + 2 >= tk.size() || !is_op(src, tk[j + 1], '=') || is_op(src, tk[j + 2], '=')) continue;
    std::string& value = out[target];
    for (size_t q = j + 2; q < tk.size() && tk[q].kind != TokenKind::kNewline; ++q) {
      if (tk[q].kind == TokenKind::kString) {
        value += src.substr(tk[q].content_begin, tk[q].content_end - tk[q].content_begin);
        value += '\n';
      }
    }
  }
  return out;
}

// Whether the call whose '(' is code token `open` passes rule.argument (and, with
// rule.argument_regex, a value that matches through the assignments of the value's last name),
// and where the argument is. A value that is itself a matching string literal is left to the
// string rules, which report it already.
struct ArgumentHit {
  bool hit = false;
  size_t begin = 0;  // offset of the keyword
};

ArgumentHit argument_matches(std::string_view src, const std::vector<int>& code,
                             const std::vector<Token>& tk, size_t open, const Rule& rule,
                             const std::unordered_map<std::string_view, std::string>& assigned) {
  ArgumentHit none;
  const auto tok = [&](size_t k) -> const Token& { return tk[code[k]]; };
  int depth = 0;
  for (size_t k = open; k < code.size(); ++k) {
    const Token& t = tok(k);
    if (t.kind == TokenKind::kOp) {
      const char c = src[t.begin];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') {
        if (--depth == 0) return none;
      }
    }
    if (depth != 1 || t.kind != TokenKind::kName || view(src, t) != rule.argument) continue;
    const bool keyword = k + 1 < code.size() && is_op(src, tok(k + 1), '=') &&
                         (is_op(src, tok(k - 1), ',') || is_op(src, tok(k - 1), '('));
    if (!keyword) continue;
    const ArgumentHit here{true, t.begin};
    if (!rule.argument_regex) return here;
    std::string_view last_name;
    int d = 0;
    for (size_t q = k + 2; q < code.size(); ++q) {
      const Token& v = tok(q);
      if (v.kind == TokenKind::kOp) {
        const char c = src[v.begin];
        if (c == '(' || c == '[' || c == '{') ++d;
        if (c == ')' || c == ']' || c == '}') {
          if (d-- == 0) break;
        }
        if (c == ',' && d == 0) break;
      }
      if (v.kind == TokenKind::kString) return none;  // a literal: the string rules see it
      if (v.kind == TokenKind::kName) last_name = view(src, v);
    }
    if (last_name.empty()) return none;
    auto a = assigned.find(last_name);
    return a != assigned.end() && std::regex_search(a->second, *rule.argument_regex) ? here : none;
  }
  return none;
}

// Functions are read from the raw lines, and only in a file where a wrapper rule fired (few):
// `def NAME` at a line's start after blanks; the header ends on the first line whose code ends
// with ':'; the body ends before the first later line (not blank, not a comment) that starts at
// the def's column or left of it. Continuation lines of a bracket are indented further in
// practice, and a body cut short by a flush-left string only misses a wrapper, never invents one.
template <typename Lines>
void mark_wrappers(std::string_view src, const Lines& lines, PythonScan& out) {
  bool any = false;
  for (const Match& m : out.matches) any = any || m.rule->wrapper;
  if (!any) return;
  struct Def {
    std::string_view name;
    int line;
    int column;
    int end_line;
  };
  std::vector<Def> defs;
  const int total = lines.line_of(src.size());
  const auto code_of = [&](int l) {
    std::string_view text = lines.line_text(l);
    return text.substr(0, text.find('#'));
  };
  for (int l = 1; l <= total; ++l) {
    const std::string_view text = lines.line_text(l);
    const size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;
    std::string_view rest = text.substr(first);
    if (rest.rfind("async ", 0) == 0) rest = rest.substr(rest.find_first_not_of(' ', 6));
    if (rest.rfind("def ", 0) != 0) continue;
    rest = rest.substr(4);
    const size_t name_end = rest.find_first_of(" (:");
    if (name_end == 0 || name_end == std::string_view::npos) continue;
    Def d{rest.substr(0, name_end), l, static_cast<int>(first) + 1, total};
    int header = l;
    while (header < total) {
      std::string_view c = code_of(header);
      while (!c.empty() && std::isspace(static_cast<unsigned char>(c.back()))) c.remove_suffix(1);
      if (!c.empty() && c.back() == ':') break;
      ++header;
    }
    for (int b = header + 1; b <= total; ++b) {
      const std::string_view body = lines.line_text(b);
      const size_t f = body.find_first_not_of(" \t");
      if (f == std::string_view::npos || body[f] == '#') continue;
      if (static_cast<int>(f) + 1 <= d.column) {
        d.end_line = b - 1;
        break;
      }
    }
    defs.push_back(d);
  }
  std::vector<const Rule*> marked(defs.size(), nullptr);
  for (const Match& m : out.matches) {
    if (!m.rule->wrapper) continue;
    int best = -1;
    for (size_t d = 0; d < defs.size(); ++d) {
      if (defs[d].line < m.line && m.line <= defs[d].end_line &&
          (best < 0 || defs[d].line > defs[static_cast<size_t>(best)].line)) {
        best = static_cast<int>(d);
      }
    }
    if (best >= 0 && marked[static_cast<size_t>(best)] == nullptr) {
      marked[static_cast<size_t>(best)] = m.rule;
    }
  }
  for (size_t d = 0; d < defs.size(); ++d) {
    if (marked[d] == nullptr) continue;
    out.wrappers.push_back(
        WrapperDef{std::string(defs[d].name), defs[d].line, defs[d].end_line, marked[d]});
  }
}

std::string trimmed(std::string_view l) {
  const size_t b = l.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  l = l.substr(b);
  if (l.size() > 240) return std::string(l.substr(0, 240)) + "...";
  return std::string(l);
}

// The needle when the rule's regex is `^` followed by the needle itself (only letters, digits
// and '_', which a regex reads literally), not made optional by a quantifier on its last letter,
// and with no alternative (`|`) anywhere: every match then starts with the needle.
std::string_view anchored_start(const Rule& r) {
  const std::string& n = r.needle;
  const std::string& re = r.regex_text;
  if (n.empty() || re.size() < n.size() + 1 || re[0] != '^' || re.compare(1, n.size(), n) != 0 ||
      re.find('|') != std::string::npos) {
    return {};
  }
  const char after = re.size() > n.size() + 1 ? re[n.size() + 1] : '\0';
  if (after == '?' || after == '*' || after == '{') return {};
  for (char c : n) {
    const bool word =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word) return {};
  }
  return n;
}

// A glob that ends in a literal byte matches only names ending in it ("*.cu" never "a.py").
bool may_glob_match(std::string_view glob, std::string_view name) {
  if (glob.empty() || name.empty() || glob.back() == '*' || glob.back() == '?') return true;
  return glob.back() == name.back();
}

struct ImportInfo {
  bool is_import = false;
  bool torch = false;
  bool torch_npu = false;
  bool transfer = false;
};

}  // namespace

Scanner::Scanner(const RuleTable& table) : table_(table), index_(new RuleIndex) {
  // Every match of scan_python lies inside one logical line and needs, in that line, a name token
  // or a string that the filter is told about here: a chain needs each of its pattern's names
  // (the longest, usually the rarest, is enough to ask for), an attribute its name, a string rule
  // its needle, the transpose/view pattern `transpose` or `permute`, and import statements (which
  // also set the torch import facts) `import` or `from`. Lines with none of them cannot match,
  // so dropping their tokens changes no result.
  LineFilter& lf = index_->lines;
  lf.add_name("import");
  lf.add_name("from");
  for (const Rule& r : table.rules) {
    switch (r.kind) {
      case MatchKind::kChain:
        for (const Dotted& p : r.patterns) {
          index_->chains[p.front()].push_back({&r, &p});
          index_->add_shape(p.front());
          const std::string* rarest = &p.front();
          for (const std::string& part : p) {
            if (part.size() >= rarest->size()) rarest = &part;
          }
          lf.add_name(*rarest);
        }
        break;
      case MatchKind::kImport:
        for (const Dotted& p : r.patterns) {
          index_->imports[p.front()].push_back({&r, &p});
          index_->add_shape(p.front());
        }
        break;
      case MatchKind::kAttribute:
        index_->attributes[r.name].push_back(&r);
        index_->add_shape(r.name);
        lf.add_name(r.name);
        break;
      case MatchKind::kString:
        index_->strings.push_back(&r);
        index_->string_starts.push_back(anchored_start(r));
        lf.add_needle(r.needle);
        break;
      case MatchKind::kText:
        index_->texts.push_back(&r);
        for (const std::string& g : r.files) {
          auto& globs = index_->text_globs;
          if (std::find(globs.begin(), globs.end(), g) == globs.end()) globs.emplace_back(g);
        }
        break;
      case MatchKind::kTransposeView:
        index_->transpose_view.push_back(&r);
        lf.add_name("transpose");
        lf.add_name("permute");
        break;
      case MatchKind::kAssignment:
        index_->assignments.push_back(&r);
        for (const std::string& name : r.names) lf.add_name(name);
        break;
      case MatchKind::kWrapperCall:
        break;
    }
  }
  const nlohmann::json apis = nlohmann::json::parse(embedded_data("apis_config.json"));
  for (auto it = apis.begin(); it != apis.end(); ++it) {
    index_->min_versions[it.key()] = it.value().value("version", "");
  }
}

Scanner::~Scanner() { delete index_; }

bool Scanner::wants_text_file(std::string_view file_name) const {
  for (std::string_view g : index_->text_globs) {
    if (may_glob_match(g, file_name) && glob_match(g, file_name)) return true;
  }
  return false;
}

std::vector<Match> Scanner::scan_text(std::string_view src, std::string_view file_name) const {
  std::vector<Match> out;
  std::vector<const Rule*> rules;
  for (const Rule* r : index_->texts) {
    for (const std::string& g : r->files) {
      if (may_glob_match(g, file_name) && glob_match(g, file_name)) {
        rules.push_back(r);
        break;
      }
    }
  }
  if (rules.empty()) return out;
  // '#' starts a preprocessor line in C-family files, a comment everywhere else.
  const size_t dot = file_name.rfind('.');
  const std::string_view ext = dot == std::string_view::npos ? "" : file_name.substr(dot);
  const bool c_family = ext == ".cu" || ext == ".cuh" || ext == ".cpp" || ext == ".cc" ||
                        ext == ".cxx" || ext == ".c" || ext == ".h" || ext == ".hpp";
  int line_no = 0;
  size_t pos = 0;
  while (pos <= src.size()) {
    size_t e = src.find('\n', pos);
    if (e == std::string_view::npos) e = src.size();
    std::string_view line = src.substr(pos, e - pos);
    ++line_no;
    size_t first = line.find_first_not_of(" \t");
    const bool comment = first != std::string_view::npos &&
                         (c_family ? line.substr(first, 2) == "//" : line[first] == '#');
    if (!comment && first != std::string_view::npos) {
      for (const Rule* r : rules) {
        if (!r->needle.empty() && line.find(r->needle) == std::string_view::npos) continue;
        std::match_results<std::string_view::const_iterator> m;
        if (!std::regex_search(line.begin(), line.end(), m, *r->regex)) continue;
        Match x;
        x.rule = r;
        x.line = line_no;
        x.column = static_cast<int>(m.position(0)) + 1;
        x.matched = m.str(0);
        x.code = trimmed(line.back() == '\r' ? line.substr(0, line.size() - 1) : line);
        x.context = "text";
        x.effort = r->effort;
        if (r->version_check) check_version(*index_, line, x);
        out.push_back(std::move(x));
      }
    }
    if (e == src.size()) break;
    pos = e + 1;
  }
  return out;
}

PythonScan Scanner::scan_python(std::string_view src, const AliasMap* extra_aliases) const {
  PythonScan out;
  // Per-thread buffers: scanning many files would otherwise spend its time in malloc and free.
  thread_local TokenStream ts;
  thread_local std::vector<int> open_of;
  thread_local std::vector<int> code;
  thread_local std::vector<int> stack;
  thread_local LineIndex lines;
  // Import aliases (`import torch.cuda.amp as amp`, `from torch.nn import functional as F`):
  // uses of the alias are uses of the module. Lines that use only an alias carry none of the
  // filter's names, so the filter keeps the alias names too, for this file.
  std::unordered_set<std::string_view> top_level;
  std::unordered_map<std::string_view, std::vector<std::string_view>> aliases =
      prescan_aliases(src, &top_level);
  if (extra_aliases != nullptr) {
    // Names this file imports from a repository module that re-exports a CUDA module.
    for (const auto& [name, path] : *extra_aliases) {
      auto& p = aliases[name];
      p.assign(path.begin(), path.end());
    }
  }
  for (auto it = aliases.begin(); it != aliases.end();) {
    const bool useful = it->second.front() != it->first && index_->maybe_key(it->second.front()) &&
                        index_->chains.count(it->second.front()) != 0;
    const bool top = top_level.count(it->first) != 0;
    if (useful && top) {
      out.exports.emplace_back(std::string(it->first),
                               std::vector<std::string>(it->second.begin(), it->second.end()));
    }
    if (!useful && top) {
      out.imports_from.emplace_back(std::string(it->first),
                                    std::vector<std::string>(it->second.begin(), it->second.end()));
    }
    it = useful ? std::next(it) : aliases.erase(it);
  }
  if (aliases.empty()) {
    tokenize_python(src, &ts, &index_->lines);
  } else {
    LineFilter extra;
    for (const auto& entry : aliases) extra.add_name(entry.first);
    tokenize_python(src, &ts, &index_->lines, &extra);
  }
  const std::vector<Token>& tk = ts.tokens;
  lines.assign(src);
  // What each name is assigned, as the string literals on the right-hand side: a call's argument
  // that is a name (device_type=device_type) is resolved through it. Built on first need.
  std::optional<std::unordered_map<std::string_view, std::string>> assigned_map;
  const auto assigned = [&]() -> const std::unordered_map<std::string_view, std::string>& {
    if (!assigned_map) assigned_map = collect_assignments(src, tk);
    return *assigned_map;
  };
  out.errors = ts.errors;
  for (TokenizeError& e : out.errors) e.line = lines.line_of(e.offset);

  // Lines whose comment marks them as data; brackets matched for the transpose/view pattern.
  std::unordered_set<int> keep_lines;
  open_of.assign(tk.size(), -1);
  {
    stack.clear();
    for (size_t i = 0; i < tk.size(); ++i) {
      const Token& t = tk[i];
      if (t.kind == TokenKind::kComment) {
        if (view(src, t).find(kKeepPragma) != std::string_view::npos) {
          keep_lines.insert(lines.line_of(t.begin));
        }
        continue;
      }
      if (t.kind != TokenKind::kOp) continue;
      const char c = src[t.begin];
      if (c == '(' || c == '[' || c == '{') stack.push_back(static_cast<int>(i));
      if ((c == ')' || c == ']' || c == '}') && !stack.empty()) {
        open_of[i] = stack.back();
        stack.pop_back();
      }
    }
  }

  // Indices of code tokens (comments dropped) so neighbours are one step away.
  code.clear();
  code.reserve(tk.size());
  for (size_t i = 0; i < tk.size(); ++i) {
    if (tk[i].kind != TokenKind::kComment) code.push_back(static_cast<int>(i));
  }
  auto tok = [&](size_t k) -> const Token& { return tk[code[k]]; };
  const size_t n = code.size();

  auto add = [&](const Rule* rule, size_t begin, const std::string& matched, const char* context,
                 size_t logical_begin) -> Match& {
    Match m;
    m.rule = rule;
    m.line = lines.line_of(begin);
    m.column = lines.column_of(begin);
    m.matched = matched;
    m.code = trimmed(lines.line_text(m.line));
    m.context = context;
    m.effort = rule->effort;
    m.marked_data = keep_lines.count(m.line) != 0;
    m.logical_begin = logical_begin;
    out.matches.push_back(std::move(m));
    return out.matches.back();
  };
  auto same_line = [&](size_t a, size_t b) {
    return src.substr(a, b - a).find('\n') == std::string_view::npos;
  };

  size_t logical_begin = n > 0 ? tok(0).begin : 0;
  bool at_statement_start = true;
  ImportInfo stmt;
  size_t stmt_first = 0;
  thread_local std::vector<std::string_view> chain;
  thread_local std::vector<size_t> chain_tokens;

  for (size_t k = 0; k < n; ++k) {
    const Token& t = tok(k);
    if (t.kind == TokenKind::kNewline) {
      if (stmt.is_import && stmt.torch && out.torch_import_end == std::string::npos &&
          lines.column_of(tok(stmt_first).begin) == 1) {
        out.torch_import_end = t.end;
      }
      stmt = ImportInfo{};
      at_statement_start = true;
      if (k + 1 < n) logical_begin = tok(k + 1).begin;
      continue;
    }
    const bool statement_start = at_statement_start && !t.in_fstring;
    if (!t.in_fstring) at_statement_start = is_op(src, t, ';');
    if (statement_start) stmt_first = k;
    // Config switches: `compile = True` turns torch.compile on somewhere else.
    if (statement_start && t.kind == TokenKind::kName && !index_->assignments.empty() &&
        k + 2 < n && is_op(src, tok(k + 1), '=') && !is_op(src, tok(k + 2), '=')) {
      for (const Rule* r : index_->assignments) {
        if (std::find(r->names.begin(), r->names.end(), view(src, t)) == r->names.end()) continue;
        if (view(src, tok(k + 2)) != r->regex_text) continue;
        add(r, t.begin, std::string(view(src, t)) + " = " + std::string(view(src, tok(k + 2))),
            "code", logical_begin);
        break;
      }
    }

    // Import statements: the module paths are matched against import rules.
    if (statement_start && (is_name(src, t, "import") || is_name(src, t, "from"))) {
      stmt.is_import = true;
      const bool from = is_name(src, t, "from");
      size_t j = k + 1;
      while (j < n) {
        if (tok(j).kind != TokenKind::kName) break;
        std::vector<std::string_view> mod;
        const size_t mod_begin = tok(j).begin;
        while (j < n && tok(j).kind == TokenKind::kName) {
          mod.push_back(view(src, tok(j)));
          if (j + 1 < n && is_op(src, tok(j + 1), '.')) {
            j += 2;
          } else {
            ++j;
            break;
          }
        }
        if (mod.empty()) break;
        if (mod[0] == "torch") stmt.torch = true;
        if (mod[0] == "torch_npu") {
          stmt.torch_npu = true;
          out.imports_torch_npu = true;
          if (mod.size() >= 3 && mod[1] == "contrib" && mod[2] == "transfer_to_npu") {
            out.imports_transfer_to_npu = true;
          }
        }
        auto it = index_->maybe_key(mod[0]) ? index_->imports.find(mod[0]) : index_->imports.end();
        if (it != index_->imports.end()) {
          for (const RuleIndex::ChainEntry& c : it->second) {
            if (prefix_of(*c.pattern, mod)) {
              add(c.rule, mod_begin, join(mod, mod.size()), "import", logical_begin);
              break;
            }
          }
        }
        if (from) break;
        // `import a.b as c, d`: skip the alias, continue after a comma.
        if (j < n && is_name(src, tok(j), "as")) j += 2;
        if (j < n && is_op(src, tok(j), ',')) {
          ++j;
          continue;
        }
        break;
      }
      if (from && stmt.torch_npu) {
        for (size_t q = j; q < n && tok(q).kind != TokenKind::kNewline; ++q) {
          if (is_name(src, tok(q), "transfer_to_npu")) out.imports_transfer_to_npu = true;
        }
      }
      if (stmt.torch) out.imports_torch = true;
    }

    if (t.kind == TokenKind::kString) {
      // A string that is a whole statement (a docstring) is prose, not data for an API.
      const bool alone = statement_start && (k + 1 >= n || tok(k + 1).kind == TokenKind::kNewline);
      if (alone) continue;
      const std::string_view content = src.substr(t.content_begin, t.content_end - t.content_begin);
      for (size_t q = 0; q < index_->strings.size(); ++q) {
        const Rule* r = index_->strings[q];
        const std::string_view start = index_->string_starts[q];
        if (!start.empty() && content.substr(0, start.size()) != start) continue;
        if (!r->needle.empty() && content.find(r->needle) == std::string_view::npos) continue;
        if (!std::regex_search(content.begin(), content.end(), *r->regex)) continue;
        Match& m = add(r, t.begin, std::string(view(src, t)), "string", logical_begin);
        if (r->rewrite == RewriteKind::kStringPrefix &&
            content.substr(0, r->rewrite_from.size()) == r->rewrite_from &&
            same_line(t.begin, t.end)) {
          m.has_edit = true;
          m.edit_begin = t.content_begin;
          m.edit_end = t.content_begin + r->rewrite_from.size();
          m.replacement = r->rewrite_to;
        } else if (r->rewrite == RewriteKind::kStringReplace && same_line(t.begin, t.end)) {
          m.has_edit = true;
          m.edit_begin = t.content_begin;
          m.edit_end = t.content_end;
          m.replacement = r->rewrite_to;
        }
        break;
      }
      continue;
    }

    if (t.kind != TokenKind::kName) continue;
    const bool after_dot =
        k > 0 && is_op(src, tok(k - 1), '.') && tok(k - 1).in_fstring == t.in_fstring;

    if (after_dot) {
      // Attribute on any receiver: x.cuda(), model.to(...).cuda(), t.is_cuda.
      const std::string_view attr = view(src, t);
      auto it = index_->maybe_key(attr) ? index_->attributes.find(attr) : index_->attributes.end();
      if (it != index_->attributes.end()) {
        const bool called = k + 1 < n && is_op(src, tok(k + 1), '(');
        for (const Rule* r : it->second) {
          if (r->call && !called) continue;
          Match& m = add(r, tok(k - 1).begin, "." + std::string(view(src, t)) + (called ? "(" : ""),
                         "code", logical_begin);
          if (r->rewrite == RewriteKind::kRenameAttribute) {
            m.has_edit = true;
            m.edit_begin = t.begin;
            m.edit_end = t.end;
            m.replacement = r->rewrite_to;
          }
          break;
        }
      }
      // x.transpose(...).view(...) and the reverse order.
      if (!index_->transpose_view.empty()) {
        const std::string_view nm = view(src, t);
        const bool second_is_view = nm == "view" || nm == "reshape";
        const bool second_is_perm = nm == "transpose" || nm == "permute";
        if ((second_is_view || second_is_perm) && k >= 2 && k + 1 < n &&
            is_op(src, tok(k + 1), '(') && is_op(src, tok(k - 2), ')')) {
          const int open = open_of[code[k - 2]];
          if (open > 1 && tk[open - 1].kind == TokenKind::kName &&
              tk[open - 2].kind == TokenKind::kOp && src[tk[open - 2].begin] == '.') {
            const std::string_view first = view(src, tk[open - 1]);
            const bool first_is_view = first == "view" || first == "reshape";
            const bool first_is_perm = first == "transpose" || first == "permute";
            if ((second_is_view && first_is_perm) || (second_is_perm && first_is_view)) {
              add(index_->transpose_view.front(), tk[open - 2].begin,
                  "." + std::string(first) + "(...)." + std::string(nm) + "(", "code",
                  logical_begin);
            }
          }
        }
      }
      continue;
    }

    // A dotted chain starts here: torch.cuda.amp.GradScaler, nn.DataParallel, ...
    const auto alias = stmt.is_import ? aliases.end() : aliases.find(view(src, t));
    if (alias == aliases.end() && !index_->maybe_key(view(src, t))) continue;
    chain.clear();
    chain_tokens.clear();
    size_t j = k;
    while (j < n && tok(j).kind == TokenKind::kName) {
      chain.push_back(view(src, tok(j)));
      chain_tokens.push_back(j);
      if (j + 2 < n && is_op(src, tok(j + 1), '.') && tok(j + 2).kind == TokenKind::kName) {
        j += 2;
      } else {
        break;
      }
    }
    // Through an alias the chain is the module's path and the rest: amp.autocast is
    // torch.cuda.amp.autocast. Such a use is reported, not rewritten in place (the import is).
    // Tries the rules on the chain (through the alias when `via_alias`); true when one fired.
    const auto try_chain = [&](bool via_alias) {
      thread_local std::vector<std::string_view> expanded;
      size_t extra = 0;  // components the alias adds in front of the written chain
      const std::vector<std::string_view>* full = &chain;
      if (via_alias) {
        expanded.assign(alias->second.begin(), alias->second.end());
        expanded.insert(expanded.end(), chain.begin() + 1, chain.end());
        extra = alias->second.size() - 1;
        full = &expanded;
      }
      auto it = index_->chains.find(full->front());
      if (it == index_->chains.end()) return false;
      for (const RuleIndex::ChainEntry& c : it->second) {
        if (c.rule->skip_imports && stmt.is_import) continue;
        if (!prefix_of(*c.pattern, *full)) continue;
        const size_t last =
            chain_tokens[c.pattern->size() > extra ? c.pattern->size() - 1 - extra : 0];
        if (c.rule->call) {
          // The call may come after the rest of the chain: torch.compile(...) only, not
          // torch.compiler.
          if (c.pattern->size() != full->size() || last + 1 >= n ||
              !is_op(src, tok(last + 1), '(')) {
            continue;
          }
        }
        ArgumentHit arg;
        if (!c.rule->argument.empty()) {
          arg = argument_matches(src, code, tk, last + 1, *c.rule, assigned());
          if (!arg.hit) continue;
        }
        std::string matched = join(*full, full->size());
        if (via_alias) matched = std::string(view(src, t)) + " (" + matched + ")";
        if (arg.hit) matched += "(" + c.rule->argument + "=...)";
        // An argument finding sits on the argument's line: that is what changes.
        Match& m = add(c.rule, arg.hit ? arg.begin : t.begin, matched, "code", logical_begin);
        if (via_alias) {
          // Reported, not rewritten in place: the import that binds the alias is.
          m.note = "through the alias `" + std::string(alias->first) + "` of `" +
                   join(alias->second, alias->second.size()) + "` (imported in this file)";
          return true;
        }
        if (c.rule->rewrite == RewriteKind::kChain) {
          for (const auto& [from, to] : c.rule->rewrite_map) {
            if (!prefix_of(from, chain)) continue;
            const size_t b = tok(chain_tokens.front()).begin;
            const size_t e = tok(chain_tokens[from.size() - 1]).end;
            if (!same_line(b, e)) break;
            m.has_edit = true;
            m.edit_begin = b;
            m.edit_end = e;
            m.replacement = to;
            break;
          }
        }
        return true;
      }
      return false;
    };
    if (alias != aliases.end() && try_chain(true)) continue;
    if (index_->maybe_key(chain.front())) try_chain(false);
  }
  mark_wrappers(src, lines, out);
  return out;
}

std::vector<Match> Scanner::scan_calls(std::string_view src, const std::vector<std::string>& names,
                                       const Rule* rule,
                                       const std::vector<std::pair<int, int>>& skip) const {
  std::vector<Match> out;
  LineFilter filter;
  for (const std::string& name : names) filter.add_name(name);
  TokenStream ts;
  tokenize_python(src, &ts, &filter);
  LineIndex lines;
  lines.assign(src);
  const std::vector<Token>& tk = ts.tokens;
  for (size_t k = 0; k + 1 < tk.size(); ++k) {
    const Token& t = tk[k];
    if (t.kind != TokenKind::kName || !is_op(src, tk[k + 1], '(')) continue;
    if (std::find(names.begin(), names.end(), view(src, t)) == names.end()) continue;
    if (k > 0 && (is_op(src, tk[k - 1], '.') || is_name(src, tk[k - 1], "def"))) continue;
    const int line = lines.line_of(t.begin);
    bool inside = false;
    for (const auto& [b, e] : skip) inside = inside || (b <= line && line <= e);
    if (inside) continue;
    Match m;
    m.rule = rule;
    m.line = line;
    m.column = lines.column_of(t.begin);
    m.matched = std::string(view(src, t)) + "(";
    m.code = trimmed(lines.line_text(line));
    m.context = "code";
    m.effort = rule->effort;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace skillrt::gpu_migration::detail
