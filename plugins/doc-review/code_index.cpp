#include "code_index.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "detail/text.hpp"
#include "optoolkit/schema.hpp"
#include "optoolkit/sources.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::doc_review {

namespace fs = std::filesystem;
using detail::is_ident_char;
using detail::is_ident_start;

std::string_view to_string(CodeKind kind) {
  switch (kind) {
    case CodeKind::kOpPlugin:
      return "op-plugin";
    case CodeKind::kTorchNpu:
      return "torch_npu";
    case CodeKind::kAscendC:
      return "ascendc";
    case CodeKind::kGeneric:
      break;
  }
  return "generic";
}

std::optional<CodeLocation> CodeIndex::word_location(std::string_view w) const {
  const auto it = words.find(std::string(w));
  if (it == words.end()) return std::nullopt;
  return CodeLocation{files[it->second.file], static_cast<int>(it->second.line)};
}

bool CodeIndex::has_prefix_family(std::string_view prefix) const {
  const auto it = upper_words.lower_bound(std::string(prefix));
  return it != upper_words.end() && detail::starts_with(*it, prefix);
}

namespace {

constexpr uintmax_t kMaxFileBytes = 4u << 20;

bool is_source_name(const fs::path& p) {
  static const std::set<std::string> kExt = {".py",   ".pyi",   ".cpp", ".cc",   ".cxx",  ".c",
                                             ".h",    ".hpp",   ".hh",  ".cu",   ".yaml", ".yml",
                                             ".json", ".cmake", ".sh",  ".toml", ".cfg",  ".ini",
                                             ".in",   ".asc",   ".inc", ".ipp",  ".def",  ".bzl"};
  const std::string name = p.filename().string();
  if (name == "CMakeLists.txt" || name == "Makefile" || name == "Dockerfile" ||
      detail::starts_with(name, "requirements"))
    return true;
  return kExt.count(detail::lower_ascii(p.extension().string())) > 0;
}

bool skip_dir(const std::string& name) {
  return name.empty() || name[0] == '.' || name == "node_modules" || name == "__pycache__" ||
         name == "build" || name == "dist" || name == "site-packages";
}

std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The first '=' or ':' at depth 0 that is not part of "==", "->", "!=".
size_t top_level_char(std::string_view s, char want) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'')
      quote = c;
    else if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
    else if (c == want && depth == 0) {
      if (want == '=' && ((i + 1 < s.size() && s[i + 1] == '=') ||
                          (i > 0 && (s[i - 1] == '!' || s[i - 1] == '<' || s[i - 1] == '>'))))
        continue;
      return i;
    }
  }
  return std::string_view::npos;
}

std::string last_identifier(std::string_view s) {
  size_t e = s.size();
  while (e > 0 && !is_ident_char(s[e - 1])) --e;
  size_t b = e;
  while (b > 0 && is_ident_char(s[b - 1])) --b;
  if (b == e || !is_ident_start(s[b])) return "";
  return std::string(s.substr(b, e - b));
}

std::string module_path(const std::string& rel);

struct Scanner {
  CodeIndex* index;
  uint32_t file_id = 0;

  void add_words(std::string_view text) {
    uint32_t line = 1;
    size_t i = 0;
    while (i < text.size()) {
      const char c = text[i];
      if (c == '\n') {
        ++line;
        ++i;
        continue;
      }
      if (!is_ident_start(c) || (i > 0 && is_ident_char(text[i - 1]))) {
        ++i;
        continue;
      }
      size_t e = i;
      while (e < text.size() && is_ident_char(text[e])) ++e;
      std::string w(text.substr(i, e - i));
      bool upper = w.find('_') != std::string::npos;
      for (char ch : w)
        if (detail::is_lower(ch)) upper = false;
      if (upper) index->upper_words.insert(w);
      index->words.try_emplace(std::move(w), CodeIndex::WordRef{file_id, line});
      i = e;
    }
  }

  void add_python(std::string_view text, const std::string& rel) {
    const std::vector<std::string> lines = detail::split_lines(text);
    for (size_t k = 0; k < lines.size(); ++k) {
      // Module-level definitions only: a method is reached through its class, and a nested
      // helper not at all.
      if (lines[k].empty() || lines[k][0] == ' ' || lines[k][0] == '\t') continue;
      std::string_view l = ops::trim_view(lines[k]);
      if (detail::starts_with(l, "async ")) l = ops::trim_view(l.substr(6));
      const bool is_def = detail::starts_with(l, "def ");
      const bool is_class = detail::starts_with(l, "class ");
      if (!is_def && !is_class) continue;
      l = ops::trim_view(l.substr(is_def ? 4 : 6));
      size_t e = 0;
      while (e < l.size() && is_ident_char(l[e])) ++e;
      if (e == 0) continue;
      Signature sig;
      sig.name = std::string(l.substr(0, e));
      sig.where = {rel, static_cast<int>(k + 1)};
      sig.text = std::string(ops::trim_view(lines[k]));
      sig.module = module_path(rel);
      if (is_class) {
        sig.open = true;  // its parameters are __init__'s, read separately
        index->py_defs[sig.name].push_back(std::move(sig));
        continue;
      }
      // The parameter list, possibly over several lines.
      std::string joined(l.substr(e));
      size_t j = k;
      int depth = 0;
      bool done = false;
      std::string params;
      while (!done) {
        for (char c : joined) {
          if (c == '(') {
            if (depth++ == 0) continue;
          } else if (c == ')') {
            if (--depth == 0) {
              done = true;
              break;
            }
          }
          if (depth > 0) params.push_back(c);
        }
        if (done || ++j >= lines.size() || j > k + 80) break;
        joined = lines[j];
        params.push_back(' ');
      }
      sig.params = parse_python_params(params, &sig.open);
      if (!sig.params.empty() && (sig.params[0].name == "self" || sig.params[0].name == "cls"))
        sig.params.erase(sig.params.begin());
      index->py_defs[sig.name].push_back(std::move(sig));
    }
  }

  // m.def("npu_x(Tensor self) -> Tensor") and TORCH_LIBRARY(ns, m) in C++ sources.
  void add_cpp(std::string_view text, const std::string& rel) {
    for (const char* macro : {"TORCH_LIBRARY(", "TORCH_LIBRARY_FRAGMENT("}) {
      size_t p = 0;
      const std::string m = macro;
      while ((p = text.find(m, p)) != std::string_view::npos) {
        p += m.size();
        const size_t comma = text.find(',', p);
        if (comma == std::string_view::npos) break;
        const std::string ns(ops::trim_view(text.substr(p, comma - p)));
        if (!ns.empty() && std::all_of(ns.begin(), ns.end(), is_ident_char))
          index->op_namespaces.insert(ns);
      }
    }
    size_t p = 0;
    while ((p = text.find(".def(", p)) != std::string_view::npos) {
      p += 5;
      size_t q = p;
      while (q < text.size() && (text[q] == ' ' || text[q] == '\n' || text[q] == '\t')) ++q;
      if (q >= text.size() || text[q] != '"') continue;
      const size_t close = text.find('"', q + 1);
      if (close == std::string_view::npos) break;
      const std::string_view schema = text.substr(q + 1, close - q - 1);
      if (schema.find('(') == std::string_view::npos || schema.find("->") == std::string_view::npos)
        continue;
      const ops::SchemaParseResult parsed = ops::parse_schema(schema, ops::Grammar::permissive());
      if (!parsed.ok()) continue;
      const int line = static_cast<int>(std::count(text.begin(), text.begin() + q, '\n')) + 1;
      add_schema(*parsed.schema, std::string(schema), {rel, line});
    }
  }

  void add_schema(const ops::FunctionSchema& s, std::string text, CodeLocation where) {
    Signature sig;
    sig.name = s.name.full_base();
    const size_t colons = sig.name.find("::");
    if (colons != std::string::npos) sig.name = sig.name.substr(colons + 2);
    sig.text = std::move(text);
    sig.where = std::move(where);
    for (const ops::Argument& a : s.arguments) {
      Param p;
      p.out = a.out;
      p.name = a.name;
      p.has_default = a.default_value.has_value();
      if (p.has_default) p.default_value = *a.default_value;
      p.keyword_only = a.kwarg_only;
      sig.params.push_back(std::move(p));
    }
    index->ops[sig.name].push_back(std::move(sig));
  }
};

CodeKind detect_kind(const fs::path& root) {
  std::error_code ec;
  if (fs::exists(root / "op_plugin/config/op_plugin_functions.yaml", ec))
    return CodeKind::kOpPlugin;
  if (fs::exists(root / "torch_npu/__init__.py", ec)) return CodeKind::kTorchNpu;
  // AscendC operator projects keep host and kernel code in op_host/ and op_kernel/ folders.
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() > 4) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_directory(ec)) continue;
    const std::string name = it->path().filename().string();
    if (name == "op_host" || name == "op_kernel") return CodeKind::kAscendC;
    if (skip_dir(name)) it.disable_recursion_pending();
  }
  return CodeKind::kGeneric;
}

std::string module_path(const std::string& rel) {
  std::string m = rel;
  for (const char* ext : {".pyi", ".py"})
    if (detail::ends_with(m, ext)) m.resize(m.size() - std::string_view(ext).size());
  if (detail::ends_with(m, "/__init__")) m.resize(m.size() - 9);
  std::replace(m.begin(), m.end(), '/', '.');
  return m;
}

}  // namespace

std::vector<Param> parse_python_params(std::string_view list, bool* open) {
  std::vector<Param> out;
  bool keyword_only = false;
  for (const std::string& raw : ops::split_top_level(list)) {
    std::string_view part = ops::trim_view(raw);
    if (part.empty() || part == "/") continue;
    if (part == "*") {
      keyword_only = true;
      continue;
    }
    if (detail::starts_with(part, "**")) {
      if (open) *open = true;
      continue;
    }
    if (part[0] == '*') {
      keyword_only = true;
      continue;
    }
    Param p;
    const size_t eq = top_level_char(part, '=');
    std::string_view head = eq == std::string_view::npos ? part : part.substr(0, eq);
    if (eq != std::string_view::npos) {
      p.has_default = true;
      p.default_value = std::string(ops::trim_view(part.substr(eq + 1)));
    }
    const size_t colon = top_level_char(head, ':');
    if (colon != std::string_view::npos) head = head.substr(0, colon);
    p.name = last_identifier(ops::trim_view(head));
    if (p.name.empty()) continue;
    p.keyword_only = keyword_only;
    out.push_back(std::move(p));
  }
  return out;
}

CodeIndex build_code_index(const fs::path& root_in, const std::vector<fs::path>& exclude,
                           const IndexHooks& hooks) {
  std::error_code ec;
  const fs::path root = fs::canonical(root_in, ec);
  if (ec || !fs::is_directory(root, ec)) {
    throw std::invalid_argument("code '" + root_in.string() +
                                "' is not a readable directory; pass the root of a checkout "
                                "(op-plugin, torch_npu or an AscendC operator project)");
  }
  CodeIndex index;
  index.root = root;
  index.kind = detect_kind(root);
  Scanner scanner{&index};

  std::vector<fs::path> excluded;
  for (const fs::path& e : exclude) excluded.push_back(fs::weakly_canonical(e, ec));

  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  size_t seen = 0;
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if ((++seen & 255) == 0 && hooks.cancelled && hooks.cancelled()) {
      throw std::runtime_error("cancelled while reading the code checkout");
    }
    const fs::path& p = it->path();
    std::error_code fec;
    if (it->is_directory(fec)) {
      if (skip_dir(p.filename().string()) ||
          std::find(excluded.begin(), excluded.end(), p) != excluded.end())
        it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(fec) || !is_source_name(p)) continue;
    if (it->file_size(fec) > kMaxFileBytes) {
      index.notes.push_back(fs::relative(p, root, fec).generic_string() + ": larger than 4 MiB");
      continue;
    }
    const std::string rel = fs::relative(p, root, fec).generic_string();
    const std::string text = read_all(p);
    scanner.file_id = static_cast<uint32_t>(index.files.size());
    index.files.push_back(rel);
    ++index.files_read;
    scanner.add_words(text);
    const std::string ext = detail::lower_ascii(p.extension().string());
    if (ext == ".py" || ext == ".pyi") {
      scanner.add_python(text, rel);
      index.py_modules.insert(module_path(rel));
    } else if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".h" || ext == ".hpp" ||
               ext == ".asc") {
      scanner.add_cpp(text, rel);
    } else if (detail::ends_with(rel, "op_plugin/config/op_plugin_functions.yaml")) {
      try {
        const ops::OpSource src =
            ops::load_source_text(text, rel, ops::SourceFormat::kOpPluginFunctions);
        for (const ops::OpEntry& e : src.entries) {
          if (!e.parsed.ok()) continue;
          scanner.add_schema(*e.parsed.schema, e.schema_text,
                             {rel, static_cast<int>(e.where.line)});
        }
        // op-plugin registers every operator of this file in the npu namespace.
        index.op_namespaces.insert("npu");
        index.has_op_plugin_yaml = true;
      } catch (const std::exception& err) {
        index.notes.push_back(rel + ": " + err.what());
      }
    }
  }
  return index;
}

}  // namespace skillrt::doc_review
