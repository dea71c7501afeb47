#include "detail/text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "optoolkit/text.hpp"

namespace skillrt::opa::detail {

std::string trim(std::string_view s) { return ops::trim(s); }

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      out.emplace_back(text.substr(start));
      break;
    }
    out.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string camel_case(std::string_view snake) {
  std::string out;
  bool upper = true;
  for (char c : snake) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string kernel_stem(std::string_view base) {
  std::string stem(base);
  while (!stem.empty() && stem[0] == '_') stem.erase(0, 1);
  if (starts_with(stem, "npu_")) stem.erase(0, 4);
  return camel_case(stem);
}

namespace {

struct Edit {
  char op;  // ' ', '-', '+'
  std::string line;
};

std::vector<Edit> line_edits(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre &&
         a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) {
    ++suf;
  }
  std::vector<Edit> out;
  for (size_t i = 0; i < pre; ++i) out.push_back({' ', a[i]});
  const size_t n = a.size() - pre - suf;
  const size_t m = b.size() - pre - suf;
  if (n * m <= 4000000) {
    // LCS table over the changed middle only; the files we edit change in a few places.
    std::vector<std::vector<uint32_t>> t(n + 1, std::vector<uint32_t>(m + 1, 0));
    for (size_t i = n; i-- > 0;) {
      for (size_t j = m; j-- > 0;) {
        t[i][j] =
            a[pre + i] == b[pre + j] ? t[i + 1][j + 1] + 1 : std::max(t[i + 1][j], t[i][j + 1]);
      }
    }
    size_t i = 0;
    size_t j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[pre + i] == b[pre + j]) {
        out.push_back({' ', a[pre + i]});
        ++i;
        ++j;
      } else if (i < n && (j == m || t[i + 1][j] >= t[i][j + 1])) {
        out.push_back({'-', a[pre + i++]});
      } else {
        out.push_back({'+', b[pre + j++]});
      }
    }
  } else {
    for (size_t i = 0; i < n; ++i) out.push_back({'-', a[pre + i]});
    for (size_t j = 0; j < m; ++j) out.push_back({'+', b[pre + j]});
  }
  for (size_t i = a.size() - suf; i < a.size(); ++i) out.push_back({' ', a[i]});
  return out;
}

}  // namespace

std::string unified_diff(const std::string& path, const std::string& before,
                         const std::string& after, bool is_new_file) {
  if (before == after && !is_new_file) return "";
  const std::vector<std::string> a = split_lines(before);
  const std::vector<std::string> b = split_lines(after);
  const std::vector<Edit> edits = line_edits(a, b);
  std::string out = "--- " + (is_new_file ? std::string("/dev/null") : "a/" + path) + "\n";
  out += "+++ b/" + path + "\n";
  constexpr size_t kContext = 3;
  size_t k = 0;
  while (k < edits.size()) {
    if (edits[k].op == ' ') {
      ++k;
      continue;
    }
    // One hunk: from kContext lines before this change to kContext lines after the last change
    // that is at most 2*kContext lines away.
    size_t start = k >= kContext ? k - kContext : 0;
    size_t end = k;
    size_t last_change = k;
    while (end < edits.size()) {
      if (edits[end].op != ' ') last_change = end;
      if (end - last_change > 2 * kContext) break;
      ++end;
    }
    end = std::min(edits.size(), last_change + kContext + 1);
    size_t a_line = 1;
    size_t b_line = 1;
    for (size_t i = 0; i < start; ++i) {
      if (edits[i].op != '+') ++a_line;
      if (edits[i].op != '-') ++b_line;
    }
    size_t a_count = 0;
    size_t b_count = 0;
    std::string body;
    for (size_t i = start; i < end; ++i) {
      if (edits[i].op != '+') ++a_count;
      if (edits[i].op != '-') ++b_count;
      body += edits[i].op;
      body += edits[i].line;
      body += '\n';
    }
    out += "@@ -" + std::to_string(a_count == 0 ? a_line - 1 : a_line) + "," +
           std::to_string(a_count) + " +" + std::to_string(b_count == 0 ? b_line - 1 : b_line) +
           "," + std::to_string(b_count) + " @@\n" + body;
    k = end;
  }
  return out;
}

}  // namespace skillrt::opa::detail
