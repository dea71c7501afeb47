#include "detail/json_text.hpp"

#include <array>
#include <charconv>

namespace skillrt::gpu_migration::detail {

namespace {

// 0: copied as is; 1: escaped; 2: the first byte of a multi-byte sequence, to be checked.
constexpr std::array<uint8_t, 256> make_byte_kinds() {
  std::array<uint8_t, 256> k{};
  for (int c = 0; c < 0x20; ++c) k[c] = 1;
  k['"'] = 1;
  k['\\'] = 1;
  for (int c = 0x80; c < 0x100; ++c) k[c] = 2;
  return k;
}
constexpr std::array<uint8_t, 256> kByteKinds = make_byte_kinds();

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF: what nlohmann's decoder accepts), or 0.
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const size_t left = s.size() - i;
  const unsigned char c = at(0);
  if (c >= 0xC2 && c <= 0xDF) return left >= 2 && continuation(at(1)) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (left < 3 || !continuation(at(1)) || !continuation(at(2))) return 0;
    if (c == 0xE0 && at(1) < 0xA0) return 0;
    if (c == 0xED && at(1) > 0x9F) return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (left < 4 || !continuation(at(1)) || !continuation(at(2)) || !continuation(at(3))) return 0;
    if (c == 0xF0 && at(1) < 0x90) return 0;
    if (c == 0xF4 && at(1) > 0x8F) return 0;
    return 4;
  }
  return 0;
}

void append_escape(std::string& out, unsigned char c) {
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default: {
      static const char kHex[] = "0123456789abcdef";
      const char esc[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      out.append(esc, sizeof esc);
    }
  }
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  const size_t start = out.size();
  out += '"';
  size_t copied = 0;  // s[copied, i) is still to be appended as is
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const uint8_t kind = kByteKinds[c];
    if (kind == 0) {
      ++i;
    } else if (kind == 1) {
      out.append(s.data() + copied, i - copied);
      append_escape(out, c);
      copied = ++i;
    } else if (const size_t n = utf8_sequence(s, i); n != 0) {
      i += n;
    } else {
      // Invalid UTF-8 is rare (a file name, a line cut at 240 bytes): nlohmann's own replacement
      // rules, which resume differently after each kind of bad sequence, decide it.
      out.resize(start);
      out += nlohmann::json(std::string(s))
                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      return;
    }
  }
  out.append(s.data() + copied, s.size() - copied);
  out += '"';
}

void append_json_int(std::string& out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_json_value(std::string& out, const nlohmann::json& value) {
  out += value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace skillrt::gpu_migration::detail
