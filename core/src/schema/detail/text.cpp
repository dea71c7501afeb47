#include "schema/detail/text.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

namespace skillrt::schema::detail {

std::string escape_pointer_token(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string pointer_from_tokens(const std::vector<std::string>& tokens) {
  std::string out;
  for (const auto& token : tokens) {
    out += '/';
    out += escape_pointer_token(token);
  }
  return out;
}

std::string display_pointer(std::string_view pointer) {
  if (pointer.empty()) return "/";
  return std::string(pointer);
}

std::string pointer_from_valijson_context(const std::vector<std::string>& context) {
  std::string out;
  for (const auto& part : context) {
    if (part == "<root>") continue;
    std::string_view token = part;
    // Each step is wrapped in brackets; a property name may itself contain brackets, so only
    // the outermost pair is removed.
    if (token.size() >= 2 && token.front() == '[' && token.back() == ']') {
      token = token.substr(1, token.size() - 2);
    }
    out += '/';
    out += escape_pointer_token(token);
  }
  return out;
}

std::string json_type_name(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::boolean:
      return "boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return "integer";
    case nlohmann::json::value_t::number_float: {
      // Since draft 6 a number with a zero fraction is an integer.
      const double d = value.get<double>();
      if (std::isfinite(d) && std::trunc(d) == d) return "integer";
      return "number";
    }
    case nlohmann::json::value_t::string:
      return "string";
    case nlohmann::json::value_t::array:
      return "array";
    case nlohmann::json::value_t::object:
      return "object";
    default:
      return "unknown";
  }
}

std::string short_dump(const nlohmann::json& value, std::size_t limit) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() <= limit) return text;
  // Cut on a UTF-8 boundary so the message stays valid UTF-8.
  std::size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  text += "...";
  return text;
}

std::string describe_value(const nlohmann::json& value) {
  const std::string type = json_type_name(value);
  if (value.is_null()) return "null";
  if (value.is_array()) {
    const std::size_t n = value.size();
    return "array of " + std::to_string(n) + (n == 1 ? " item" : " items");
  }
  if (value.is_object()) {
    const std::size_t n = value.size();
    return "object with " + std::to_string(n) + (n == 1 ? " property" : " properties");
  }
  return type + " " + short_dump(value);
}

std::string format_number(double value) {
  if (std::isfinite(value) && std::trunc(value) == value && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec != std::errc()) return std::to_string(value);
  return std::string(buffer, end);
}

}  // namespace skillrt::schema::detail
