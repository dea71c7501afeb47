#include "tree.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

#include "detail/text.hpp"

namespace skillrt::opa {

namespace fs = std::filesystem;

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::optional<std::string> Tree::read(const std::string& rel) const {
  const auto it = overlay_.find(rel);
  if (it != overlay_.end()) return it->second;
  std::error_code ec;
  if (!fs::is_regular_file(root_ / rel, ec)) return std::nullopt;
  return read_file(root_ / rel);
}

bool Tree::exists(const std::string& rel) const {
  std::error_code ec;
  return overlay_.count(rel) != 0 || fs::is_regular_file(root_ / rel, ec);
}

bool Tree::is_dir(const std::string& rel) const {
  std::error_code ec;
  if (fs::is_directory(root_ / rel, ec)) return true;
  const std::string prefix = rel + "/";
  return std::any_of(overlay_.begin(), overlay_.end(),
                     [&](const auto& kv) { return detail::starts_with(kv.first, prefix); });
}

std::vector<std::string> Tree::list(const std::string& rel_dir, std::string_view ext,
                                    bool recursive) const {
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path dir = root_ / rel_dir;
  if (fs::is_directory(dir, ec)) {
    auto add = [&](const fs::directory_entry& e) {
      std::error_code fec;
      if (!e.is_regular_file(fec)) return;
      const std::string name = e.path().filename().string();
      if (!detail::ends_with(name, ext)) return;
      out.push_back(fs::relative(e.path(), root_, fec).generic_string());
    };
    if (recursive) {
      for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        add(*it);
      }
    } else {
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) add(*it);
    }
  }
  const std::string prefix = rel_dir + "/";
  for (const auto& [path, content] : overlay_) {
    if (!detail::starts_with(path, prefix) || !detail::ends_with(path, ext)) continue;
    if (!recursive && path.find('/', prefix.size()) != std::string::npos) continue;
    out.push_back(path);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace skillrt::opa
