// The SDK's text handlers through the real plugin ABI: the fx-behaviours plugin is loaded with
// dlopen and called through its trampoline and the host API, as any plugin is.
#include <catch2/catch.hpp>
#include <string>

#include "exec/executor.hpp"
#include "fixture_host.hpp"

using skillrt::Code;
using skillrt::exec::Outcome;
using Json = nlohmann::json;

namespace {

using Host = skillrt::testing::FixtureHost;

}  // namespace

TEST_CASE("a text handler's result reaches the host unchanged", "[exec][sdk]") {
  Host h;
  const Json input = {{"n", 3}, {"s", "x\"y"}};
  Outcome out = h.executor.call("fx-text", input);
  REQUIRE(out.ok());
  // Byte for byte what the handler wrote: its spacing and key order were not re-serialized.
  CHECK(out.result_text ==
        "{\"z\": [1, 2.5, null],\n \"a\": \"caf\xc3\xa9 \\u00e9\", \"in\": " + input.dump() + "}");
  CHECK(out.result == Json{{"z", {1, 2.5, nullptr}}, {"a", "caf\xc3\xa9 \xc3\xa9"}, {"in", input}});
}

TEST_CASE("a text handler's result is validated against the output schema", "[exec][sdk][schema]") {
  Host h;
  Outcome out = h.executor.call("fx-text-bad-output", Json::object());
  CHECK(out.code == Code::kInternal);
  CHECK(out.result.is_null());
  REQUIRE_FALSE(out.violations.empty());
  CHECK(out.violations[0].pointer == "/count");
  CHECK(out.message.find("returned output that violates its output schema") != std::string::npos);
}

TEST_CASE("a text handler that returns text that is not JSON fails as the plugin's bug",
          "[exec][sdk]") {
  Host h;
  Outcome out = h.executor.call("fx-text-not-json", Json::object());
  CHECK(out.code == Code::kInternal);
  CHECK(out.result.is_null());
  CHECK(out.message.starts_with(
      "skill 'fx-text-not-json' of plugin 'fx-behaviours' returned invalid JSON ("));
  CHECK(out.message.ends_with("): a plugin bug, report it"));
  // The next call of the same plugin works.
  CHECK(h.executor.call("fx-text", Json::object()).ok());
}

TEST_CASE("a text handler's own error keeps its code and message", "[exec][sdk]") {
  Host h;
  Outcome out = h.executor.call("fx-text-fail", Json::object());
  CHECK(out.code == Code::kInvalidArgument);
  CHECK(out.message == "skill 'fx-text-fail' failed: field 'x' is out of range: pass 0 to 9");
}
