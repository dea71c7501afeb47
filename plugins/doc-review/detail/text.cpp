#include "detail/text.hpp"

#include <sstream>
#include "optoolkit/text.hpp"

namespace skillrt::doc_review::detail {

char32_t next_code_point(std::string_view s, size_t* i) {
  const auto b0 = static_cast<unsigned char>(s[*i]);
  if (b0 < 0x80) {
    ++*i;
    return b0;
  }
  size_t len = 0;
  char32_t cp = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    cp = b0 & 0x07;
  } else {
    ++*i;
    return 0xFFFD;
  }
  if (*i + len > s.size()) {
    ++*i;
    return 0xFFFD;
  }
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[*i + k]);
    if ((b & 0xC0) != 0x80) {
      ++*i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  *i += len;
  return cp;
}

void append_utf8(std::string* out, char32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool is_han(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0xF900 && cp <= 0xFAFF);
}

bool is_cjk(char32_t cp) {
  return is_han(cp) || (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0xAC00 && cp <= 0xD7AF);
}

bool is_cjk_punct(char32_t cp) {
  return (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF01 && cp <= 0xFF0F) ||
         (cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40) ||
         (cp >= 0xFF5B && cp <= 0xFF65) || (cp >= 0x2010 && cp <= 0x206F) ||
         (cp >= 0xFE30 && cp <= 0xFE4F);
}

size_t count_han(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size();) n += is_han(next_code_point(s, &i)) ? 1 : 0;
  return n;
}

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (is_upper(c)) c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && lower_ascii(a) == lower_ascii(b);
}

bool icontains(std::string_view haystack, std::string_view needle) {
  return lower_ascii(haystack).find(lower_ascii(needle)) != std::string::npos;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b < text.size()) {
    size_t e = text.find('\n', b);
    if (e == std::string_view::npos) e = text.size();
    std::string_view l = text.substr(b, e - b);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.emplace_back(l);
    b = e + 1;
  }
  return out;
}

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

std::string excerpt(std::string_view s, size_t max_chars) {
  std::string out;
  size_t chars = 0;
  bool space = false;
  s = ops::trim_view(s);
  for (size_t i = 0; i < s.size();) {
    const size_t start = i;
    const char32_t cp = next_code_point(s, &i);
    if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r') {
      space = true;
      continue;
    }
    if (chars >= max_chars) {
      out += "...";
      return out;
    }
    if (space && !out.empty()) {
      out += ' ';
      ++chars;
    }
    space = false;
    if (cp == 0xFFFD && i - start == 1) {
      out += "\xEF\xBF\xBD";
    } else {
      out.append(s.substr(start, i - start));
    }
    ++chars;
  }
  return out;
}

std::string heading_slug(std::string_view plain) {
  std::string out;
  plain = ops::trim_view(plain);
  for (size_t i = 0; i < plain.size();) {
    const char32_t cp = next_code_point(plain, &i);
    if (cp < 0x80) {
      const char c = static_cast<char>(cp);
      if (is_upper(c)) {
        out.push_back(static_cast<char>(c - 'A' + 'a'));
      } else if (is_lower(c) || is_digit(c) || c == '-' || c == '_') {
        out.push_back(c);
      } else if (c == ' ') {
        out.push_back('-');
      }
      continue;
    }
    // Latin-1 punctuation and symbols, CJK and full-width punctuation, arrows and other
    // symbols are dropped; letters of every script stay.
    if (cp <= 0xBF || is_cjk_punct(cp) || (cp >= 0x2190 && cp <= 0x2BFF) || cp >= 0x1F000 ||
        cp == 0xFFFD)
      continue;
    append_utf8(&out, cp);
  }
  return out;
}

std::string loose_anchor_key(std::string_view anchor) {
  std::string out;
  for (size_t i = 0; i < anchor.size();) {
    const char32_t cp = next_code_point(anchor, &i);
    if (cp < 0x80) {
      const char c = static_cast<char>(cp);
      if (is_upper(c)) out.push_back(static_cast<char>(c - 'A' + 'a'));
      if (is_lower(c) || is_digit(c)) out.push_back(c);
      continue;
    }
    if (cp <= 0xBF || is_cjk_punct(cp) || (cp >= 0x2190 && cp <= 0x2BFF) || cp >= 0x1F000) continue;
    append_utf8(&out, cp);
  }
  return out;
}

std::string mask_code_spans(std::string_view line, char fill) {
  std::string out(line);
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      i += 2;
      continue;
    }
    if (line[i] != '`') {
      ++i;
      continue;
    }
    size_t run = 0;
    while (i + run < line.size() && line[i + run] == '`') ++run;
    // The span closes at the next run of exactly the same length.
    size_t j = i + run;
    size_t close = std::string_view::npos;
    while (j < line.size()) {
      if (line[j] != '`') {
        ++j;
        continue;
      }
      size_t r = 0;
      while (j + r < line.size() && line[j + r] == '`') ++r;
      if (r == run) {
        close = j;
        break;
      }
      j += r;
    }
    if (close == std::string_view::npos) {
      i += run;
      continue;
    }
    for (size_t k = i; k < close + run; ++k) out[k] = fill;
    i = close + run;
  }
  return out;
}

namespace {

bool is_ascii_punct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
         (c >= '{' && c <= '~');
}

}  // namespace

std::string strip_inline_markdown(std::string_view text, bool spans_marked) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (spans_marked && c == '\x02') {
      const size_t close = text.find('\x03', i);
      const size_t end = close == std::string_view::npos ? text.size() : close + 1;
      out.append(text.substr(i, end - i));
      i = end;
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && is_ascii_punct(text[i + 1])) {
      out.push_back(text[i + 1]);
      i += 2;
      continue;
    }
    if (c == '`') {
      size_t run = 0;
      while (i + run < text.size() && text[i + run] == '`') ++run;
      const size_t close = text.find(std::string(run, '`'), i + run);
      if (close != std::string_view::npos) {
        out.append(ops::trim_view(text.substr(i + run, close - i - run)));
        i = close + run;
        continue;
      }
      out.append(text.substr(i, run));
      i += run;
      continue;
    }
    if (c == '!' && i + 1 < text.size() && text[i + 1] == '[') {
      const size_t close = text.find("](", i + 2);
      const size_t end = close == std::string_view::npos ? close : text.find(')', close);
      if (end != std::string_view::npos) {
        i = end + 1;
        continue;
      }
    }
    if (c == '[') {
      const size_t close = text.find("](", i + 1);
      const size_t end = close == std::string_view::npos ? close : text.find(')', close);
      if (end != std::string_view::npos &&
          text.substr(i + 1, close - i - 1).find('[') == std::string_view::npos) {
        out.append(strip_inline_markdown(text.substr(i + 1, close - i - 1), spans_marked));
        i = end + 1;
        continue;
      }
    }
    if (c == '<' && i + 1 < text.size() &&
        (is_ident_start(text[i + 1]) || text[i + 1] == '/' || text[i + 1] == '!')) {
      const size_t end = text.find('>', i);
      if (end != std::string_view::npos) {
        i = end + 1;
        continue;
      }
    }
    if (c == '*' || c == '~') {
      ++i;
      continue;
    }
    if (c == '_') {
      // '_' inside a word (torch_npu) is text; a run of one or two at a word's edge is emphasis.
      const bool left_word = i > 0 && is_ident_char(text[i - 1]);
      size_t run = 0;
      while (i + run < text.size() && text[i + run] == '_') ++run;
      const bool right_word = i + run < text.size() && is_ident_char(text[i + run]);
      if (run <= 2 && !(left_word && right_word)) {
        i += run;
        continue;
      }
      out.append(text.substr(i, run));
      i += run;
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

}  // namespace skillrt::doc_review::detail
