#include "detail/text.hpp"

#include <filesystem>

#include "detail/process.hpp"

namespace skillrt::issue_pipeline::detail {

namespace fs = std::filesystem;

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string first_line(const std::string& s) {
  const auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

std::string text_or_file(const std::string& v, std::string* source) {
  if (v.find('\n') == std::string::npos && !v.empty() && v.size() < 4096) {
    std::error_code ec;
    if (fs::is_regular_file(v, ec)) {
      if (source != nullptr) *source = fs::absolute(v).string();
      return read_file(v);
    }
  }
  if (source != nullptr) *source = "<input>";
  return v;
}

}  // namespace skillrt::issue_pipeline::detail
