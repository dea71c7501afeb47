// Replays what Claude Code and Codex really sent (tests/data/mcp-clients/) and checks every
// answer against the MCP specification.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "support.hpp"

using namespace skillrt::testing;

namespace {

std::vector<std::string> capture(const std::string& file) {
  std::ifstream in(std::string(SKILLRT_SOURCE_DIR) + "/tests/data/mcp-clients/" + file);
  REQUIRE(in);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// What a tools/list result must look like for any client.
void check_tool_list(const json& result, const TestHost& host) {
  REQUIRE(result.contains("tools"));
  REQUIRE(result["tools"].is_array());
  CHECK(result["tools"].size() == host.registry.all().size());
  for (const auto& tool : result["tools"]) {
    INFO(tool.dump());
    REQUIRE(tool["name"].is_string());
    const std::string name = tool["name"];
    CHECK(("mcp__skillrt__" + name).size() <= 64);
    CHECK(tool["description"].is_string());
    REQUIRE(tool["inputSchema"].is_object());
    CHECK(tool["inputSchema"]["type"] == "object");
    if (tool.contains("outputSchema")) CHECK(tool["outputSchema"]["type"] == "object");
    REQUIRE(tool["annotations"].is_object());
    for (const char* hint :
         {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}) {
      CHECK(tool["annotations"][hint].is_boolean());
    }
  }
  // Hints come from the skill's flags.
  for (const auto& tool : result["tools"]) {
    if (tool["name"] == "echo") {
      CHECK(tool["annotations"]["readOnlyHint"] == true);
      CHECK(tool["annotations"]["idempotentHint"] == true);
      CHECK(tool["annotations"]["destructiveHint"] == false);
      CHECK(tool["title"] == "Echo");
    }
    if (tool["name"] == "fail") CHECK(tool["annotations"]["destructiveHint"] == true);
  }
}

void check_envelope(const json& m) {
  CHECK(m["jsonrpc"] == "2.0");
  CHECK(m.contains("id"));
  CHECK(m.contains("result") != m.contains("error"));
}

}  // namespace

TEST_CASE("Claude Code 2.1.197 connection sequence is answered as the spec says") {
  TestHost host;
  skillrt::mcp::Server server(*host.executor, {});
  Client client(server);
  for (const auto& line : capture("claude-code-2.1.197.client-messages.jsonl")) client.send(line);

  const auto messages = client.wait_count(2);
  // Two requests (ids 0 and 1) and one notification: exactly two answers, in order.
  REQUIRE(messages.size() == 2);
  for (const auto& m : messages) check_envelope(m);
  const json& init = messages[0];
  CHECK(init["id"] == 0);
  CHECK(init["result"]["protocolVersion"] == "2025-11-25");
  CHECK(init["result"]["capabilities"]["tools"].is_object());
  CHECK(init["result"]["capabilities"]["logging"].is_object());
  CHECK(init["result"]["serverInfo"]["name"] == "skillrt");
  CHECK(init["result"]["serverInfo"]["version"].is_string());
  CHECK(init["result"]["instructions"].is_string());
  CHECK(messages[1]["id"] == 1);
  check_tool_list(messages[1]["result"], host);
  CHECK_FALSE(messages[1]["result"].contains("nextCursor"));
}

TEST_CASE("Codex 0.171.0 connection sequence is answered as the spec says") {
  TestHost host;
  skillrt::mcp::Server server(*host.executor, {});
  Client client(server);
  for (const auto& line : capture("codex-0.171.0.client-messages.jsonl")) client.send(line);

  const auto messages = client.wait_count(2);
  REQUIRE(messages.size() == 2);
  for (const auto& m : messages) check_envelope(m);
  CHECK(messages[0]["id"] == 0);
  CHECK(messages[0]["result"]["protocolVersion"] == "2025-06-18");
  // tools/list carries a progressToken: the answer is a plain result, and a list has no
  // progress to report, so no notifications/progress is sent.
  CHECK(messages[1]["id"] == 1);
  check_tool_list(messages[1]["result"], host);
  for (const auto& m : client.received()) CHECK_FALSE(m.contains("method"));
}
