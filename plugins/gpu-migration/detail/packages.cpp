#include "detail/packages.hpp"

#include <algorithm>
#include <cctype>

#include "detail/rule_table.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::gpu_migration::detail {
namespace {

using Json = nlohmann::json;

// PEP 503 normalisation: lower case, runs of '-', '_' and '.' as one '-'.
std::string normalise(std::string_view name) {
  std::string out;
  for (char c : name) {
    const bool sep = c == '-' || c == '_' || c == '.';
    if (sep) {
      if (!out.empty() && out.back() != '-') out += '-';
      continue;
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

const Json& table() {
  static const Json kTable = Json::parse(embedded_data("packages.json"));
  return kTable;
}

void classify(Json& dep) {
  const std::string name = normalise(dep.at("name").get<std::string>());
  const Json& packages = table().at("packages");
  const Json* hit = nullptr;
  if (packages.contains(name)) {
    hit = &packages.at(name);
  } else {
    for (auto it = packages.begin(); it != packages.end(); ++it) {
      const std::string& key = it.key();
      if (!key.empty() && key.back() == '*' &&
          name.compare(0, key.size() - 1, key, 0, key.size() - 1) == 0) {
        hit = &it.value();
        break;
      }
    }
  }
  if (hit == nullptr) {
    dep["status"] = "unknown";
    dep["npu"] = dep.at("source_kind") == "git"
                     ? "built from a git source: read its setup.py for CUDAExtension or nvcc"
                     : "not in the package table: check whether it needs CUDA";
    dep["source"] = nullptr;
    return;
  }
  dep["status"] = hit->at("status");
  dep["npu"] = hit->at("npu");
  dep["source"] = hit->at("source");
}

// "flash_attn>=2.5 ; python_version > '3.8'" -> (flash_attn, >=2.5); git URLs by #egg= or the
// repository's name.
bool split_requirement(std::string_view req, std::string* name, std::string* spec, bool* git) {
  req = ops::trim_view(req);
  *git = false;
  if (req.rfind("-e ", 0) == 0) req = ops::trim_view(req.substr(3));
  if (req.empty() || req.front() == '-' || req.front() == '#') return false;
  const size_t plus = req.find("git+");
  if (plus != std::string_view::npos) {
    *git = true;
    *spec = std::string(req.substr(plus));
    const size_t egg = req.find("egg=");
    if (egg != std::string_view::npos) {
      std::string_view e = req.substr(egg + 4);
      *name = std::string(e.substr(0, e.find_first_of("&# ")));
    } else {
      std::string_view url = req.substr(plus);
      url = url.substr(0, url.find_first_of("@#"));
      if (url.size() > 4 && url.substr(url.size() - 4) == ".git") url.remove_suffix(4);
      *name = std::string(url.substr(url.find_last_of('/') + 1));
    }
    const size_t at = req.find(" @ ");
    if (at != std::string_view::npos && at < plus)
      *name = std::string(ops::trim_view(req.substr(0, at)));
    return !name->empty();
  }
  size_t n = 0;
  while (n < req.size() && (std::isalnum(static_cast<unsigned char>(req[n])) || req[n] == '-' ||
                            req[n] == '_' || req[n] == '.')) {
    ++n;
  }
  if (n == 0) return false;
  *name = std::string(req.substr(0, n));
  std::string_view rest = req.substr(n);
  rest = rest.substr(0, rest.find(';'));
  *spec = std::string(ops::trim_view(rest));
  return true;
}

struct Reader {
  std::string rel;
  Json out = Json::array();
  void add(int line, std::string_view req, const char* kind, const std::string& group) {
    std::string name, spec;
    bool git = false;
    if (!split_requirement(req, &name, &spec, &git)) return;
    Json d{{"file", rel},  {"line", line},   {"name", name},
           {"spec", spec}, {"group", group}, {"source_kind", git ? "git" : kind}};
    classify(d);
    out.push_back(std::move(d));
  }
};

std::vector<std::string_view> split_lines(std::string_view text) { return split_at(text, '\n'); }

// Every quoted string in `s` (single or double quotes, no escapes needed for requirements).
template <typename Fn>
void each_quoted(std::string_view s, Fn fn) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '"' && s[i] != '\'') continue;
    const size_t e = s.find(s[i], i + 1);
    if (e == std::string_view::npos) return;
    fn(s.substr(i + 1, e - i - 1), i);
    i = e;
  }
}

void read_requirements(std::string_view text, Reader& r) {
  const auto lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    const size_t hash = l.find(" #");
    if (hash != std::string_view::npos) l = l.substr(0, hash);
    r.add(static_cast<int>(i + 1), l, "requirements", "");
  }
}

void read_pyproject(std::string_view text, Reader& r) {
  const auto lines = split_lines(text);
  std::string table;
  bool in_array = false;
  std::string group;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view l = ops::trim_view(lines[i]);
    if (l.empty() || l.front() == '#') continue;
    if (!in_array && l.front() == '[') {
      table = std::string(l.substr(1, l.find(']') - 1));
      continue;
    }
    const int line = static_cast<int>(i + 1);
    if (in_array) {
      each_quoted(l, [&](std::string_view q, size_t) { r.add(line, q, "pep621", group); });
      if (l.find(']') != std::string_view::npos) in_array = false;
      continue;
    }
    const size_t eq = l.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string key(ops::trim_view(l.substr(0, eq)));
    const std::string_view value = ops::trim_view(l.substr(eq + 1));
    const bool pep621 =
        (table == "project" && key == "dependencies") || table == "project.optional-dependencies";
    if (pep621 && !value.empty() && value.front() == '[') {
      group = table == "project" ? "" : key;
      each_quoted(value, [&](std::string_view q, size_t) { r.add(line, q, "pep621", group); });
      in_array = value.find(']') == std::string_view::npos;
      continue;
    }
    const bool poetry = table.rfind("tool.poetry", 0) == 0 && table.size() >= 12 &&
                        table.compare(table.size() - 12, 12, "dependencies") == 0;
    if (poetry && key != "python") {
      std::string req = key;
      if (value.find("git") != std::string_view::npos) {
        each_quoted(value, [&](std::string_view q, size_t) {
          if (q.find("://") != std::string_view::npos)
            req = "git+" + std::string(q) + "#egg=" + key;
        });
      }
      r.add(line, req, "poetry", table);
    }
  }
}

// install_requires=[...] and extras_require={...: [...]} in setup.py; install_requires = and
// [options.extras_require] in setup.cfg.
void read_setup_py(std::string_view text, Reader& r) {
  for (const char* key : {"install_requires", "extras_require"}) {
    size_t at = text.find(key);
    while (at != std::string_view::npos) {
      size_t open = text.find_first_of("[{", at);
      if (open == std::string_view::npos) break;
      // Only a literal right after the keyword (a variable holding the list is not read).
      if (ops::trim_view(text.substr(at + std::string_view(key).size(),
                                     open - at - std::string_view(key).size())) != "=") {
        at = text.find(key, at + 1);
        continue;
      }
      int depth = 0;
      size_t close = open;
      for (; close < text.size(); ++close) {
        if (text[close] == '[' || text[close] == '{') ++depth;
        if (text[close] == ']' || text[close] == '}') {
          if (--depth == 0) break;
        }
      }
      const std::string_view body = text.substr(open, close - open);
      each_quoted(body, [&](std::string_view q, size_t pos) {
        // In extras_require the keys are quoted too: a key is followed by ':'.
        const size_t after = open + pos + q.size() + 2;
        if (after < text.size() && ops::trim_view(text.substr(after, 2)).substr(0, 1) == ":")
          return;
        const int line = static_cast<int>(std::count(
                             text.begin(), text.begin() + static_cast<long>(open + pos), '\n')) +
                         1;
        r.add(line, q, "setup.py", key == std::string_view("install_requires") ? "" : "extras");
      });
      at = text.find(key, close);
    }
  }
}

void read_setup_cfg(std::string_view text, Reader& r) {
  const auto lines = split_lines(text);
  std::string section;
  bool in_list = false;
  std::string group;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view raw = lines[i];
    const std::string_view l = ops::trim_view(raw);
    if (l.empty() || l.front() == '#' || l.front() == ';') continue;
    if (l.front() == '[') {
      section = std::string(l.substr(1, l.find(']') - 1));
      in_list = false;
      continue;
    }
    const bool continuation = !raw.empty() && std::isspace(static_cast<unsigned char>(raw[0]));
    if (in_list && continuation) {
      r.add(static_cast<int>(i + 1), l, "setup.cfg", group);
      continue;
    }
    in_list = false;
    const size_t eq = l.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string key(ops::trim_view(l.substr(0, eq)));
    if ((section == "options" && key == "install_requires") ||
        section == "options.extras_require") {
      group = section == "options" ? "" : key;
      in_list = true;
      const std::string_view first = ops::trim_view(l.substr(eq + 1));
      if (!first.empty()) r.add(static_cast<int>(i + 1), first, "setup.cfg", group);
    }
  }
}

}  // namespace

bool is_packaging_file(std::string_view name) {
  const bool requirements = name.rfind("requirements", 0) == 0 &&
                            (name.size() > 4 && name.substr(name.size() - 4) == ".txt");
  return requirements || name == "pyproject.toml" || name == "setup.py" || name == "setup.cfg";
}

nlohmann::json read_dependencies(std::string_view text, const std::string& rel) {
  Reader r;
  r.rel = rel;
  const std::string name =
      rel.substr(rel.find_last_of('/') == std::string::npos ? 0 : rel.find_last_of('/') + 1);
  if (name == "pyproject.toml") {
    read_pyproject(text, r);
  } else if (name == "setup.py") {
    read_setup_py(text, r);
  } else if (name == "setup.cfg") {
    read_setup_cfg(text, r);
  } else {
    read_requirements(text, r);
  }
  return r.out;
}

}  // namespace skillrt::gpu_migration::detail
