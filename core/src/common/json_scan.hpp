// JSON text read the way nlohmann::json::parse reads it, without building a value: the schema
// check on text (CompiledSchema::check_text) and the MCP server's tools/call scan share it.
//
// well_formed_root() decides exactly what nlohmann's strict parse accepts (RFC 8259 plus its
// quirks: a leading UTF-8 byte order mark, Unicode Table 3-7 for UTF-8, surrogate pairs, numbers
// that overflow a double). Everything else here assumes text that passed it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace skillrt::json_scan {

inline constexpr std::size_t kNoPosition = static_cast<std::size_t>(-1);

// Where the root value starts, or kNoPosition when nlohmann::json::parse(text) would throw.
// Like nlohmann's lexer it takes a NUL byte outside a string for the end of the text.
std::size_t well_formed_root(std::string_view text);

// `pos` is at the first byte of a value (no space before it); returns the position right after
// the value when it is well formed by the same rules, else kNoPosition. What follows the value is
// not looked at: this checks a value inside a larger text while walking it.
std::size_t well_formed_value(std::string_view text, std::size_t pos);

namespace detail {
std::size_t well_formed_string_slow(std::string_view text, std::size_t pos, bool& escaped);

#if defined(__SSE2__)
// One bit for each of the 16 bytes at `p` that is a quote or a backslash, or (when `strict`) a
// control character or a non-ASCII byte: where a string scan must stop and look.
inline unsigned string_marks(const char* p, bool strict) {
  const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  __m128i hits = _mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8('"')),
                              _mm_cmpeq_epi8(block, _mm_set1_epi8('\\')));
  // A signed compare: bytes of 0x80 and up are negative, so this marks them with the controls.
  if (strict) hits = _mm_or_si128(hits, _mm_cmplt_epi8(block, _mm_set1_epi8(0x20)));
  return static_cast<unsigned>(_mm_movemask_epi8(hits));
}
#endif
}  // namespace detail

// well_formed_value() for a string at `pos` (its opening quote), which also tells whether it
// holds a backslash (`escaped`), so a caller that wants only plain strings needs no second look.
inline std::size_t well_formed_string(std::string_view text, std::size_t pos, bool& escaped) {
#if defined(__SSE2__)
  // Inline for the usual string, one of under 16 plain ASCII bytes with more text after it (a
  // member name, a short value): a tools/call request has a dozen, and the calls alone cost a
  // quarter of their scanning.
  if (pos + 17 <= text.size() && text[pos] == '"') {
    const unsigned mask = detail::string_marks(text.data() + pos + 1, true);
    if (mask != 0) {
      const std::size_t at = pos + 1 + static_cast<std::size_t>(std::countr_zero(mask));
      if (text[at] == '"') {
        escaped = false;
        return at + 1;
      }
    }
  }
#endif
  return detail::well_formed_string_slow(text, pos, escaped);
}

inline bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

inline std::size_t skip_space(std::string_view text, std::size_t pos) {
  while (pos < text.size() && is_json_space(text[pos])) ++pos;
  return pos;
}

// `pos` is at the opening quote; returns the position after the closing one. `escaped` tells
// whether the string holds a backslash.
std::size_t skip_string(std::string_view text, std::size_t pos, bool& escaped);

// `pos` is at the first byte of a value; returns the position after its last byte.
std::size_t skip_value(std::string_view text, std::size_t pos);

// The number as nlohmann stores it: unsigned for non-negative integers that fit, signed for
// negative ones, double for the rest (fractions, exponents, integers that overflow).
struct JsonNumber {
  enum class Kind : std::uint8_t { kSigned, kUnsigned, kFloat };
  Kind kind = Kind::kUnsigned;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;

  double as_double() const;
  nlohmann::json as_json() const;
  // "integer" as json_type_name() decides it: every signed or unsigned value and every double
  // with no fraction.
  bool is_integer() const;
};

// `pos` is at the first byte of a number; `end` receives the position after it.
JsonNumber read_number(std::string_view text, std::size_t pos, std::size_t& end);

// Code points of a string's content (between the quotes), escapes counted as what they decode
// to: the count utf8_length() gives for the decoded string.
std::size_t string_code_points(std::string_view raw, bool escaped);

// Appends the decoded content of a string (between the quotes) to `out`.
void decode_string(std::string_view raw, std::string& out);

}  // namespace skillrt::json_scan
