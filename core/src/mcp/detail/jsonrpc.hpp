// JSON-RPC 2.0 message shapes, written by hand around pre-serialized bodies so that the hot path
// (tools/call) dumps each JSON value once.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace skillrt::mcp::detail {

// JSON-RPC and MCP error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kResourceNotFound = -32002;

// Serializes without ever throwing: invalid UTF-8 inside strings is replaced.
std::string dump(const nlohmann::json& value);

// Appends `text` (valid UTF-8) as a JSON string, escaped as dump() escapes it.
void append_quoted(std::string& out, std::string_view text);

// Whether JSON text may hold a string starting with '/' (written plainly or escaped), that is,
// may name a report file: a quote followed by '/' or a backslash somewhere in it.
bool may_name_path(std::string_view text);

// `id_text` is the id already serialized ("1", "\"abc\"", or "null").
std::string result_message(std::string_view id_text, std::string_view result_text);
std::string error_message(std::string_view id_text, int code, std::string_view message,
                          const nlohmann::json* data = nullptr);
std::string notification_message(std::string_view method, const nlohmann::json& params);

// True for ids JSON-RPC allows in MCP: strings and integers (MCP forbids null).
bool is_valid_id(const nlohmann::json& id);

}  // namespace skillrt::mcp::detail
