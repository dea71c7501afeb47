#include "mcp/detail/jsonrpc.hpp"

namespace skillrt::mcp::detail {

std::string dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void append_quoted(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  size_t plain = 0;  // start of the run not yet copied
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.data() + plain, i - plain);
    plain = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
    }
  }
  out.append(text.data() + plain, text.size() - plain);
  out += '"';
}

std::string result_message(std::string_view id_text, std::string_view result_text) {
  std::string out;
  out.reserve(id_text.size() + result_text.size() + 40);
  out += R"({"jsonrpc":"2.0","id":)";
  out += id_text;
  out += R"(,"result":)";
  out += result_text;
  out += '}';
  return out;
}

std::string error_message(std::string_view id_text, int code, std::string_view message,
                          const nlohmann::json* data) {
  nlohmann::json error = {{"code", code}, {"message", message}};
  if (data != nullptr && !data->is_null()) error["data"] = *data;
  std::string out = R"({"jsonrpc":"2.0","id":)";
  out += id_text;
  out += R"(,"error":)";
  out += dump(error);
  out += '}';
  return out;
}

std::string notification_message(std::string_view method, const nlohmann::json& params) {
  std::string out = R"({"jsonrpc":"2.0","method":)";
  out += dump(nlohmann::json(method));
  out += R"(,"params":)";
  out += dump(params);
  out += '}';
  return out;
}

bool is_valid_id(const nlohmann::json& id) {
  return id.is_string() || id.is_number_integer() || id.is_number_unsigned();
}

}  // namespace skillrt::mcp::detail
