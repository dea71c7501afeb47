// Recognizes the common tools/call request straight from its text, so that the hot path needs no
// DOM of the whole message: only the arguments' text goes on, to be checked against the tool's
// input schema without one where the schema allows.
#pragma once

#include <optional>
#include <string_view>

namespace skillrt::mcp::detail {

// Spans into the scanned text; valid as long as it is.
struct ToolsCallText {
  std::string_view id;         // the id as dump() of the parsed id writes it
  std::string_view name;       // the tool name; it needed no unescaping
  std::string_view arguments;  // the arguments object's text; empty when absent or null
  std::string_view meta;       // params._meta's text (an object); empty when absent
};

// A tools/call request that nlohmann::json::parse accepts and that reads the same through the
// spans as through the DOM. nullopt for everything else: other methods, malformed JSON, and
// shapes the spans cannot carry exactly (escaped member names, ids or tool names; duplicate
// members; ids dump() would write differently). Those take the general path, which answers them
// as before.
std::optional<ToolsCallText> scan_tools_call(std::string_view text);

}  // namespace skillrt::mcp::detail
