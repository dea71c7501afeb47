#include "detail/files.hpp"

#include <filesystem>
#include <stdexcept>

#include "plugin_io/atomic_file.hpp"

namespace skillrt::apic::detail {

namespace fs = std::filesystem;

std::string confined_path(const std::string& root, const std::string& relative) {
  auto full = plugin_io::path_under(root, relative);
  if (!full) {
    throw std::runtime_error("'" + relative + "' would be written outside output_dir '" + root +
                             "'; use a name inside it");
  }
  return full->string();
}

std::string write_atomic(const std::string& root, const std::string& relative,
                         const std::string& content) {
  const std::string path = confined_path(root, relative);
  fs::create_directories(fs::path(path).parent_path());
  plugin_io::write_file_atomic(path, content);
  return path;
}

std::string safe_name(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    out += ok ? c : '_';
  }
  if (out.empty() || out == "." || out == "..") out = "case";
  return out;
}

}  // namespace skillrt::apic::detail
