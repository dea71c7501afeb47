// Helpers for JSON text that people and agents wrote by hand.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace skillrt {

// "line 3, column 7: <what the parser expected>", computed from the parser's byte offset, without
// nlohmann's exception prefix.
std::string describe_parse_error(std::string_view text, const nlohmann::json::parse_error& e);

}  // namespace skillrt
