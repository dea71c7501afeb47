#include "npu_side.hpp"

#include <filesystem>
#include <fstream>
#include <set>

#include "errors.hpp"
#include "optoolkit/sources.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::pr_analysis {
namespace {

namespace fs = std::filesystem;

// A real torch_npu checkout has a few thousand source files; the bounds keep a wrong path (a
// home directory) from turning into a long scan.
constexpr size_t kMaxScannedFiles = 50000;
constexpr std::uintmax_t kMaxFileBytes = 2u << 20;

bool is_ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
}

std::string read_word(const std::string& s, size_t pos) {
  size_t e = pos;
  while (e < s.size() && is_ident(s[e])) ++e;
  return s.substr(pos, e - pos);
}

// `#include <ATen/core/Tensor.h>` -> aten/src/ATen/core/Tensor.h; torch/ and c10/ map to
// themselves.
std::string include_to_upstream(const std::string& inc) {
  if (inc.rfind("ATen/", 0) == 0) return "aten/src/" + inc;
  if (inc.rfind("torch/csrc/", 0) == 0 || inc.rfind("c10/", 0) == 0) return inc;
  return "";
}

}  // namespace

std::string python_module_of(const std::string& path) {
  if (path.size() < 4 || path.compare(path.size() - 3, 3, ".py") != 0) return "";
  std::string m = path.substr(0, path.size() - 3);
  if (m.size() > 9 && m.compare(m.size() - 9, 9, "/__init__") == 0) m.resize(m.size() - 9);
  for (char& c : m) {
    if (c == '/') c = '.';
  }
  return m;
}

void NpuIndex::load(const std::string& torch_npu, const std::string& op_plugin) {
  if (!op_plugin.empty()) load_op_plugin(op_plugin);
  if (!torch_npu.empty()) load_torch_npu(torch_npu);
}

void NpuIndex::load_op_plugin(const std::string& root) {
  std::error_code ec;
  if (!fs::exists(root, ec)) {
    throw InputError("op_plugin '" + root + "' does not exist; pass an op-plugin checkout or " +
                     "its op_plugin_functions.yaml");
  }
  std::string functions;
  try {
    functions = ops::resolve_source_path(root);
  } catch (const std::exception& e) {
    throw InputError("op_plugin '" + root + "': " + e.what());
  }
  ops::OpSource src;
  try {
    src = ops::load_source_file(functions);
  } catch (const std::exception& e) {
    throw InputError("op_plugin '" + root + "': cannot read " + functions + ": " + e.what() +
                     "; pass an op-plugin checkout whose op_plugin_functions.yaml is intact");
  }
  const fs::path base = fs::is_directory(root) ? fs::path(root) : fs::path(root).parent_path();
  const std::string rel = fs::relative(functions, base, ec).generic_string();
  for (const ops::OpEntry& e : src.entries) {
    ops_[e.op_name()].push_back({"op-plugin:" + (rel.empty() ? functions : rel), e.where.line,
                                 e.schema_text, "op-plugin " + e.section + " entry"});
  }
  loaded_.push_back(functions);
  for (const char* d : {"op_plugin/config/derivatives.yaml", "derivatives.yaml"}) {
    const fs::path p = base / d;
    if (!fs::is_regular_file(p, ec) || p == fs::path(functions)) continue;
    try {
      const ops::OpSource der = ops::load_source_file(p.string());
      for (const ops::OpEntry& e : der.entries) {
        ops_[e.op_name()].push_back(
            {"op-plugin:" + std::string(d), e.where.line, e.schema_text, "op-plugin derivative"});
      }
      loaded_.push_back(p.string());
    } catch (const std::exception&) {
      // Not an op-plugin derivatives file: the functions file alone still answers.
    }
    break;
  }
}

void NpuIndex::load_torch_npu(const std::string& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    throw InputError("torch_npu '" + root + "' is not a directory; pass a torch_npu checkout");
  }
  size_t files = 0;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  for (; it != fs::recursive_directory_iterator() && !ec; it.increment(ec)) {
    const fs::path& p = it->path();
    const std::string name = p.filename().string();
    if (it->is_directory(ec)) {
      if (name == ".git" || name == "build" || name == "third_party")
        it.disable_recursion_pending();
      continue;
    }
    if (++files > kMaxScannedFiles) break;
    const std::string ext = p.extension().string();
    if (ext != ".py" && ext != ".cpp" && ext != ".h" && ext != ".hpp" && ext != ".patch" &&
        name != "npu_native_functions.yaml") {
      continue;
    }
    if (it->file_size(ec) > kMaxFileBytes) continue;
    scan_file(root, fs::relative(p, root, ec).generic_string());
  }
  loaded_.push_back(root);
}

void NpuIndex::scan_file(const std::string& root, const std::string& rel) {
  std::ifstream in(fs::path(root) / rel);
  const std::string where = "torch_npu:" + rel;
  const bool yaml =
      rel.size() >= 24 && rel.compare(rel.size() - 24, 24, "npu_native_functions.yaml") == 0;
  const bool patch = rel.size() > 6 && rel.compare(rel.size() - 6, 6, ".patch") == 0;
  const bool python = rel.size() > 3 && rel.compare(rel.size() - 3, 3, ".py") == 0;
  std::string line;
  size_t no = 0;
  std::set<std::string> patched;
  while (std::getline(in, line)) {
    ++no;
    if (yaml) {
      const std::string t = ops::trim(line);
      if (t.rfind("- ", 0) != 0) continue;
      std::string name = ops::trim(t.substr(2));
      if (name.rfind("func:", 0) == 0) name = ops::trim(name.substr(5));
      name = name.substr(0, name.find('('));
      if (!name.empty()) ops_[name].push_back({where, no, t, "torch_npu entry"});
      continue;
    }
    if (patch) {
      for (const char* prefix : {"--- a/", "+++ b/"}) {
        if (line.rfind(prefix, 0) == 0) {
          const std::string target = ops::trim(line.substr(6));
          if (patched.insert(target).second) {
            users_[target].push_back({where, no, ops::trim(line), "patches"});
          }
        }
      }
      continue;
    }
    if (python) {
      const std::string t = ops::trim(line);
      if (t.rfind("from torch", 0) == 0 || t.rfind("import torch", 0) == 0) {
        const bool from = t[0] == 'f';
        const std::string mod = read_word(t, from ? 5 : 7);
        if (mod != "torch" && mod.rfind("torch.", 0) != 0) continue;
        users_[mod].push_back({where, no, t, "imports"});
        const size_t imp = t.find(" import ");
        if (from && imp != std::string::npos) {
          // `from torch._inductor import ir, scheduler` also names the submodules.
          std::string names = t.substr(imp + 8);
          size_t pos = 0;
          while (pos < names.size()) {
            while (pos < names.size() && !is_ident(names[pos])) ++pos;
            const std::string w = read_word(names, pos);
            if (w.empty()) break;
            if (w != "as") users_[mod + "." + w].push_back({where, no, t, "imports"});
            pos += w.size();
            const size_t comma = names.find(',', pos);
            if (comma == std::string::npos) break;
            pos = comma + 1;
          }
        }
      }
      continue;
    }
    const size_t inc = line.find("#include");
    if (inc == std::string::npos) continue;
    const size_t open = line.find_first_of("<\"", inc);
    if (open == std::string::npos) continue;
    const size_t close = line.find_first_of(">\"", open + 1);
    if (close == std::string::npos) continue;
    const std::string up = include_to_upstream(line.substr(open + 1, close - open - 1));
    if (!up.empty()) users_[up].push_back({where, no, ops::trim(line), "includes"});
  }
}

std::vector<NpuEntry> NpuIndex::op_entries(const std::string& op) const {
  auto it = ops_.find(op);
  return it == ops_.end() ? std::vector<NpuEntry>{} : it->second;
}

std::vector<NpuEntry> NpuIndex::path_users(const std::string& upstream_path) const {
  std::vector<NpuEntry> out;
  auto add = [&](const std::string& key) {
    auto it = users_.find(key);
    if (it != users_.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  };
  add(upstream_path);
  const std::string mod = python_module_of(upstream_path);
  if (!mod.empty()) add(mod);
  return out;
}

}  // namespace skillrt::pr_analysis
