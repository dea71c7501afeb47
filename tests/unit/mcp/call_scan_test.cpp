#include "mcp/detail/call_scan.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace {

using nlohmann::json;
using skillrt::mcp::detail::scan_tools_call;

// What the spans must say, read through the DOM: the scan may refuse anything, but what it
// accepts must parse and read the same.
void expect_same_as_dom(const std::string& text) {
  const auto scanned = scan_tools_call(text);
  if (!scanned) return;
  INFO(text);
  const json msg = json::parse(text, nullptr, false);
  REQUIRE_FALSE(msg.is_discarded());
  REQUIRE(msg.is_object());
  CHECK(msg.at("jsonrpc") == "2.0");
  CHECK(msg.at("method") == "tools/call");
  CHECK(msg.at("id").dump() == scanned->id);
  const json& params = msg.at("params");
  REQUIRE(params.is_object());
  CHECK(params.at("name").get<std::string>() == scanned->name);
  if (scanned->arguments.empty()) {
    CHECK((!params.contains("arguments") || params.at("arguments").is_null()));
  } else {
    CHECK(json::parse(scanned->arguments) == params.at("arguments"));
  }
  if (scanned->meta.empty()) {
    CHECK_FALSE(params.contains("_meta"));
  } else {
    CHECK(json::parse(scanned->meta) == params.at("_meta"));
  }
}

}  // namespace

TEST_CASE("call scan: reads a plain tools/call request without a DOM") {
  const std::string text =
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fixture-echo",)"
      R"("arguments":{"text":"hi \"there\"","n":[1,2.5e3,{"x":null}]},"_meta":{"progressToken":3}}})";
  const auto call = scan_tools_call(text);
  REQUIRE(call);
  CHECK(call->id == "7");
  CHECK(call->name == "fixture-echo");
  CHECK(call->arguments == R"({"text":"hi \"there\"","n":[1,2.5e3,{"x":null}]})");
  CHECK(call->meta == R"({"progressToken":3})");
  expect_same_as_dom(text);

  const auto spaced = scan_tools_call(
      " {\t\"params\" : { \"arguments\" : null , \"name\" : \"a\" } , \"id\" : \"x-1\" ,"
      " \"method\" : \"tools/call\" , \"jsonrpc\" : \"2.0\" , \"extra\" : [true, false] }\r\n");
  REQUIRE(spaced);
  CHECK(spaced->id == "\"x-1\"");
  CHECK(spaced->arguments.empty());
  CHECK(spaced->meta.empty());

  // Integer ids, read without the general walk: every length that dump() writes back the same,
  // the id last, first or followed by space.
  for (const std::string id : {"0", "9", "10", "123456789012345678", "-5", "-123456789012345678"}) {
    for (const std::string& text :
         {R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"a"},"id":)" + id + "}",
          R"({"id":)" + id + R"( ,"jsonrpc":"2.0","method":"tools/call","params":{"name":"a"}})"}) {
      INFO(text);
      const auto scanned = scan_tools_call(text);
      REQUIRE(scanned);
      CHECK(scanned->id == id);
      expect_same_as_dom(text);
    }
  }
}

TEST_CASE("call scan: leaves every other shape to the general path") {
  const std::vector<std::string> refused = {
      // other methods, missing members, wrong version
      R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})",
      R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}})",
      R"({"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"a"}})",
      R"({"id":1,"method":"tools/call","params":{"name":"a"}})",
      // ids dump() would write differently, or that are no ids
      R"({"jsonrpc":"2.0","id":-0,"method":"tools/call","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","id":1.0,"method":"tools/call","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","id":1e2,"method":"tools/call","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","id":"a\/b","method":"tools/call","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/call","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","id":1234567890123456789,"method":"tools/call","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","id":0123,"method":"tools/call","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","id":00,"method":"tools/call","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","id":12x,"method":"tools/call","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","id":12E1,"method":"tools/call","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"a"},"id":12)",
      // escapes where a span cannot carry the decoded text; duplicates nlohmann resolves
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\u0061"}})",
      R"({"jsonrpc":"2.0","id":1,"meth\u006fd":"tools/call","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"a"}})",
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}})",
      // shapes the general path must judge
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":[]}})",
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":null}})",
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]})",
      R"([{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}])",
      // malformed: nlohmann refuses these, so must the scan
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}} x)",
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a",}})",
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":01}}})",
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1e400}}})",
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":"\ud800"}}})",
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":"\udc00"}}})",
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":"\q"}}})",
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":tru}}})",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\","
      "\"arguments\":{\"x\":\"\xC0\xAF\"}}}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\","
      "\"arguments\":{\"x\":\"\xED\xA0\x80\"}}}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\","
      "\"arguments\":{\"x\":\"a\tb\"}}}",
      "",
      "{",
  };
  for (const auto& text : refused) {
    INFO(text);
    CHECK_FALSE(scan_tools_call(text));
  }
  // Accepted and equal to the DOM: escapes inside the arguments, a surrogate pair, UTF-8.
  const std::string fine =
      "{\"jsonrpc\":\"2.0\",\"id\":\"\xE4\xBD\xA0\",\"method\":\"tools/call\",\"params\":{"
      "\"name\":\"a\",\"arguments\":{\"x\":\"\\ud83d\\ude00 \\u00e9 \xF0\x9F\x98\x80\","
      "\"y\":-0.5E-3,\"z\":[[],{}]}}}";
  REQUIRE(scan_tools_call(fine));
  expect_same_as_dom(fine);
}

TEST_CASE("call scan: whatever it accepts, nlohmann reads the same (random mutations)") {
  const std::vector<std::string> seeds = {
      R"({"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"fixture-echo","arguments":{"text":"hello","n":-1.5e2,"a":[true,false,null]}}})",
      R"({"params":{"_meta":{"progressToken":"p","skillrt/timeoutMs":100},"name":"x","arguments":{"s":"\u00e9\n\\"}},"method":"tools/call","id":"q","jsonrpc":"2.0"})",
  };
  const std::string alphabet = "{}[]\":,\\u0123456789abcdefnrtlsE.-+ \t\n\x80\xC3\xA9\xED\xF0\x9F";
  std::mt19937 rng(20261201);
  size_t accepted = 0;
  size_t total = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text = seeds[static_cast<size_t>(round) % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(at),
                      alphabet[rng() % alphabet.size()]);
          break;
        default:
          text.erase(at, 1);
      }
    }
    ++total;
    if (scan_tools_call(text)) ++accepted;
    expect_same_as_dom(text);
  }
  // Most single edits break the message; some land in string contents and are still accepted.
  INFO("accepted " << accepted << " of " << total);
  CHECK(accepted > 100);
}
