#include "mcp/detail/call_scan.hpp"

#include <cstddef>

#include "common/json_scan.hpp"

namespace skillrt::mcp::detail {
namespace {

using json_scan::skip_space;

// Integer ids of up to 18 digits read back the same from int64 or uint64.
constexpr size_t kMaxIdDigits = 18;

// An id that dump() writes back exactly as it stands: a string without escapes, or an integer
// without sign games ("-0") or more digits than both integer types hold.
bool canonical_id(std::string_view text) {
  if (text.front() == '"') return text.find('\\') == std::string_view::npos;
  size_t i = 0;
  if (text[0] == '-') i = 1;
  const std::string_view digits = text.substr(i);
  if (digits.empty() || digits.size() > kMaxIdDigits) return false;
  for (const char c : digits) {
    if (c < '0' || c > '9') return false;
  }
  if (digits[0] == '0') return digits.size() == 1 && i == 0;
  return true;
}

// The content of a string value that needed no unescaping; false for anything else.
bool plain_string(std::string_view value, std::string_view& content) {
  if (value.size() < 2 || value.front() != '"') return false;
  content = value.substr(1, value.size() - 2);
  return content.find('\\') == std::string_view::npos;
}

// Calls `member(key, value)` for each member of the object at `pos` (in well-formed text) and
// returns the position after it, or kNoPosition when a key is escaped (its decoded name could be
// one that matters) or `member` refuses.
template <typename Member>
size_t for_each_member(std::string_view text, size_t pos, Member&& member) {
  pos = skip_space(text, pos + 1);
  if (text[pos] == '}') return pos + 1;
  while (true) {
    bool escaped = false;
    const size_t key_end = json_scan::skip_string(text, pos, escaped);
    if (escaped) return json_scan::kNoPosition;
    const std::string_view key = text.substr(pos + 1, key_end - pos - 2);
    const size_t value_start = skip_space(text, skip_space(text, key_end) + 1);
    const size_t value_end = json_scan::skip_value(text, value_start);
    if (!member(key, text.substr(value_start, value_end - value_start))) {
      return json_scan::kNoPosition;
    }
    pos = skip_space(text, value_end);
    if (text[pos] == '}') return pos + 1;
    pos = skip_space(text, pos + 1);  // past the comma
  }
}

// Members of "params" the call needs. False for shapes the general path should judge.
bool scan_params(std::string_view params, ToolsCallText& out) {
  if (params.front() != '{') return false;
  bool name = false;
  bool arguments = false;
  bool meta = false;
  const size_t end = for_each_member(params, 0, [&](std::string_view key, std::string_view value) {
    if (key == "name") {
      if (name || !plain_string(value, out.name)) return false;
      name = true;
    } else if (key == "arguments") {
      // An object or null; anything else the general path refuses in its own words.
      if (arguments || (value.front() != '{' && value != "null")) return false;
      arguments = true;
      if (value.front() == '{') out.arguments = value;
    } else if (key == "_meta") {
      if (meta || value.front() != '{') return false;
      meta = true;
      out.meta = value;
    }
    return true;
  });
  // Without a name the general path phrases the error.
  return end != json_scan::kNoPosition && name;
}

}  // namespace

std::optional<ToolsCallText> scan_tools_call(std::string_view text) {
  // One validating pass, exactly nlohmann's rules; the walk below then only skips.
  const size_t root = json_scan::well_formed_root(text);
  if (root == json_scan::kNoPosition || root >= text.size() || text[root] != '{') {
    return std::nullopt;
  }
  ToolsCallText out;
  bool jsonrpc = false;
  bool id = false;
  bool method = false;
  bool params = false;
  const size_t end = for_each_member(text, root, [&](std::string_view key, std::string_view value) {
    std::string_view content;
    if (key == "jsonrpc") {
      if (jsonrpc || !plain_string(value, content) || content != "2.0") return false;
      jsonrpc = true;
    } else if (key == "id") {
      if (id || !canonical_id(value)) return false;
      id = true;
      out.id = value;
    } else if (key == "method") {
      if (method || !plain_string(value, content) || content != "tools/call") return false;
      method = true;
    } else if (key == "params") {
      if (params || !scan_params(value, out)) return false;
      params = true;
    }
    return true;
  });
  // Text after the value (nlohmann stops at a NUL byte there) goes the general way.
  if (end == json_scan::kNoPosition || skip_space(text, end) != text.size()) return std::nullopt;
  if (!jsonrpc || !id || !method || !params) return std::nullopt;
  return out;
}

}  // namespace skillrt::mcp::detail
