#include "common/json_scan.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/utf8.hpp"

namespace skillrt::json_scan {
namespace {

// Past the end reads as a byte no range accepts, so that truncated text fails every check.
unsigned byte_at(std::string_view s, std::size_t i) {
  return i < s.size() ? static_cast<unsigned char>(s[i]) : 0x100U;
}

bool in_range(unsigned b, unsigned lo, unsigned hi) { return b >= lo && b <= hi; }

// Eight bytes at a time: a byte-by-byte loop whose step depends on the byte just read runs at
// the latency of a load per byte, which made string scanning most of a check's time.
constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHighs = 0x8080808080808080ULL;

std::uint64_t load8(const char* p) {
  std::uint64_t word = 0;
  std::memcpy(&word, p, sizeof word);
  return word;
}

// High bit set in each byte equal to `b`; the lowest one marks the first match exactly.
std::uint64_t bytes_equal(std::uint64_t word, unsigned char b) {
  const std::uint64_t x = word ^ (kOnes * b);
  return (x - kOnes) & ~x & kHighs;
}

// High bit set in each byte below `n` (n <= 128); the lowest one is exact.
std::uint64_t bytes_below(std::uint64_t word, unsigned char n) {
  return (word - kOnes * n) & ~word & kHighs;
}

// Index of the byte that the lowest set high bit marks (little-endian loads).
std::size_t first_marked(std::uint64_t mask) {
  if constexpr (std::endian::native == std::endian::little) {
    return static_cast<std::size_t>(std::countr_zero(mask)) / 8;
  } else {
    return static_cast<std::size_t>(std::countl_zero(mask)) / 8;
  }
}

// From `pos`, the first byte that is a quote or a backslash, or (when `strict`) a control
// character or a non-ASCII byte; the size of `s` when there is none.
[[gnu::always_inline]] inline std::size_t next_special(std::string_view s, std::size_t pos,
                                                       bool strict) {
#if defined(__SSE2__)
  // Sixteen bytes per step where the target has SSE2 (every x86-64): most member names and short
  // values end inside the first block, in about half the instructions of two SWAR words.
  const auto marks = [&](std::size_t at) { return detail::string_marks(s.data() + at, strict); };
  while (pos + 16 <= s.size()) {
    const unsigned mask = marks(pos);
    if (mask != 0) return pos + static_cast<std::size_t>(std::countr_zero(mask));
    pos += 16;
  }
  // Fewer than 16 bytes left: the text's last 16, with the marks of bytes before `pos` shifted
  // out. A string that ends near the end of its text (the last member of a small result) took
  // a byte loop here, about a third of all the string scanning on the tools/call path.
  if (pos < s.size() && s.size() >= 16) {
    const std::size_t base = s.size() - 16;
    const unsigned mask = marks(base) >> (pos - base);
    return mask != 0 ? pos + static_cast<std::size_t>(std::countr_zero(mask)) : s.size();
  }
#endif
  while (pos + 8 <= s.size()) {
    const std::uint64_t word = load8(s.data() + pos);
    std::uint64_t mask = bytes_equal(word, '"') | bytes_equal(word, '\\');
    if (strict) mask |= (word & kHighs) | bytes_below(word, 0x20);
    if (mask != 0) return pos + first_marked(mask);
    pos += 8;
  }
  while (pos < s.size()) {
    const auto c = static_cast<unsigned char>(s[pos]);
    if (c == '"' || c == '\\' || (strict && (c < 0x20 || c >= 0x80))) return pos;
    ++pos;
  }
  return pos;
}

int hex_digit(unsigned c) {
  if (c >= '0' && c <= '9') return static_cast<int>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<int>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<int>(c - 'A' + 10);
  return -1;
}

// The four hex digits at `pos`, or -1.
int read_hex4(std::string_view s, std::size_t pos) {
  int value = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const int digit = hex_digit(byte_at(s, pos + i));
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

// One multi-byte UTF-8 sequence at `pos`, by Unicode's Table 3-7 as nlohmann's lexer checks it.
std::size_t skip_utf8(std::string_view s, std::size_t pos) {
  const unsigned c = byte_at(s, pos);
  const unsigned b1 = byte_at(s, pos + 1);
  if (in_range(c, 0xC2, 0xDF)) return in_range(b1, 0x80, 0xBF) ? pos + 2 : kNoPosition;
  const unsigned b2 = byte_at(s, pos + 2);
  if (c == 0xE0 || in_range(c, 0xE1, 0xEC) || c == 0xED || in_range(c, 0xEE, 0xEF)) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80;
    const unsigned hi = c == 0xED ? 0x9F : 0xBF;
    return in_range(b1, lo, hi) && in_range(b2, 0x80, 0xBF) ? pos + 3 : kNoPosition;
  }
  const unsigned b3 = byte_at(s, pos + 3);
  if (in_range(c, 0xF0, 0xF4)) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80;
    const unsigned hi = c == 0xF4 ? 0x8F : 0xBF;
    return in_range(b1, lo, hi) && in_range(b2, 0x80, 0xBF) && in_range(b3, 0x80, 0xBF)
               ? pos + 4
               : kNoPosition;
  }
  return kNoPosition;
}

// `pos` is after the opening quote; returns the position after the closing one. Sets `escaped`
// when the string holds a backslash (it is left alone otherwise).
std::size_t check_string(std::string_view s, std::size_t pos, bool& escaped) {
  for (;;) {
    pos = next_special(s, pos, true);
    const unsigned c = byte_at(s, pos);
    if (c == '"') return pos + 1;
    if (c < 0x20 || c == 0x100U) return kNoPosition;
    if (c >= 0x80) {
      pos = skip_utf8(s, pos);
      if (pos == kNoPosition) return kNoPosition;
      continue;
    }
    // A backslash.
    escaped = true;
    const unsigned e = byte_at(s, pos + 1);
    if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
        e == 't') {
      pos += 2;
      continue;
    }
    if (e != 'u') return kNoPosition;
    const int cp = read_hex4(s, pos + 2);
    if (cp < 0) return kNoPosition;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (byte_at(s, pos + 6) != '\\' || byte_at(s, pos + 7) != 'u') return kNoPosition;
      const int low = read_hex4(s, pos + 8);
      if (low < 0xDC00 || low > 0xDFFF) return kNoPosition;
      pos += 12;
      continue;
    }
    if (cp >= 0xDC00 && cp <= 0xDFFF) return kNoPosition;
    pos += 6;
  }
}

std::size_t scan_digits(std::string_view s, std::size_t pos) {
  while (in_range(byte_at(s, pos), '0', '9')) ++pos;
  return pos;
}

// strtod as nlohmann's lexer calls it, on a terminated copy of the token.
double to_double(std::string_view token) {
  char small[64];
  if (token.size() < sizeof small) {
    std::memcpy(small, token.data(), token.size());
    small[token.size()] = '\0';
    return std::strtod(small, nullptr);
  }
  const std::string copy(token);
  return std::strtod(copy.c_str(), nullptr);
}

// `pos` is at '-' or a digit; returns the position after the number, or kNoPosition when
// nlohmann rejects it (bad grammar, or a value too large for a double).
std::size_t check_number(std::string_view s, std::size_t pos) {
  const std::size_t start = pos;
  if (byte_at(s, pos) == '-') ++pos;
  const unsigned first = byte_at(s, pos);
  if (first == '0') {
    ++pos;
  } else if (in_range(first, '1', '9')) {
    pos = scan_digits(s, pos);
  } else {
    return kNoPosition;
  }
  const std::size_t integer_digits = pos - start - (s[start] == '-' ? 1 : 0);
  if (byte_at(s, pos) == '.') {
    const std::size_t digits = pos + 1;
    pos = scan_digits(s, digits);
    if (pos == digits) return kNoPosition;
  }
  bool negative_exponent = false;
  std::size_t exponent = 0;
  if (byte_at(s, pos) == 'e' || byte_at(s, pos) == 'E') {
    ++pos;
    if (byte_at(s, pos) == '+' || byte_at(s, pos) == '-') {
      negative_exponent = s[pos] == '-';
      ++pos;
    }
    const std::size_t digits = pos;
    while (in_range(byte_at(s, pos), '0', '9')) {
      if (exponent < 100000) exponent = exponent * 10 + (byte_at(s, pos) - '0');
      ++pos;
    }
    if (pos == digits) return kNoPosition;
  }
  // Only a value of 1e308 or more overflows: below 300 integer digits and a small positive
  // exponent that cannot happen, which spares strtod on nearly every number.
  const std::size_t magnitude = integer_digits + (negative_exponent ? 0 : exponent);
  if (magnitude < 300) return pos;
  return std::isfinite(to_double(s.substr(start, pos - start))) ? pos : kNoPosition;
}

std::size_t check_literal(std::string_view s, std::size_t pos, std::string_view word) {
  return s.substr(pos, word.size()) == word ? pos + word.size() : kNoPosition;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

std::size_t well_formed_value(std::string_view text, std::size_t pos) {
  bool escaped = false;  // not asked for here
  // Which containers are open, one bit each (set for an object): the innermost 64 in a word,
  // deeper ones in a vector reused from call to call.
  thread_local std::vector<std::uint64_t> spilled;
  std::uint64_t open = 0;
  std::size_t depth = 0;
  enum class Expect { kValue, kKey, kAfter } expect = Expect::kValue;
  for (;;) {
    if (expect == Expect::kKey) {
      if (byte_at(text, pos) != '"') return kNoPosition;
      pos = check_string(text, pos + 1, escaped);
      if (pos == kNoPosition) return kNoPosition;
      pos = skip_space(text, pos);
      if (byte_at(text, pos) != ':') return kNoPosition;
      pos = skip_space(text, pos + 1);
      expect = Expect::kValue;
    }
    if (expect == Expect::kValue) {
      const unsigned c = byte_at(text, pos);
      if (c == '{' || c == '[') {
        pos = skip_space(text, pos + 1);
        if (byte_at(text, pos) == (c == '{' ? '}' : ']')) {
          ++pos;
        } else {
          if (depth > 0 && depth % 64 == 0) {
            if (depth == 64) spilled.clear();
            spilled.push_back(open);
          }
          open = (open << 1) | (c == '{' ? 1U : 0U);
          ++depth;
          expect = c == '{' ? Expect::kKey : Expect::kValue;
          continue;
        }
      } else if (c == '"') {
        pos = check_string(text, pos + 1, escaped);
      } else if (c == 't') {
        pos = check_literal(text, pos, "true");
      } else if (c == 'f') {
        pos = check_literal(text, pos, "false");
      } else if (c == 'n') {
        pos = check_literal(text, pos, "null");
      } else if (c == '-' || in_range(c, '0', '9')) {
        pos = check_number(text, pos);
      } else {
        return kNoPosition;
      }
      if (pos == kNoPosition) return kNoPosition;
      expect = Expect::kAfter;
    }
    if (depth == 0) return pos;
    pos = skip_space(text, pos);
    const unsigned c = byte_at(text, pos);
    const bool in_object = (open & 1U) != 0;
    if (c == ',') {
      pos = skip_space(text, pos + 1);
      expect = in_object ? Expect::kKey : Expect::kValue;
      continue;
    }
    if (c != (in_object ? '}' : ']')) return kNoPosition;
    open >>= 1;
    --depth;
    if (depth > 0 && depth % 64 == 0) {
      open = spilled.back();
      spilled.pop_back();
    }
    ++pos;
  }
}

std::size_t detail::well_formed_string_slow(std::string_view text, std::size_t pos, bool& escaped) {
  escaped = false;
  if (byte_at(text, pos) != '"') return kNoPosition;
  return check_string(text, pos + 1, escaped);
}

std::size_t well_formed_root(std::string_view text) {
  std::size_t pos = 0;
  // nlohmann skips a byte order mark, and only a whole one, before anything else.
  if (byte_at(text, 0) == 0xEF) {
    if (byte_at(text, 1) != 0xBB || byte_at(text, 2) != 0xBF) return kNoPosition;
    pos = 3;
  }
  const std::size_t root = skip_space(text, pos);
  const std::size_t end = well_formed_value(text, root);
  if (end == kNoPosition) return kNoPosition;
  pos = skip_space(text, end);
  return pos == text.size() || text[pos] == '\0' ? root : kNoPosition;
}

std::size_t skip_string(std::string_view text, std::size_t pos, bool& escaped) {
  escaped = false;
  ++pos;
  for (;;) {
    pos = next_special(text, pos, false);
    if (text[pos] == '"') return pos + 1;
    escaped = true;
    pos += 2;
  }
}

std::size_t skip_value(std::string_view text, std::size_t pos) {
  bool escaped = false;
  switch (text[pos]) {
    case '"':
      return skip_string(text, pos, escaped);
    case 't':
    case 'n':
      return pos + 4;
    case 'f':
      return pos + 5;
    case '{':
    case '[':
      break;
    default:
      while (pos < text.size() &&
             (in_range(byte_at(text, pos), '0', '9') || text[pos] == '-' || text[pos] == '+' ||
              text[pos] == '.' || text[pos] == 'e' || text[pos] == 'E')) {
        ++pos;
      }
      return pos;
  }
  std::size_t depth = 0;
  for (;;) {
    const char c = text[pos];
    if (c == '"') {
      pos = skip_string(text, pos, escaped);
      continue;
    }
    ++pos;
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return pos;
    }
  }
}

double JsonNumber::as_double() const {
  switch (kind) {
    case Kind::kSigned:
      return static_cast<double>(i);
    case Kind::kUnsigned:
      return static_cast<double>(u);
    case Kind::kFloat:
      break;
  }
  return d;
}

nlohmann::json JsonNumber::as_json() const {
  switch (kind) {
    case Kind::kSigned:
      return nlohmann::json(i);
    case Kind::kUnsigned:
      return nlohmann::json(u);
    case Kind::kFloat:
      break;
  }
  return nlohmann::json(d);
}

bool JsonNumber::is_integer() const {
  if (kind != Kind::kFloat) return true;
  return std::isfinite(d) && std::trunc(d) == d;
}

JsonNumber read_number(std::string_view text, std::size_t pos, std::size_t& end) {
  end = skip_value(text, pos);
  const std::string_view token = text.substr(pos, end - pos);
  JsonNumber number;
  // Integers first, as nlohmann's lexer does; one that overflows becomes a double.
  if (token.find_first_of(".eE") == std::string_view::npos) {
    const char* first = token.data();
    const char* last = token.data() + token.size();
    if (token.front() == '-') {
      const auto [ptr, ec] = std::from_chars(first, last, number.i);
      if (ec == std::errc() && ptr == last) {
        number.kind = JsonNumber::Kind::kSigned;
        return number;
      }
    } else {
      const auto [ptr, ec] = std::from_chars(first, last, number.u);
      if (ec == std::errc() && ptr == last) {
        number.kind = JsonNumber::Kind::kUnsigned;
        return number;
      }
    }
  }
  number.kind = JsonNumber::Kind::kFloat;
  number.d = to_double(token);
  return number;
}

std::size_t string_code_points(std::string_view raw, bool escaped) {
  if (!escaped) return utf8_length(raw);
  std::size_t count = 0;
  std::size_t i = 0;
  while (i < raw.size()) {
    const char c = raw[i];
    if (c == '\\') {
      if (raw[i + 1] == 'u') {
        const int cp = read_hex4(raw, i + 2);
        i += (cp >= 0xD800 && cp <= 0xDBFF) ? 12 : 6;
      } else {
        i += 2;
      }
      ++count;
      continue;
    }
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
    ++i;
  }
  return count;
}

void decode_string(std::string_view raw, std::string& out) {
  std::size_t i = 0;
  while (i < raw.size()) {
    const std::size_t slash = raw.find('\\', i);
    if (slash == std::string_view::npos) {
      out.append(raw.substr(i));
      return;
    }
    out.append(raw.substr(i, slash - i));
    const char e = raw[slash + 1];
    i = slash + 2;
    switch (e) {
      case 'b':
        out += '\b';
        continue;
      case 'f':
        out += '\f';
        continue;
      case 'n':
        out += '\n';
        continue;
      case 'r':
        out += '\r';
        continue;
      case 't':
        out += '\t';
        continue;
      case 'u':
        break;
      default:
        out += e;
        continue;
    }
    auto cp = static_cast<std::uint32_t>(read_hex4(raw, slash + 2));
    i = slash + 6;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      const auto low = static_cast<std::uint32_t>(read_hex4(raw, slash + 8));
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      i = slash + 12;
    }
    append_utf8(out, cp);
  }
}

}  // namespace skillrt::json_scan
