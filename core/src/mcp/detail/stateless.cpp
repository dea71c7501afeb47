#include "mcp/detail/stateless.hpp"

#include <algorithm>

#include "mcp/detail/jsonrpc.hpp"

namespace skillrt::mcp::detail {

using nlohmann::json;

namespace {

constexpr std::string_view kMetaPrefix = "io.modelcontextprotocol/";

const json* meta_of(const json& params) {
  if (!params.is_object()) return nullptr;
  const auto it = params.find("_meta");
  return it != params.end() && it->is_object() ? &*it : nullptr;
}

std::string string_at(const json* object, std::string_view key) {
  if (object == nullptr) return {};
  const auto it = object->find(key);
  return it != object->end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Results of the list and read methods may be cached by the client; the server says how long.
bool cacheable(std::string_view method) {
  return method == "server/discover" || method == "tools/list" || method == "prompts/list" ||
         method == "resources/list" || method == "resources/templates/list" ||
         method == "resources/read" || method == "skills/list" || method == "skills/get";
}

}  // namespace

bool is_stateless_request(std::string_view method, const json& params) {
  if (method == "server/discover") return true;
  const json* meta = meta_of(params);
  if (meta == nullptr) return false;
  return std::any_of(meta->items().begin(), meta->items().end(),
                     [](const auto& item) { return item.key().starts_with(kMetaPrefix); });
}

std::optional<json> meta_error(const json& params) {
  const json* meta = meta_of(params);
  const std::string version = string_at(meta, kMetaVersion);
  if (version.empty()) {
    return json{{"code", kInvalidParams},
                {"message",
                 "Invalid params: a request without initialize must carry "
                 "params._meta[\"" +
                     std::string(kMetaVersion) + "\"] (for example \"" +
                     std::string(kStatelessVersion) + "\"); older clients send initialize first"}};
  }
  const auto capabilities = meta->find(kMetaCapabilities);
  if (capabilities == meta->end() || !capabilities->is_object()) {
    return json{{"code", kInvalidParams},
                {"message", "Invalid params: params._meta[\"" + std::string(kMetaCapabilities) +
                                "\"] must be an object with the client's capabilities ({} for "
                                "none)"}};
  }
  if (version != kStatelessVersion) {
    return json{
        {"code", kUnsupportedVersion},
        {"message", "Unsupported protocol version '" + version +
                        "' for a request without initialize; this server speaks " +
                        std::string(kStatelessVersion) +
                        " that way, and 2025-11-25, 2025-06-18 and 2025-03-26 after "
                        "initialize"},
        {"data", {{"supported", json::array({kStatelessVersion})}, {"requested", version}}}};
  }
  return std::nullopt;
}

bool removed_in_stateless(std::string_view method) {
  return method == "initialize" || method == "ping" || method == "logging/setLevel" ||
         method == "resources/subscribe" || method == "resources/unsubscribe";
}

std::optional<json> missing_capability_error(std::string_view tool, const json& required,
                                             const json& params) {
  const json* meta = meta_of(params);
  const json declared =
      meta != nullptr ? meta->value(kMetaCapabilities, json::object()) : json::object();
  json missing = json::object();
  for (const auto& [capability, value] : required.items()) {
    if (!declared.is_object() || !declared.contains(capability)) missing[capability] = value;
  }
  if (missing.empty()) return std::nullopt;
  return json{
      {"code", kMissingClientCapability},
      {"message", "Missing required client capability: tool '" + std::string(tool) + "' needs " +
                      missing.dump() + " in " + std::string(kMetaCapabilities)},
      {"data", {{"requiredCapabilities", missing}}}};
}

int requested_log_level(const json& params, const std::string_view* levels, size_t level_count,
                        int off) {
  const std::string level = string_at(meta_of(params), kMetaLogLevel);
  const auto at = std::find(levels, levels + level_count, level);
  return at == levels + level_count ? off : static_cast<int>(at - levels);
}

std::optional<std::string> header_mismatch(std::string_view method, const json& params,
                                           std::string_view protocol_version_header,
                                           std::string_view method_header,
                                           std::string_view name_header) {
  const std::string body_version = string_at(meta_of(params), kMetaVersion);
  if (protocol_version_header.empty()) {
    return "Header mismatch: a request without a session must send MCP-Protocol-Version: " +
           (body_version.empty() ? std::string(kStatelessVersion) : body_version) +
           ", the revision in its _meta";
  }
  if (!body_version.empty() && protocol_version_header != body_version) {
    return "Header mismatch: MCP-Protocol-Version is '" + std::string(protocol_version_header) +
           "' but _meta says '" + body_version + "'; send the same revision in both";
  }
  if (!method_header.empty() && method_header != method) {
    return "Header mismatch: Mcp-Method is '" + std::string(method_header) +
           "' but the body's method is '" + std::string(method) + "'";
  }
  if (!name_header.empty()) {
    const std::string_view key = method == "resources/read" ? "uri" : "name";
    const std::string body_name = params.is_object() ? string_at(&params, key) : std::string();
    if (name_header != body_name) {
      return "Header mismatch: Mcp-Name is '" + std::string(name_header) +
             "' but the body's params." + std::string(key) + " is '" + body_name + "'";
    }
  }
  return std::nullopt;
}

std::string mark_stateless_answer(std::string message, std::string_view method) {
  const bool result = message.find(R"("result":)") != std::string::npos;
  const bool not_found = message.find(R"("code":-32002)") != std::string::npos;
  if (!result && !not_found) return message;
  json parsed = json::parse(message, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return message;
  if (const auto error = parsed.find("error"); error != parsed.end() && error->is_object()) {
    if (error->value("code", 0) == kResourceNotFound) (*error)["code"] = kInvalidParams;
    return dump(parsed);
  }
  const auto it = parsed.find("result");
  if (it == parsed.end() || !it->is_object()) return message;
  if (!it->contains("resultType")) (*it)["resultType"] = "complete";
  if (cacheable(method)) {
    if (!it->contains("ttlMs")) (*it)["ttlMs"] = 0;
    if (!it->contains("cacheScope")) (*it)["cacheScope"] = "private";
  }
  return dump(parsed);
}

std::string error_response(std::string_view id_text, const json& error) {
  const auto data = error.find("data");
  return error_message(id_text, error.value("code", kInternalError), error.value("message", ""),
                       data == error.end() ? nullptr : &*data);
}

}  // namespace skillrt::mcp::detail
