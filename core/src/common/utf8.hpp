// Counting characters in UTF-8 text.
#pragma once

#include <cstddef>
#include <string_view>

namespace skillrt {

// Code points in UTF-8 text (every byte that does not continue a sequence): what JSON Schema's
// minLength/maxLength and the Agent Skills description limit count.
inline std::size_t utf8_length(std::string_view text) {
  std::size_t count = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

}  // namespace skillrt
