// MCP 2026-07-28, the stateless revision: a request carries its revision and the client's
// capabilities in params._meta instead of a session. What the server needs to tell such a
// request from an older one, check it, and mark its answer; the server keeps the dispatch.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace skillrt::mcp::detail {

inline constexpr std::string_view kStatelessVersion = "2026-07-28";
inline constexpr std::string_view kMetaVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view kMetaCapabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view kMetaLogLevel = "io.modelcontextprotocol/logLevel";
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kMissingClientCapability = -32021;
inline constexpr int kUnsupportedVersion = -32022;

// True when the request is a 2026-07-28 one: server/discover, or io.modelcontextprotocol/ keys
// in its _meta.
bool is_stateless_request(std::string_view method, const nlohmann::json& params);

// The JSON-RPC error object ({code, message, data}) a stateless request is refused with for
// its _meta (missing fields, another revision), or nullopt when it may be served.
std::optional<nlohmann::json> meta_error(const nlohmann::json& params);

// The methods of the stateful revisions that 2026-07-28 removed.
bool removed_in_stateless(std::string_view method);

// The error for a tool needing client capabilities (`required`: {"sampling": {}}) that the
// request's _meta does not declare; nullopt when it declares them all.
std::optional<nlohmann::json> missing_capability_error(std::string_view tool,
                                                       const nlohmann::json& required,
                                                       const nlohmann::json& params);

// The log level index (into the MCP level names) a stateless request asks for with _meta
// logLevel, or `off` when it asks for none.
int requested_log_level(const nlohmann::json& params, const std::string_view* levels,
                        size_t level_count, int off);

// Why the Streamable HTTP headers of a stateless request disagree with its body, or nullopt.
std::optional<std::string> header_mismatch(std::string_view method, const nlohmann::json& params,
                                           std::string_view protocol_version_header,
                                           std::string_view method_header,
                                           std::string_view name_header);

// The final answer as 2026-07-28 wants it: resultType on results, ttlMs and cacheScope on list
// and read results, -32602 instead of -32002 for an unknown resource (SEP-2164).
std::string mark_stateless_answer(std::string message, std::string_view method);

// {"jsonrpc":"2.0","id":<id_text>,"error":<error>}
std::string error_response(std::string_view id_text, const nlohmann::json& error);

}  // namespace skillrt::mcp::detail
