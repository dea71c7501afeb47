#include "detail/text.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>

namespace skillrt::npu_graph::detail {

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains_icase(std::string_view haystack, std::string_view needle) {
  return to_lower(haystack).find(to_lower(needle)) != std::string::npos;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

std::string clip(std::string_view s, size_t max) {
  if (s.size() <= max) return std::string(s);
  size_t cut = max;
  // Back off over UTF-8 continuation bytes so the result stays valid UTF-8.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "...";
}

std::string normalize_pattern(std::string_view line, size_t max) {
  std::string out;
  out.reserve(std::min(line.size(), max));
  size_t i = 0;
  while (i < line.size() && out.size() < max) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (std::isdigit(c)) {
      // A number, or a hex token such as 0x7f3a or a hash that starts with a digit.
      size_t j = i;
      while (j < line.size() && std::isxdigit(static_cast<unsigned char>(line[j]))) ++j;
      if (j + 1 < line.size() && line[i] == '0' && (line[i + 1] == 'x' || line[i + 1] == 'X')) {
        j = i + 2;
        while (j < line.size() && std::isxdigit(static_cast<unsigned char>(line[j]))) ++j;
      }
      out.push_back('#');
      i = j;
      continue;
    }
    out.push_back(static_cast<char>(c));
    ++i;
  }
  return out;
}

bool looks_like_path(std::string_view text) {
  if (text.empty() || text.size() > 4096) return false;
  if (text.find('\n') != std::string_view::npos) return false;
  struct stat st {};
  const std::string path(text);
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace skillrt::npu_graph::detail
