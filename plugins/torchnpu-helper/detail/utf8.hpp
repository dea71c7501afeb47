// Minimal UTF-8 decoding for the segmenter: code points and their byte spans.
#ifndef SKILLRT_TORCHNPU_HELPER_DETAIL_UTF8_HPP_
#define SKILLRT_TORCHNPU_HELPER_DETAIL_UTF8_HPP_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace skillrt::torchnpu_helper::detail {

// Decodes the code point at text[pos]; `length` gets its byte count (1 for a malformed byte, so
// a scan always advances).
inline uint32_t decode_utf8(std::string_view text, size_t pos, size_t& length) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  size_t need = 0;
  uint32_t code = 0;
  if (lead < 0x80) {
    length = 1;
    return lead;
  }
  if ((lead & 0xE0) == 0xC0) {
    need = 1;
    code = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    need = 2;
    code = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    need = 3;
    code = lead & 0x07;
  } else {
    length = 1;
    return 0xFFFD;
  }
  if (pos + need >= text.size()) {
    length = 1;
    return 0xFFFD;
  }
  for (size_t i = 1; i <= need; ++i) {
    if ((byte(pos + i) & 0xC0) != 0x80) {
      length = 1;
      return 0xFFFD;
    }
    code = (code << 6) | (byte(pos + i) & 0x3F);
  }
  length = need + 1;
  return code;
}

inline bool is_cjk(uint32_t code) {
  return (code >= 0x4E00 && code <= 0x9FFF) || (code >= 0x3400 && code <= 0x4DBF) ||
         (code >= 0xF900 && code <= 0xFAFF);
}

}  // namespace skillrt::torchnpu_helper::detail

#endif  // SKILLRT_TORCHNPU_HELPER_DETAIL_UTF8_HPP_
