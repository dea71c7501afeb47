#include "mcp/detail/jsonrpc.hpp"

#include <array>
#include <bit>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace skillrt::mcp::detail {

std::string dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

// How many bytes a JSON string adds to write each byte: 0 as it is, 1 for the two-character
// escapes, 5 for \u00XX.
constexpr std::array<unsigned char, 256> kEscapeExtra = [] {
  std::array<unsigned char, 256> extra{};
  for (int c = 0; c < 0x20; ++c) extra[c] = 5;
  for (const char c : {'"', '\\', '\b', '\f', '\n', '\r', '\t'}) {
    extra[static_cast<unsigned char>(c)] = 1;
  }
  return extra;
}();

// Writes the escape for byte `c` (one that needs one) at `p`; returns the position after it.
char* write_escape(char* p, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  *p++ = '\\';
  switch (c) {
    case '"':
    case '\\':
      *p++ = static_cast<char>(c);
      return p;
    case '\b':
      *p++ = 'b';
      return p;
    case '\f':
      *p++ = 'f';
      return p;
    case '\n':
      *p++ = 'n';
      return p;
    case '\r':
      *p++ = 'r';
      return p;
    case '\t':
      *p++ = 't';
      return p;
    default:
      *p++ = 'u';
      *p++ = '0';
      *p++ = '0';
      *p++ = kHex[c >> 4];
      *p++ = kHex[c & 0xF];
      return p;
  }
}

#if defined(__SSE2__)
// One bit for each of the 16 bytes at `p` that needs an escape: a quote, a backslash or a
// control character (unsigned, so UTF-8 bytes pass).
unsigned escape_marks(const char* p) {
  const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i control =
      _mm_cmpeq_epi8(_mm_max_epu8(block, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F));
  const __m128i hits = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8('"')),
                                                 _mm_cmpeq_epi8(block, _mm_set1_epi8('\\'))),
                                    control);
  return static_cast<unsigned>(_mm_movemask_epi8(hits));
}
#endif

}  // namespace

void append_quoted(std::string& out, std::string_view text) {
  const char* const in = text.data();
  const size_t n = text.size();
  const size_t start = out.size();
  // Writes the quoted text from buffer + start; returns where it ends. Where SSE2 is there it
  // goes 16 bytes at a time and looks at single bytes only where one needs an escape, so a large
  // result (a report) is not copied byte by byte. The last few bytes still go one at a time.
  const auto write = [in, n, start](char* buffer) {
    char* p = buffer + start;
    *p++ = '"';
    size_t j = 0;
#if defined(__SSE2__)
    // The whole block is stored before its first escape is looked at: the bytes before the
    // escape are right, the rest is written again from there. It fits: the 16 bytes still to
    // read need at least 16 more bytes of output, and the closing quote one.
    while (j + 16 <= n) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + j)));
      const unsigned m = escape_marks(in + j);
      if (m == 0) {
        p += 16;
        j += 16;
        continue;
      }
      const auto k = static_cast<size_t>(std::countr_zero(m));
      p = write_escape(p + k, static_cast<unsigned char>(in[j + k]));
      j += k + 1;
    }
#endif
    for (; j < n; ++j) {
      const auto c = static_cast<unsigned char>(in[j]);
      if (kEscapeExtra[c] == 0) {
        *p++ = static_cast<char>(c);
      } else {
        p = write_escape(p, c);
      }
    }
    *p++ = '"';
    return static_cast<size_t>(p - buffer);
  };
  // Where the string has room for the longest the text can become (every byte a \u00XX), it is
  // written in one pass (a small result: the answer is reserved generously).
  if (out.capacity() - start >= 6 * n + 2) {
    out.resize_and_overwrite(start + 6 * n + 2,
                             [&](char* buffer, size_t) { return write(buffer); });
    return;
  }
  // Otherwise sized exactly first, so the string grows once: appending escape by escape cost
  // more than the rest of a small answer.
  size_t size = n + 2;
  size_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) {
    for (unsigned m = escape_marks(in + i); m != 0; m &= m - 1) {
      size += kEscapeExtra[static_cast<unsigned char>(in[i + std::countr_zero(m)])];
    }
  }
  if (i < n && n >= 16) {
    // The last 16 bytes, those already counted shifted out.
    const size_t base = n - 16;
    for (unsigned m = escape_marks(in + base) >> (i - base); m != 0; m &= m - 1) {
      size += kEscapeExtra[static_cast<unsigned char>(in[i + std::countr_zero(m)])];
    }
    i = n;
  }
#endif
  for (; i < n; ++i) size += kEscapeExtra[static_cast<unsigned char>(in[i])];
  out.resize_and_overwrite(start + size, [&](char* buffer, size_t) { return write(buffer); });
}

bool may_name_path(std::string_view text) {
  const char* const in = text.data();
  const size_t n = text.size();
  size_t i = 0;
#if defined(__SSE2__)
  // Sixteen bytes at a time, each byte paired with the next by a shift within the block (so the
  // last of a block pairs with nothing and the next block starts there): a result is searched
  // once per call.
  if (n >= 16) {
    const auto pairs = [in](size_t at) {
      const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + at));
      const __m128i next = _mm_srli_si128(block, 1);
      const __m128i quote = _mm_cmpeq_epi8(block, _mm_set1_epi8('"'));
      const __m128i start = _mm_or_si128(_mm_cmpeq_epi8(next, _mm_set1_epi8('/')),
                                         _mm_cmpeq_epi8(next, _mm_set1_epi8('\\')));
      return _mm_movemask_epi8(_mm_and_si128(quote, start)) != 0;
    };
    for (; i + 16 <= n; i += 15) {
      if (pairs(i)) return true;
    }
    // The pairs left, in the text's last 16 bytes.
    return i + 1 < n && pairs(n - 16);
  }
#endif
  for (; i + 1 < n; ++i) {
    if (in[i] == '"' && (in[i + 1] == '/' || in[i + 1] == '\\')) return true;
  }
  return false;
}

std::string result_message(std::string_view id_text, std::string_view result_text) {
  std::string out;
  out.reserve(id_text.size() + result_text.size() + 40);
  out += R"({"jsonrpc":"2.0","id":)";
  out += id_text;
  out += R"(,"result":)";
  out += result_text;
  out += '}';
  return out;
}

std::string error_message(std::string_view id_text, int code, std::string_view message,
                          const nlohmann::json* data) {
  nlohmann::json error = {{"code", code}, {"message", message}};
  if (data != nullptr && !data->is_null()) error["data"] = *data;
  std::string out = R"({"jsonrpc":"2.0","id":)";
  out += id_text;
  out += R"(,"error":)";
  out += dump(error);
  out += '}';
  return out;
}

std::string notification_message(std::string_view method, const nlohmann::json& params) {
  std::string out = R"({"jsonrpc":"2.0","method":)";
  out += dump(nlohmann::json(method));
  out += R"(,"params":)";
  out += dump(params);
  out += '}';
  return out;
}

bool is_valid_id(const nlohmann::json& id) {
  return id.is_string() || id.is_number_integer() || id.is_number_unsigned();
}

}  // namespace skillrt::mcp::detail
