#include "common/json_text.hpp"

#include <algorithm>

namespace skillrt {

std::string describe_parse_error(std::string_view text, const nlohmann::json::parse_error& e) {
  // nlohmann counts the bytes it consumed (1-based); the fault is the last one read.
  const size_t fault = e.byte == 0 ? 0 : std::min<size_t>(e.byte - 1, text.size());
  size_t line = 1;
  size_t column = 1;
  for (size_t i = 0; i < fault; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  std::string what = e.what();
  // Drop "[json.exception.parse_error.101] parse error at line 1, column 5: ".
  if (auto colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what;
}

}  // namespace skillrt
