#include "detail/scanner.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
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

PythonScan Scanner::scan_python(std::string_view src) const {
  PythonScan out;
  // Per-thread buffers: scanning many files would otherwise spend its time in malloc and free.
  thread_local TokenStream ts;
  thread_local std::vector<int> open_of;
  thread_local std::vector<int> code;
  thread_local std::vector<int> stack;
  thread_local LineIndex lines;
  tokenize_python(src, &ts, &index_->lines);
  const std::vector<Token>& tk = ts.tokens;
  lines.assign(src);
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
    if (!index_->maybe_key(view(src, t))) continue;
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
    auto it = index_->chains.find(chain.front());
    if (it == index_->chains.end()) continue;
    for (const RuleIndex::ChainEntry& c : it->second) {
      if (!prefix_of(*c.pattern, chain)) continue;
      const size_t last = chain_tokens[c.pattern->size() - 1];
      if (c.rule->call) {
        // The call may come after the rest of the chain: torch.compile(...) only, not
        // torch.compiler.
        if (c.pattern->size() != chain.size() || last + 1 >= n || !is_op(src, tok(last + 1), '('))
          continue;
      }
      Match& m = add(c.rule, t.begin, join(chain, chain.size()), "code", logical_begin);
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
      break;
    }
  }
  return out;
}

}  // namespace skillrt::gpu_migration::detail
