// The JSON-RPC text helpers: append_quoted() must write exactly what nlohmann's dump() writes for
// the same string, since answers built with it are compared with DOM-built ones.
#include "mcp/detail/jsonrpc.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

namespace {

using nlohmann::json;
using skillrt::mcp::detail::append_quoted;
using skillrt::mcp::detail::may_name_path;

// Both ways append_quoted() writes: sized first (a string without room to spare) and in one
// pass (room for the longest escape of every byte); they must agree.
std::string quote_it(std::string_view text) {
  std::string out = "x";  // appends, so what was there stays
  append_quoted(out, text);
  std::string roomy = "x";
  roomy.reserve(6 * text.size() + 8);
  append_quoted(roomy, text);
  CHECK(roomy == out);
  CHECK(roomy.size() == out.size());
  return out.substr(1);
}

}  // namespace

TEST_CASE("append_quoted escapes as nlohmann's dump does", "[mcp][jsonrpc]") {
  CHECK(quote_it("") == "\"\"");
  CHECK(quote_it("hello") == "\"hello\"");
  CHECK(quote_it(R"({"text":"hello"})") == json(R"({"text":"hello"})").dump());
  CHECK(quote_it("a\\b\"c\b\f\n\r\t\x01\x1f\x7f") == json("a\\b\"c\b\f\n\r\t\x01\x1f\x7f").dump());
  CHECK(quote_it("caf\xc3\xa9 \xe2\x82\xac") == json("caf\xc3\xa9 \xe2\x82\xac").dump());
  // An escape at every offset of texts of every length up to 40 (the copy goes 16 bytes at a
  // time, then byte by byte), with plain runs before and after it; UTF-8 and DEL pass as they are.
  for (std::size_t length = 1; length <= 40; ++length) {
    for (std::size_t at = 0; at < length; ++at) {
      for (const char special : {'"', '\\', '\n', '\x02', '\x1f', '\x7f', '\x20'}) {
        std::string text(length, 'a');
        text[at] = special;
        INFO("length " << length << " offset " << at << " byte " << static_cast<int>(special));
        CHECK(quote_it(text) == json(text).dump());
        // Two escapes in one block, and a multi-byte character after the first.
        text.insert(at, "\xc3\xa9\"");
        CHECK(quote_it(text) == json(text).dump());
      }
    }
  }
}

TEST_CASE("append_quoted matches dump on random ASCII text", "[mcp][jsonrpc]") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 0x7f);
  std::uniform_int_distribution<std::size_t> length(0, 70);
  for (int i = 0; i < 5000; ++i) {
    std::string text(length(rng), ' ');
    // Mostly plain letters, some of everything else.
    for (char& c : text)
      c = static_cast<char>(byte(rng) % 4 == 0 ? byte(rng) : 'a' + byte(rng) % 26);
    INFO(json(text).dump());
    REQUIRE(quote_it(text) == json(text).dump());
  }
}

// may_name_path() looks at 16 bytes at a time: a quote followed by '/' or a backslash must be
// found at every offset of texts of every length, including across two blocks.
TEST_CASE("may_name_path finds a quote before a slash or backslash anywhere", "[mcp][jsonrpc]") {
  const auto plain = [](std::string_view text) {
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {
      if (text[i] == '"' && (text[i + 1] == '/' || text[i + 1] == '\\')) return true;
    }
    return false;
  };
  for (std::size_t length = 0; length <= 50; ++length) {
    std::string base(length, 'a');
    CHECK_FALSE(may_name_path(base));
    for (std::size_t at = 0; at + 1 < length; ++at) {
      for (const std::string_view pair : {"\"/", "\"\\", "\"a", "/\"", "a/"}) {
        std::string text = base;
        text.replace(at, 2, pair);
        INFO("length " << length << " at " << at << " pair " << pair);
        CHECK(may_name_path(text) == plain(text));
      }
    }
  }
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> pick(0, 5);
  std::uniform_int_distribution<std::size_t> length(0, 90);
  for (int i = 0; i < 5000; ++i) {
    std::string text(length(rng), ' ');
    for (char& c : text) c = "\"/\\ab"[pick(rng) % 5];
    INFO(text);
    REQUIRE(may_name_path(text) == plain(text));
  }
}
