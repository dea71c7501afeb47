#include "text.hpp"

#include <algorithm>

namespace skillrt::ci_fix {

LineIndex::LineIndex(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      starts_.push_back(i + 1);
    } else if (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n')) {
      starts_.push_back(i + 1);  // a lone CR ends a line too
    }
  }
  ends_with_newline_ = !text.empty() && (text.back() == '\n' || text.back() == '\r');
  if (ends_with_newline_ || text.empty()) starts_.pop_back();
}

size_t LineIndex::start(uint32_t line) const {
  if (line == 0) return 0;
  if (line > starts_.size()) return text_.size();
  return starts_[line - 1];
}

size_t LineIndex::end(uint32_t line) const {
  if (line >= starts_.size()) return text_.size();
  return starts_[line];
}

size_t LineIndex::content_end(uint32_t line) const {
  size_t b = start(line);
  size_t e = end(line);
  while (e > b && (text_[e - 1] == '\n' || text_[e - 1] == '\r')) --e;
  return e;
}

std::string_view LineIndex::content(uint32_t line) const {
  size_t b = start(line);
  return text_.substr(b, content_end(line) - b);
}

std::string_view LineIndex::terminator(uint32_t line) const {
  size_t c = content_end(line);
  return text_.substr(c, end(line) - c);
}

uint32_t LineIndex::line_of(size_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  auto line = static_cast<uint32_t>(it - starts_.begin());
  if (offset >= text_.size() && ends_with_newline_)
    return static_cast<uint32_t>(starts_.size()) + 1;
  return line == 0 ? 1 : line;
}

std::string apply_edits(std::string_view text, const std::vector<Edit>& edits) {
  std::string out;
  size_t extra = 0;
  for (const Edit& e : edits) extra += e.text.size();
  out.reserve(text.size() + extra);
  size_t pos = 0;
  for (const Edit& e : edits) {
    out.append(text.substr(pos, e.begin - pos));
    out.append(e.text);
    pos = e.end;
  }
  out.append(text.substr(pos));
  return out;
}

bool edits_overlap(const Edit& a, const Edit& b) {
  if (a.begin == a.end && b.begin == b.end) return a.begin == b.begin && a.text != b.text;
  if (a.begin == a.end) return a.begin > b.begin && a.begin < b.end;
  if (b.begin == b.end) return b.begin > a.begin && b.begin < a.end;
  return a.begin < b.end && b.begin < a.end;
}

bool valid_utf8(std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += len;
  }
  return true;
}

size_t byte_of_column(std::string_view line, uint32_t col) {
  if (col <= 1) return 0;
  uint32_t chars = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) {
      if (chars == col - 1) return i;
      ++chars;
    }
  }
  return line.size();
}

bool is_hspace(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

bool is_blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return is_hspace(c); });
}

namespace {

bool glob_rec(std::string_view p, std::string_view s) {
  while (!p.empty()) {
    if (p.substr(0, 2) == "**") {
      std::string_view rest = p.substr(2);
      if (rest.empty()) return true;  // "dir/**" matches everything below dir
      if (rest[0] == '/') rest = rest.substr(1);
      for (size_t k = 0; k <= s.size(); ++k) {
        if ((k == 0 || s[k - 1] == '/') && glob_rec(rest, s.substr(k))) return true;
      }
      return false;
    }
    if (p[0] == '*') {
      for (size_t k = 0; k <= s.size(); ++k) {
        if (glob_rec(p.substr(1), s.substr(k))) return true;
        if (k < s.size() && s[k] == '/') break;
      }
      return false;
    }
    if (s.empty()) return false;
    if (p[0] != '?' && p[0] != s[0]) return false;
    if (p[0] == '?' && s[0] == '/') return false;
    p = p.substr(1);
    s = s.substr(1);
  }
  return s.empty();
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
  if (pattern.find('/') == std::string_view::npos) {
    size_t slash = path.rfind('/');
    std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    return glob_rec(pattern, name);
  }
  return glob_rec(pattern, path);
}

std::string_view dominant_eol(std::string_view text) {
  size_t crlf = 0, lf = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      if (i > 0 && text[i - 1] == '\r') {
        ++crlf;
      } else {
        ++lf;
      }
    }
  }
  return crlf > lf ? "\r\n" : "\n";
}

std::string shown(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<std::string> split_lines(std::string_view s) {
  std::vector<std::string> out;
  size_t b = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '\n') {
      std::string_view line = s.substr(b, i - b);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (i < s.size() || !line.empty()) out.emplace_back(line);
      b = i + 1;
    }
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

}  // namespace skillrt::ci_fix
