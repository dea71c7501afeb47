#include "pr_map.hpp"

#include <cctype>

namespace skillrt::pr_analysis {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Digits at `pos`; nullopt when there are none or too many to be a PR number.
std::optional<int64_t> digits_at(std::string_view s, size_t pos, size_t* end = nullptr) {
  size_t i = pos;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == pos || i - pos > 12) return std::nullopt;
  if (end != nullptr) *end = i;
  return std::stoll(std::string(s.substr(pos, i - pos)));
}

// `https://github.com/<owner>/<repo>/pull/<N>` starting at `pos`.
std::optional<int64_t> pull_url_at(std::string_view s, size_t pos) {
  constexpr std::string_view kHost = "https://github.com/";
  if (s.substr(pos, kHost.size()) != kHost) return std::nullopt;
  size_t i = pos + kHost.size();
  for (int part = 0; part < 2; ++part) {
    const size_t slash = s.find('/', i);
    if (slash == std::string_view::npos || slash == i) return std::nullopt;
    for (size_t k = i; k < slash; ++k) {
      if (std::isspace(static_cast<unsigned char>(s[k]))) return std::nullopt;
    }
    i = slash + 1;
  }
  constexpr std::string_view kPull = "pull/";
  if (s.substr(i, kPull.size()) != kPull) return std::nullopt;
  return digits_at(s, i + kPull.size());
}

}  // namespace

std::string message_title(std::string_view message) {
  const size_t nl = message.find('\n');
  std::string_view t = message.substr(0, nl);
  while (!t.empty() && (t.back() == '\r' || t.back() == ' ')) t.remove_suffix(1);
  return std::string(t);
}

PrLink map_commit_to_pr(std::string_view message) {
  PrLink link;
  const std::string title = message_title(message);
  link.revert = title.rfind("Revert \"", 0) == 0;

  // "This reverts commit <sha>." names what a revert undoes, bot-made or not.
  constexpr std::string_view kReverts = "This reverts commit ";
  if (const size_t p = message.find(kReverts); p != std::string_view::npos) {
    size_t e = p + kReverts.size();
    while (e < message.size() && std::isxdigit(static_cast<unsigned char>(message[e]))) ++e;
    link.reverted_sha = std::string(message.substr(p + kReverts.size(), e - p - kReverts.size()));
    link.revert = true;
  }

  // Trailer lines (trymerge's RE_PULL_REQUEST_RESOLVED, three spellings), at a line start.
  size_t line_start = 0;
  while (line_start <= message.size()) {
    const size_t nl = message.find('\n', line_start);
    const std::string_view line = message.substr(
        line_start, nl == std::string_view::npos ? std::string_view::npos : nl - line_start);
    for (std::string_view key :
         {"Pull Request resolved: ", "Pull-Request-resolved: ", "Pull-Request: "}) {
      if (line.substr(0, key.size()) == key) {
        if (auto n = pull_url_at(line, key.size())) {
          link.pr = n;
          link.source = "trailer";
          return link;
        }
      }
    }
    if (link.revert && line.substr(0, 9) == "Reverted ") {
      if (auto n = pull_url_at(line, 9)) {
        link.pr = n;
        link.source = "revert";
        return link;
      }
    }
    if (nl == std::string_view::npos) break;
    line_start = nl + 1;
  }

  // Title suffix " (#N)".
  if (title.size() > 4 && title.back() == ')') {
    const size_t open = title.rfind(" (#");
    if (open != std::string::npos) {
      size_t end = 0;
      auto n = digits_at(title, open + 3, &end);
      if (n && end == title.size() - 1) {
        link.pr = n;
        link.source = "title";
      }
    }
  }
  return link;
}

}  // namespace skillrt::pr_analysis
