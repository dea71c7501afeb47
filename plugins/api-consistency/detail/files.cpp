#include "detail/files.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace skillrt::apic::detail {

namespace fs = std::filesystem;

std::string confined_path(const std::string& root, const std::string& relative) {
  const fs::path base = fs::weakly_canonical(fs::absolute(root));
  const fs::path full = fs::weakly_canonical(base / relative);
  const auto rel = full.lexically_relative(base);
  if (rel.empty() || *rel.begin() == "..") {
    throw std::runtime_error("'" + relative + "' would be written outside output_dir '" + root +
                             "'; use a name inside it");
  }
  return full.string();
}

std::string write_atomic(const std::string& root, const std::string& relative,
                         const std::string& content) {
  const std::string path = confined_path(root, relative);
  fs::create_directories(fs::path(path).parent_path());
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) {
      throw std::runtime_error("cannot write '" + tmp + "'; check that output_dir is writable");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp);
    throw std::runtime_error("cannot rename '" + tmp + "' to '" + path + "': " + ec.message());
  }
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
