#include "mcp/detail/jsonrpc.hpp"

#include <array>

namespace skillrt::mcp::detail {

std::string dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

// How many bytes a JSON string adds to write each byte: 0 as it is, 1 for the two-character
// escapes, 5 for \u00XX.
constexpr std::array<unsigned char, 256> kEscapeExtra = [] {
  std::array<unsigned char, 256> extra{};
  for (int c = 0; c < 0x20; ++c) extra[c] = 5;
  for (const char c : {'"', '\\', '\b', '\f', '\n', '\r', '\t'}) {
    extra[static_cast<unsigned char>(c)] = 1;
  }
  return extra;
}();

}  // namespace

void append_quoted(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  // Sized exactly first, then written through a pointer: appending escape by escape cost more
  // than the rest of a small answer.
  size_t size = text.size() + 2;
  for (const char c : text) size += kEscapeExtra[static_cast<unsigned char>(c)];
  const size_t start = out.size();
  out.resize_and_overwrite(start + size, [&](char* buffer, size_t) {
    char* p = buffer + start;
    *p++ = '"';
    for (const char ch : text) {
      const auto c = static_cast<unsigned char>(ch);
      if (kEscapeExtra[c] == 0) {
        *p++ = ch;
        continue;
      }
      *p++ = '\\';
      switch (c) {
        case '"':
        case '\\':
          *p++ = ch;
          break;
        case '\b':
          *p++ = 'b';
          break;
        case '\f':
          *p++ = 'f';
          break;
        case '\n':
          *p++ = 'n';
          break;
        case '\r':
          *p++ = 'r';
          break;
        case '\t':
          *p++ = 't';
          break;
        default:
          *p++ = 'u';
          *p++ = '0';
          *p++ = '0';
          *p++ = kHex[c >> 4];
          *p++ = kHex[c & 0xF];
      }
    }
    *p++ = '"';
    return start + size;
  });
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
