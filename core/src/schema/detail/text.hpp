// Text helpers for violation messages: JSON Pointers, value descriptions, numbers.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/utf8.hpp"

namespace skillrt::schema::detail {

// One reference token escaped per RFC 6901 ("~" -> "~0", "/" -> "~1").
std::string escape_pointer_token(std::string_view token);

// "/a/b~1c" from {"a", "b/c"}; "" for the root.
std::string pointer_from_tokens(const std::vector<std::string>& tokens);

// The pointer as written at the head of a message: the root is shown as "/".
std::string display_pointer(std::string_view pointer);

// valijson reports where an error happened as {"<root>", "[options]", "[max_prs]"}.
std::string pointer_from_valijson_context(const std::vector<std::string>& context);

// JSON Schema's name for the value's type ("integer" for 3, "number" for 2.5).
std::string json_type_name(const nlohmann::json& value);

// What a message says it found: `integer 3`, `string "abc"`, `array of 4 items`, `null`.
std::string describe_value(const nlohmann::json& value);

// Compact JSON text, cut at about `limit` characters with "..." so messages stay short.
std::string short_dump(const nlohmann::json& value, std::size_t limit = 60);

// 500 for 500.0, 0.01 for 0.01: the shortest text that reads back as the same double.
std::string format_number(double value);

// Number of Unicode code points, which is what minLength and maxLength count.
using skillrt::utf8_length;

}  // namespace skillrt::schema::detail
