#include "mcp/detail/call_scan.hpp"

#include <cstdint>

namespace skillrt::mcp::detail {
namespace {

// Deeper arguments are rare enough to take the general path.
constexpr int kMaxDepth = 64;
// A number whose integer digits plus positive exponent stay under this is finite as a double;
// anything bigger might overflow, which nlohmann rejects, so it takes the general path.
constexpr int kMaxMagnitude = 300;
// Integer ids of up to 18 digits read back the same from int64 or uint64.
constexpr size_t kMaxIdDigits = 18;

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// A validating cursor over JSON text with nlohmann's rules: RFC 8259 grammar, strings in
// well-formed UTF-8, surrogate escapes paired, numbers finite. Every method returns false at
// the first thing it does not accept, which sends the message the general way.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  void skip_ws() {
    while (p_ < end_ && is_ws(*p_)) ++p_;
  }
  bool at_end() const { return p_ == end_; }
  bool peek(char c) const { return p_ < end_ && *p_ == c; }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++p_;
    return true;
  }
  const char* pos() const { return p_; }

  // A string at the cursor; `raw` is what lies between the quotes.
  bool string(std::string_view& raw, bool& escaped) {
    if (!eat('"')) return false;
    const char* start = p_;
    escaped = false;
    while (p_ < end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        raw = std::string_view(start, static_cast<size_t>(p_ - start));
        ++p_;
        return true;
      }
      if (c < 0x20) return false;
      if (c == '\\') {
        escaped = true;
        if (!escape()) return false;
        continue;
      }
      if (c < 0x80) {
        ++p_;
        continue;
      }
      if (!utf8_sequence(c)) return false;
    }
    return false;
  }

  bool number() {
    eat('-');
    int digits = 0;
    if (eat('0')) {
      digits = 1;
    } else {
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
        ++p_;
        ++digits;
      }
      if (digits == 0) return false;
    }
    if (eat('.')) {
      if (!digit_run()) return false;
    }
    if (peek('e') || peek('E')) {
      ++p_;
      bool negative = false;
      if (!eat('+')) negative = eat('-');
      int exponent = 0;
      int exponent_digits = 0;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
        if (++exponent_digits > 4) return false;
        exponent = exponent * 10 + (*p_ - '0');
        ++p_;
      }
      if (exponent_digits == 0) return false;
      if (!negative) digits += exponent;
    }
    return digits <= kMaxMagnitude;
  }

  // Any value at the cursor.
  bool value(int depth) {
    if (p_ == end_ || depth > kMaxDepth) return false;
    switch (*p_) {
      case '{':
        return object(depth);
      case '[':
        return array(depth);
      case '"': {
        std::string_view raw;
        bool escaped = false;
        return string(raw, escaped);
      }
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default:
        return number();
    }
  }

 private:
  bool literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  bool digit_run() {
    const char* start = p_;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    return p_ != start;
  }

  bool object(int depth) {
    ++p_;
    skip_ws();
    if (eat('}')) return true;
    while (true) {
      std::string_view key;
      bool escaped = false;
      if (!string(key, escaped)) return false;
      skip_ws();
      if (!eat(':')) return false;
      skip_ws();
      if (!value(depth + 1)) return false;
      skip_ws();
      if (eat(',')) {
        skip_ws();
        continue;
      }
      return eat('}');
    }
  }

  bool array(int depth) {
    ++p_;
    skip_ws();
    if (eat(']')) return true;
    while (true) {
      if (!value(depth + 1)) return false;
      skip_ws();
      if (eat(',')) {
        skip_ws();
        continue;
      }
      return eat(']');
    }
  }

  // Four hex digits after "\u".
  bool code_unit(uint32_t& unit) {
    if (end_ - p_ < 4) return false;
    unit = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = hex_value(p_[i]);
      if (h < 0) return false;
      unit = unit * 16 + static_cast<uint32_t>(h);
    }
    p_ += 4;
    return true;
  }

  bool escape() {
    ++p_;  // the backslash
    if (p_ == end_) return false;
    const char c = *p_++;
    switch (c) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        return true;
      case 'u': {
        uint32_t unit = 0;
        if (!code_unit(unit)) return false;
        if (unit >= 0xDC00 && unit <= 0xDFFF) return false;  // a low surrogate alone
        if (unit < 0xD800 || unit > 0xDBFF) return true;
        // A high surrogate needs its low half right after.
        if (!eat('\\') || !eat('u')) return false;
        uint32_t low = 0;
        return code_unit(low) && low >= 0xDC00 && low <= 0xDFFF;
      }
      default:
        return false;
    }
  }

  // One multi-byte UTF-8 sequence starting with `lead`, per RFC 3629 (no overlongs, no
  // surrogates, nothing above U+10FFFF).
  bool utf8_sequence(unsigned char lead) {
    const auto left = end_ - p_;
    const auto* s = reinterpret_cast<const unsigned char*>(p_);
    int length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return false;
    }
    if (left < length) return false;
    if (s[1] < low || s[1] > high) return false;
    for (int i = 2; i < length; ++i) {
      if (!is_continuation(s[i])) return false;
    }
    p_ += length;
    return true;
  }

  const char* p_;
  const char* end_;
};

// An id that dump() writes back exactly as it stands: a string without escapes, or an integer
// without sign games ("-0") or more digits than both integer types hold.
bool canonical_integer(std::string_view text) {
  size_t i = 0;
  if (!text.empty() && text[0] == '-') i = 1;
  const std::string_view digits = text.substr(i);
  if (digits.empty() || digits.size() > kMaxIdDigits) return false;
  for (const char c : digits) {
    if (c < '0' || c > '9') return false;
  }
  if (digits[0] == '0') return digits.size() == 1 && i == 0;
  return true;
}

// Members of "params" the call needs. False for shapes the general path should judge.
bool scan_params(Scanner& in, ToolsCallText& out) {
  if (!in.eat('{')) return false;
  in.skip_ws();
  bool name = false;
  bool arguments = false;
  bool meta = false;
  if (in.eat('}')) return false;  // no name: the general path phrases the error
  while (true) {
    std::string_view key;
    bool escaped = false;
    if (!in.string(key, escaped) || escaped) return false;
    in.skip_ws();
    if (!in.eat(':')) return false;
    in.skip_ws();
    const char* start = in.pos();
    if (key == "name") {
      bool value_escaped = false;
      if (name || !in.string(out.name, value_escaped) || value_escaped) return false;
      name = true;
    } else if (key == "arguments") {
      if (arguments) return false;
      arguments = true;
      if (in.peek('{')) {
        if (!in.value(2)) return false;
        out.arguments = std::string_view(start, static_cast<size_t>(in.pos() - start));
      } else if (!in.peek('n') || !in.value(2)) {
        return false;  // anything but an object or null: the general path refuses it
      }
    } else if (key == "_meta") {
      if (meta || !in.peek('{') || !in.value(2)) return false;
      meta = true;
      out.meta = std::string_view(start, static_cast<size_t>(in.pos() - start));
    } else if (!in.value(2)) {
      return false;
    }
    in.skip_ws();
    if (in.eat(',')) {
      in.skip_ws();
      continue;
    }
    if (!in.eat('}')) return false;
    return name;
  }
}

}  // namespace

std::optional<ToolsCallText> scan_tools_call(std::string_view text) {
  Scanner in(text);
  in.skip_ws();
  if (!in.eat('{')) return std::nullopt;
  in.skip_ws();
  ToolsCallText out;
  bool jsonrpc = false;
  bool id = false;
  bool method = false;
  bool params = false;
  if (in.eat('}')) return std::nullopt;
  while (true) {
    std::string_view key;
    bool escaped = false;
    if (!in.string(key, escaped) || escaped) return std::nullopt;
    in.skip_ws();
    if (!in.eat(':')) return std::nullopt;
    in.skip_ws();
    const char* start = in.pos();
    if (key == "jsonrpc") {
      std::string_view version;
      bool value_escaped = false;
      if (jsonrpc || !in.string(version, value_escaped) || value_escaped || version != "2.0") {
        return std::nullopt;
      }
      jsonrpc = true;
    } else if (key == "id") {
      if (id || !in.value(1)) return std::nullopt;
      id = true;
      out.id = std::string_view(start, static_cast<size_t>(in.pos() - start));
      if (out.id.front() == '"') {
        if (out.id.find('\\') != std::string_view::npos) return std::nullopt;
      } else if (!canonical_integer(out.id)) {
        return std::nullopt;
      }
    } else if (key == "method") {
      std::string_view name;
      bool value_escaped = false;
      if (method || !in.string(name, value_escaped) || value_escaped || name != "tools/call") {
        return std::nullopt;
      }
      method = true;
    } else if (key == "params") {
      if (params || !scan_params(in, out)) return std::nullopt;
      params = true;
    } else if (!in.value(1)) {
      return std::nullopt;
    }
    in.skip_ws();
    if (in.eat(',')) {
      in.skip_ws();
      continue;
    }
    if (!in.eat('}')) return std::nullopt;
    break;
  }
  in.skip_ws();
  if (!in.at_end() || !jsonrpc || !id || !method || !params) return std::nullopt;
  return out;
}

}  // namespace skillrt::mcp::detail
