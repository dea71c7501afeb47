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
bool canonical_id(std::string_view text, bool escaped) {
  if (text.front() == '"') return !escaped;
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

// The end of the canonical integer at `pos` (1 to kMaxIdDigits digits, no leading zero, not
// followed by anything that would make it another number); kNoPosition for anything else, which
// the general walk judges.
size_t plain_integer_end(std::string_view text, size_t pos) {
  size_t end = pos;
  while (end < text.size() && end - pos <= kMaxIdDigits && text[end] >= '0' && text[end] <= '9') {
    ++end;
  }
  const size_t digits = end - pos;
  if (digits == 0 || digits > kMaxIdDigits || (text[pos] == '0' && digits > 1)) {
    return json_scan::kNoPosition;
  }
  if (end < text.size() && (text[end] == '.' || text[end] == 'e' || text[end] == 'E')) {
    return json_scan::kNoPosition;
  }
  return end;
}

// The content of a string value that needed no unescaping; false for anything else.
bool plain_string(std::string_view value, bool escaped, std::string_view& content) {
  if (value.size() < 2 || value.front() != '"' || escaped) return false;
  content = value.substr(1, value.size() - 2);
  return true;
}

// Calls `member(key, value_start)` for each member of the object at `pos`, checking the text on
// the way by nlohmann's rules (so no separate pass over the message is needed); `member` returns
// the position after the value (most check it with value_at()) or kNoPosition to refuse. Returns
// the position after the object, or kNoPosition when the text is not well formed, a key is
// escaped (its decoded name could be one that matters) or `member` refuses.
template <typename Member>
size_t for_each_member(std::string_view text, size_t pos, Member&& member) {
  pos = skip_space(text, pos + 1);
  if (pos < text.size() && text[pos] == '}') return pos + 1;
  while (true) {
    bool escaped = false;
    const size_t key_end = json_scan::well_formed_string(text, pos, escaped);
    if (key_end == json_scan::kNoPosition || escaped) return json_scan::kNoPosition;
    const std::string_view key = text.substr(pos + 1, key_end - pos - 2);
    pos = skip_space(text, key_end);
    if (pos >= text.size() || text[pos] != ':') return json_scan::kNoPosition;
    const size_t value_end = member(key, skip_space(text, pos + 1));
    if (value_end == json_scan::kNoPosition) return json_scan::kNoPosition;
    pos = skip_space(text, value_end);
    if (pos >= text.size()) return json_scan::kNoPosition;
    if (text[pos] == '}') return pos + 1;
    if (text[pos] != ',') return json_scan::kNoPosition;
    pos = skip_space(text, pos + 1);
  }
}

// The well-formed value at `start`, and the position after it; empty (and `end` kNoPosition)
// when the text there is not well formed. `escaped`: the value is a string with a backslash.
std::string_view value_at(std::string_view text, size_t start, size_t& end, bool& escaped) {
  escaped = false;
  end = start < text.size() && text[start] == '"'
            ? json_scan::well_formed_string(text, start, escaped)
            : json_scan::well_formed_value(text, start);
  if (end == json_scan::kNoPosition) return {};
  return text.substr(start, end - start);
}

// Members of the "params" object at `pos`, walked in place (not skipped first and walked again).
// Returns the position after it, or kNoPosition for shapes the general path should judge.
size_t scan_params(std::string_view text, size_t pos, ToolsCallText& out) {
  if (pos >= text.size() || text[pos] != '{') return json_scan::kNoPosition;
  bool name = false;
  bool arguments = false;
  bool meta = false;
  const size_t end = for_each_member(text, pos, [&](std::string_view key, size_t start) {
    size_t value_end = 0;
    bool escaped = false;
    const std::string_view value = value_at(text, start, value_end, escaped);
    if (value.empty()) return json_scan::kNoPosition;
    if (key == "name") {
      if (name || !plain_string(value, escaped, out.name)) return json_scan::kNoPosition;
      name = true;
    } else if (key == "arguments") {
      // An object or null; anything else the general path refuses in its own words.
      if (arguments || (value.front() != '{' && value != "null")) return json_scan::kNoPosition;
      arguments = true;
      if (value.front() == '{') out.arguments = value;
    } else if (key == "_meta") {
      if (meta || value.front() != '{') return json_scan::kNoPosition;
      meta = true;
      out.meta = value;
    }
    return value_end;
  });
  // Without a name the general path phrases the error.
  return name ? end : json_scan::kNoPosition;
}

}  // namespace

std::optional<ToolsCallText> scan_tools_call(std::string_view text) {
  // The walk below checks every byte by nlohmann's rules as it goes; text it does not take
  // (a byte order mark, anything unusual) goes the general way, which judges it as nlohmann does.
  const size_t root = skip_space(text, 0);
  if (root >= text.size() || text[root] != '{') return std::nullopt;
  ToolsCallText out;
  bool jsonrpc = false;
  bool id = false;
  bool method = false;
  bool params = false;
  const size_t end = for_each_member(text, root, [&](std::string_view key, size_t start) {
    if (key == "params") {
      if (params) return json_scan::kNoPosition;
      params = true;
      return scan_params(text, start, out);
    }
    if (key == "id" && !id) {
      // The usual id, a small integer, read in one go: digits with no sign games, fraction or
      // exponent after them are a number nlohmann takes and writes back the same.
      if (const size_t end = plain_integer_end(text, start); end != json_scan::kNoPosition) {
        id = true;
        out.id = text.substr(start, end - start);
        return end;
      }
    }
    size_t value_end = 0;
    bool escaped = false;
    const std::string_view value = value_at(text, start, value_end, escaped);
    if (value.empty()) return json_scan::kNoPosition;
    std::string_view content;
    if (key == "jsonrpc") {
      if (jsonrpc || !plain_string(value, escaped, content) || content != "2.0") {
        return json_scan::kNoPosition;
      }
      jsonrpc = true;
    } else if (key == "id") {
      if (id || !canonical_id(value, escaped)) return json_scan::kNoPosition;
      id = true;
      out.id = value;
    } else if (key == "method") {
      if (method || !plain_string(value, escaped, content) || content != "tools/call") {
        return json_scan::kNoPosition;
      }
      method = true;
    }
    return value_end;
  });
  // Text after the object (nlohmann stops at a NUL byte there) goes the general way.
  if (end == json_scan::kNoPosition || skip_space(text, end) != text.size()) return std::nullopt;
  if (!jsonrpc || !id || !method || !params) return std::nullopt;
  return out;
}

}  // namespace skillrt::mcp::detail
