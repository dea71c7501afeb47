// Calls whose input arrives as JSON text and whose result is wanted as text (the MCP server's
// tools/call path): the same verdicts and messages as the DOM path, no DOM where none is needed.
#include <catch2/catch.hpp>
#include <future>
#include <set>
#include <string>

#include "exec/executor.hpp"
#include "fixture_host.hpp"

using skillrt::Code;
using skillrt::exec::CallOptions;
using skillrt::exec::Outcome;
using Json = nlohmann::json;

namespace {

using Host = skillrt::testing::FixtureHost;

Outcome call_text(Host& h, const std::string& skill, const std::string& text,
                  bool result_text_only = true) {
  CallOptions options;
  options.result_text_only = result_text_only;
  std::promise<Outcome> promise;
  auto future = promise.get_future();
  h.executor.call_async_text(skill, text, std::move(options),
                             [&promise](Outcome out) { promise.set_value(std::move(out)); });
  return future.get();
}

}  // namespace

TEST_CASE("text input reaches the skill as written; a text result comes back without a DOM",
          "[exec]") {
  Host h;
  const std::string input = R"({ "name" : "x",  "options": {"max_prs": 5} })";
  Outcome out = call_text(h, "fx-strict", input);
  REQUIRE(out.ok());
  CHECK(out.result.is_null());
  // fx-strict returns its input, re-serialized by the SDK after parsing what the host passed.
  CHECK(Json::parse(out.result_text) == Json::parse(input));
  // Without result_text_only the DOM is there as before.
  Outcome dom = call_text(h, "fx-strict", input, false);
  REQUIRE(dom.ok());
  CHECK(dom.result == Json::parse(input));
}

TEST_CASE("empty text input is an empty object", "[exec]") {
  Host h;
  Outcome out = call_text(h, "fx-echo", "");
  REQUIRE(out.ok());
  CHECK(out.result_text == "{}");
}

TEST_CASE("text input that breaks the schema gets the DOM path's violations", "[exec][schema]") {
  Host h;
  const std::string input = R"({"options":{"max_prs":1000},"extra":true})";
  Outcome text = call_text(h, "fx-strict", input);
  Outcome dom = h.executor.call("fx-strict", Json::parse(input));
  CHECK(text.code == Code::kInvalidArgument);
  CHECK(text.message == dom.message);
  CHECK(text.violations == dom.violations);
  std::set<std::string> pointers;
  for (const auto& v : text.violations) pointers.insert(v.pointer);
  CHECK(pointers.count("/options/max_prs") == 1);
  CHECK(pointers.count("/extra") == 1);
}

TEST_CASE("text input that is not JSON is refused before the skill runs", "[exec]") {
  Host h;
  for (const std::string bad : {R"({"name": )", "{\"name\": \"\xC0\"}", "[1] 2"}) {
    Outcome out = call_text(h, "fx-throw", bad);
    CHECK(out.code == Code::kInvalidArgument);
    CHECK(out.message ==
          "input for skill 'fx-throw' is not valid JSON in UTF-8; send one JSON object (see "
          "`skillrt describe fx-throw`)");
  }
}

TEST_CASE("a text result that breaks the output schema is reported as with the DOM",
          "[exec][schema]") {
  Host h;
  Outcome text = call_text(h, "fx-bad-output", "{}");
  Outcome dom = h.executor.call("fx-bad-output", Json::object());
  CHECK(text.code == Code::kInternal);
  CHECK(text.message == dom.message);
  CHECK(text.violations == dom.violations);
  Outcome not_json = call_text(h, "fx-text-not-json", "{}");
  CHECK(not_json.code == Code::kInternal);
  CHECK(not_json.message.find("returned invalid JSON") != std::string::npos);
}

TEST_CASE("a raw handler gets the input text byte for byte, with no Json built on the way",
          "[exec][sdk]") {
  Host h;
  // Spacing, key order and an escape a re-serialization would change.
  const std::string input = "{ \"b\" : 1,\t\"a\": \"\\u00e9\" }";
  Outcome out = call_text(h, "fx-raw", input);
  REQUIRE(out.ok());
  CHECK(out.result_text ==
        "{\"bytes\": " + std::to_string(input.size()) + ", \"in\": " + input + "}");
  // Called with a DOM, it gets the host's serialization of it.
  Outcome dom = h.executor.call("fx-raw", Json{{"k", "v"}});
  REQUIRE(dom.ok());
  CHECK(dom.result == Json{{"bytes", 9}, {"in", {{"k", "v"}}}});
  // Input that breaks the schema never reaches it.
  Outcome bad = call_text(h, "fx-raw", "[1]");
  CHECK(bad.code == Code::kInvalidArgument);
}

TEST_CASE("a raw handler's own error keeps its code and message", "[exec][sdk]") {
  Host h;
  Outcome out = call_text(h, "fx-raw-fail", "{}");
  CHECK(out.code == Code::kFailedPrecondition);
  CHECK(out.message == "skill 'fx-raw-fail' failed: no input file: pass one");
}
