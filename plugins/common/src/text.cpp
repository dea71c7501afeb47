#include "optoolkit/text.hpp"

#include <algorithm>
#include <cctype>

namespace skillrt::ops {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (end == text.size() && line.empty()) break;
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

std::string_view trim_view(std::string_view s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])) != 0) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])) != 0) --e;
  return s.substr(b, e - b);
}

std::string trim(std::string_view s) { return std::string(trim_view(s)); }

std::vector<std::string> split_top_level(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  char quote = 0;
  std::string cur;
  bool escaped = false;  // the previous character inside quotes was a backslash
  for (const char c : s) {
    if (quote != 0) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == quote) {
        quote = 0;
      }
      cur += c;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (depth == 0 && c == ',') {
      std::string part = trim(cur);
      if (!part.empty()) out.push_back(std::move(part));
      cur.clear();
      continue;
    }
    cur += c;
  }
  std::string part = trim(cur);
  if (!part.empty()) out.push_back(std::move(part));
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1);
  std::vector<size_t> cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace skillrt::ops
