// Writing JSON text directly, byte for byte as nlohmann::json::dump() would write the same values
// (no spaces, ensure_ascii off, invalid UTF-8 replaced by U+FFFD as the SDK dumps results):
// analyze's findings are written as text on the scanning threads instead of as tens of thousands
// of Json objects that would only be serialized and freed again.
#ifndef SKILLRT_GPU_MIGRATION_DETAIL_JSON_TEXT_HPP_
#define SKILLRT_GPU_MIGRATION_DETAIL_JSON_TEXT_HPP_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace skillrt::gpu_migration::detail {

// `s` as a quoted JSON string.
void append_json_string(std::string& out, std::string_view s);

void append_json_int(std::string& out, int64_t v);

// `value` as Json::dump(-1, ' ', false, error_handler_t::replace) writes it.
void append_json_value(std::string& out, const nlohmann::json& value);

}  // namespace skillrt::gpu_migration::detail

#endif  // SKILLRT_GPU_MIGRATION_DETAIL_JSON_TEXT_HPP_
