// Re-indents JSON text without building a DOM: how `skillrt run` prints a large result that
// was checked against its schema as text.
#pragma once

#include <string>
#include <string_view>

namespace skillrt::cli::detail {

// `text` (one valid JSON value) laid out as nlohmann's dump(indent) lays it out. Strings,
// numbers and member order are kept as written, so for text nlohmann itself wrote compactly (what
// the SDK hands the host) the output equals dump(indent) of the parsed value.
std::string indent_json(std::string_view text, int indent = 2);

}  // namespace skillrt::cli::detail
