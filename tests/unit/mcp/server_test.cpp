// MCP semantics: lifecycle, errors, tools, progress, cancellation, logging, resources, prompts.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>
#include <vector>

#include "mcp/detail/skill_package.hpp"
#include "support.hpp"

using namespace skillrt::testing;
namespace mcp = skillrt::mcp;

namespace {

std::string text_content(const json& result) {
  REQUIRE(result["content"].is_array());
  REQUIRE(result["content"].size() >= 1);
  REQUIRE(result["content"][0]["type"] == "text");
  return result["content"][0]["text"];
}

}  // namespace

TEST_CASE("initialize negotiates the protocol revision") {
  TestHost host;
  mcp::Server server(*host.executor, {});
  SECTION("a revision we speak is echoed") {
    for (const char* v : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
      Client client(server);
      auto r = client.request(
          req(1, "initialize", {{"protocolVersion", v}, {"capabilities", json::object()}}));
      CHECK(r["result"]["protocolVersion"] == v);
      CHECK(mcp::Server::initialized(*client.session()));
      CHECK(mcp::Server::protocol_version(*client.session()) == v);
    }
  }
  SECTION("an unknown revision gets our latest") {
    Client client(server);
    auto r = client.request(req(1, "initialize", {{"protocolVersion", "2099-01-01"}}));
    CHECK(r["result"]["protocolVersion"] == "2025-11-25");
  }
  SECTION("a missing revision is invalid params") {
    Client client(server);
    auto r = client.request(req(1, "initialize", json::object()));
    CHECK(r["error"]["code"] == -32602);
    CHECK_FALSE(mcp::Server::initialized(*client.session()));
  }
  SECTION("a second initialize is refused") {
    Client client(server);
    client.initialize();
    auto r = client.request(req(2, "initialize", {{"protocolVersion", "2025-11-25"}}));
    CHECK(r["error"]["code"] == -32600);
  }
}

TEST_CASE("requests before initialize are refused, ping is not") {
  TestHost host;
  mcp::Server server(*host.executor, {});
  Client client(server);
  auto ping = client.request(req(1, "ping"));
  CHECK(ping["result"] == json::object());
  auto list = client.request(req(2, "tools/list"));
  CHECK(list["error"]["code"] == -32600);
  CHECK(list["error"]["message"].get<std::string>().find("initialize") != std::string::npos);
  auto tool = client.request(call("3", "echo", {{"text", "x"}}));
  CHECK(tool["error"]["code"] == -32600);
}

TEST_CASE("malformed messages get the JSON-RPC error the spec names") {
  TestHost host;
  mcp::Server server(*host.executor, {});
  Client client(server);
  client.initialize();
  const size_t base = client.wait_count(1).size();

  client.send(std::string_view("{\"jsonrpc\":\"2.0\",\"id\":1,"));
  client.send(std::string_view("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\xff\"}"));
  client.send(std::string_view("42"));
  client.send(std::string_view(R"({"jsonrpc":"1.0","id":3,"method":"ping"})"));
  client.send(std::string_view(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})"));
  client.send(std::string_view(R"({"jsonrpc":"2.0","id":4,"method":"no/such"})"));
  client.send(std::string_view(R"({"jsonrpc":"2.0","id":5,"method":"tools/list","params":[1]})"));
  auto all = client.wait_count(base + 7);
  CHECK(all[base + 0]["error"]["code"] == -32700);
  CHECK(all[base + 0]["id"].is_null());
  CHECK(all[base + 1]["error"]["code"] == -32700);  // invalid UTF-8
  CHECK(all[base + 2]["error"]["code"] == -32600);
  CHECK(all[base + 3]["error"]["code"] == -32600);
  CHECK(all[base + 3]["id"] == 3);
  CHECK(all[base + 4]["error"]["code"] == -32600);
  CHECK(all[base + 4]["id"].is_null());
  CHECK(all[base + 5]["error"]["code"] == -32601);
  CHECK(all[base + 5]["id"] == 4);
  CHECK(all[base + 6]["error"]["code"] == -32602);

  SECTION("a response from the client is ignored") {
    client.send(std::string_view(R"({"jsonrpc":"2.0","id":77,"result":{}})"));
    auto pong = client.request(req(6, "ping"));
    CHECK(pong["result"] == json::object());
    CHECK(client.received().size() == base + 8);
  }
  SECTION("a notification with an id is acted on and reported") {
    client.send(
        std::string_view(R"({"jsonrpc":"2.0","id":8,"method":"notifications/initialized"})"));
    auto answer = client.wait_for_id(8);
    CHECK(answer["error"]["code"] == -32600);
  }
}

TEST_CASE("batches: refused on 2025-06-18 and later, served on 2025-03-26") {
  TestHost host;
  mcp::Server server(*host.executor, {});
  const std::string batch =
      R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},)"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}])";
  SECTION("2025-11-25") {
    Client client(server);
    client.initialize("2025-11-25");
    client.send(std::string_view(batch));
    auto all = client.wait_count(2);
    CHECK(all[1]["error"]["code"] == -32600);
  }
  SECTION("2025-03-26") {
    Client client(server);
    client.initialize("2025-03-26");
    client.send(std::string_view(batch));
    auto all = client.wait_count(2);
    REQUIRE(all[1].is_array());
    REQUIRE(all[1].size() == 2);
    std::set<int> ids;
    for (const auto& m : all[1]) ids.insert(m["id"].get<int>());
    CHECK(ids == std::set<int>{1, 2});
    client.send(std::string_view("[]"));
    auto more = client.wait_count(3);
    CHECK(more[2]["error"]["code"] == -32600);
  }
}

TEST_CASE("tools/call maps outcomes to results and errors") {
  TestHost host;
  mcp::Server server(*host.executor, {});
  Client client(server);
  client.initialize();

  SECTION("success: structuredContent plus the same JSON as text") {
    auto r = client.request(call("a", "echo", {{"text", "héllo"}}));
    REQUIRE(r.contains("result"));
    CHECK(r["result"]["isError"] == false);
    CHECK(r["result"]["structuredContent"] == json{{"text", "héllo"}});
    CHECK(json::parse(text_content(r["result"])) == r["result"]["structuredContent"]);
  }
  SECTION("input that fails its schema is a tool error naming the field") {
    auto r = client.request(call("b", "echo", {{"text", 5}}));
    CHECK(r["result"]["isError"] == true);
    const std::string text = text_content(r["result"]);
    CHECK(text.find("/text") != std::string::npos);
    CHECK(text.find("inputSchema") != std::string::npos);
    CHECK_FALSE(r["result"].contains("structuredContent"));
  }
  SECTION("a failing skill is a tool error with its message") {
    auto r = client.request(call("c", "fail", {{"text", "x"}}));
    CHECK(r["result"]["isError"] == true);
    CHECK(text_content(r["result"]).find("git commit") != std::string::npos);
    CHECK(text_content(r["result"]).find("FAILED_PRECONDITION") != std::string::npos);
  }
  SECTION("a missed deadline is a tool error") {
    auto r = client.request(call("d", "sleepy", {{"text", "x"}}));
    CHECK(r["result"]["isError"] == true);
    CHECK(text_content(r["result"]).find("deadline") != std::string::npos);
  }
  SECTION("output that breaks the output schema is a tool error") {
    auto r = client.request(call("e", "bad-output", {{"text", "x"}}));
    CHECK(r["result"]["isError"] == true);
  }
  SECTION("an unknown tool is invalid params with a suggestion") {
    auto r = client.request(call("f", "ecko", {{"text", "x"}}));
    CHECK(r["error"]["code"] == -32602);
    CHECK(r["error"]["message"].get<std::string>().find("'echo'") != std::string::npos);
  }
  SECTION("arguments must be an object; a missing name is invalid params") {
    auto r = client.request(call("g", "echo", json::array()));
    CHECK(r["error"]["code"] == -32602);
    auto r2 = client.request(req("h", "tools/call", {{"arguments", json::object()}}));
    CHECK(r2["error"]["code"] == -32602);
  }
}

TEST_CASE("tools/call answers the same read from the text as through the DOM") {
  // A plain request takes the text path (no DOM of the message); an escaped key ("n\u0061me"
  // is "name") sends the same request the general way. Both answers must match, id aside.
  TestHost host;
  mcp::Server server(*host.executor, {});
  Client client(server);
  client.initialize();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"echo", R"({"text":"h\u00e9llo \"quoted\" \\ \t"})"},
      {"echo", R"({"text":5})"},
      {"echo", R"({"text":"x","extra":true})"},
      {"echo", R"({})"},
      {"fail", R"({"text":"x"})"},
      {"bad-output", R"({"text":"x"})"},
      {"ecko", R"({"text":"x"})"},
  };
  int n = 0;
  for (const auto& [tool, arguments] : cases) {
    const std::string fast_id = "fast-" + std::to_string(n);
    const std::string slow_id = "slow-" + std::to_string(n++);
    client.send(R"({"jsonrpc":"2.0","id":")" + fast_id +
                R"(","method":"tools/call","params":{"name":")" + tool + R"(","arguments":)" +
                arguments + "}}");
    client.send(R"({"jsonrpc":"2.0","id":")" + slow_id +
                R"(","method":"tools/call","params":{"n\u0061me":")" + tool + R"(","arguments":)" +
                arguments + "}}");
    json fast = client.wait_for_id(fast_id);
    json slow = client.wait_for_id(slow_id);
    INFO(tool << " " << arguments);
    fast.erase("id");
    slow.erase("id");
    CHECK(fast == slow);
  }
  // Arguments absent or null are an empty object both ways; _meta is read both ways.
  client.send(R"({"jsonrpc":"2.0","id":"m1","method":"tools/call","params":{"name":"echo"}})");
  client.send(R"({"jsonrpc":"2.0","id":"m2","method":"tools/call","params":)"
              R"({"name":"echo","arguments":null,"_meta":{"skillrt/timeoutMs":0}}})");
  client.send(R"({"jsonrpc":"2.0","id":"m3","method":"tools/call","params":)"
              R"({"n\u0061me":"echo","arguments":null,"_meta":{"skillrt/timeoutMs":0}}})");
  const json m1 = client.wait_for_id("m1");
  CHECK(m1["result"]["isError"] == true);
  CHECK(text_content(m1["result"]).find("text") != std::string::npos);
  json m2 = client.wait_for_id("m2");
  json m3 = client.wait_for_id("m3");
  CHECK(m2["error"]["code"] == -32602);
  m2.erase("id");
  m3.erase("id");
  CHECK(m2 == m3);
}

TEST_CASE("a result written over several lines is answered on one line, unchanged in value") {
  TestHost host(0, {make_skill("pretty", pretty_invoke)});
  mcp::Server server(*host.executor, {});
  Client client(server);
  client.initialize();
  std::mutex mutex;
  std::condition_variable done;
  std::string raw;
  server.handle(client.session(), call("p", "pretty", {{"text", "x"}}).dump(),
                [&](std::string message, bool last) {
                  if (!last) return;
                  std::lock_guard lock(mutex);
                  raw = std::move(message);
                  done.notify_all();
                });
  std::unique_lock lock(mutex);
  REQUIRE(done.wait_for(lock, std::chrono::seconds(10), [&] { return !raw.empty(); }));
  CHECK(raw.find_first_of("\r\n") == std::string::npos);
  const json r = json::parse(raw);
  CHECK(r["result"]["structuredContent"] == json{{"text", "two\nlines"}});
  CHECK(json::parse(text_content(r["result"])) == r["result"]["structuredContent"]);
}

TEST_CASE("_meta skillrt/timeoutMs sets one call's deadline") {
  TestHost host;
  mcp::Server server(*host.executor, {});
  Client client(server);
  client.initialize();

  SECTION("a short deadline stops a skill that has none of its own") {
    const auto started = std::chrono::steady_clock::now();
    auto r = client.request(call("a", "slow", {{"text", "x"}}, {{"skillrt/timeoutMs", 100}}));
    const auto took = std::chrono::steady_clock::now() - started;
    REQUIRE(r.contains("result"));
    CHECK(r["result"]["isError"] == true);
    CHECK(text_content(r["result"]).find("deadline") != std::string::npos);
    // slow runs for 20 s unless stopped; the 100 ms deadline plus grace ends it long before.
    CHECK(took < std::chrono::seconds(10));
  }
  SECTION("a longer deadline overrides the skill's own 50 ms") {
    // sleepy stops as soon as its deadline cancels it: after about 50 ms by its own default,
    // not before 400 ms when the call asks for that.
    const auto started = std::chrono::steady_clock::now();
    auto r = client.request(call("b", "sleepy", {{"text", "y"}}, {{"skillrt/timeoutMs", 400}}));
    const auto took = std::chrono::steady_clock::now() - started;
    CHECK(r["result"]["isError"] == true);
    CHECK(text_content(r["result"]).find("deadline") != std::string::npos);
    CHECK(took >= std::chrono::milliseconds(400));
  }
  SECTION("a value that is not a whole number of milliseconds is invalid params") {
    for (const json& bad : {json(0), json(-5), json(1.5), json("100"), json(100000000000LL)}) {
      auto r = client.request(call("c", "echo", {{"text", "z"}}, {{"skillrt/timeoutMs", bad}}));
      INFO(bad.dump());
      REQUIRE(r.contains("error"));
      CHECK(r["error"]["code"] == -32602);
      CHECK(r["error"]["message"].get<std::string>().find("skillrt/timeoutMs") !=
            std::string::npos);
    }
  }
}

TEST_CASE("tools/list pages with opaque cursors") {
  TestHost host(6);  // 9 own skills + 6 = 15 tools
  mcp::ServerOptions options;
  options.page_size = 4;
  mcp::Server server(*host.executor, options);
  Client client(server);
  client.initialize();
  std::vector<std::string> names;
  json cursor;
  for (int page = 0; page < 10; ++page) {
    json params = json::object();
    if (!cursor.is_null()) params["cursor"] = cursor;
    auto r = client.request(req(100 + page, "tools/list", params));
    REQUIRE(r.contains("result"));
    CHECK(r["result"]["tools"].size() <= 4);
    for (const auto& t : r["result"]["tools"]) names.push_back(t["name"]);
    if (!r["result"].contains("nextCursor")) break;
    cursor = r["result"]["nextCursor"];
  }
  CHECK(names.size() == 15);
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == 15);
  auto bad = client.request(req(200, "tools/list", {{"cursor", "not-a-cursor"}}));
  CHECK(bad["error"]["code"] == -32602);
}

TEST_CASE("a progressToken turns progress reports into notifications/progress") {
  TestHost host;
  mcp::Server server(*host.executor, {});
  Client client(server);
  client.initialize();
  const size_t base = client.received().size();
  auto r = client.request(call("p", "progress", {{"text", "x"}}, {{"progressToken", "tok-1"}}));
  CHECK(r["result"]["isError"] == false);
  auto all = client.received();
  std::vector<json> progress(all.begin() + base, all.end() - 1);
  REQUIRE(progress.size() == 3);
  double last = -1;
  for (const auto& n : progress) {
    CHECK(n["method"] == "notifications/progress");
    CHECK(n["params"]["progressToken"] == "tok-1");
    CHECK(n["params"]["total"] == 3);
    CHECK(n["params"]["progress"].get<double>() > last);
    last = n["params"]["progress"];
    CHECK_FALSE(n.contains("id"));
  }
  CHECK(all.back()["id"] == "p");  // the response comes after every notification

  SECTION("without a token there are no notifications") {
    const size_t before = client.received().size();
    client.request(call("q", "progress", {{"text", "x"}}));
    CHECK(client.received().size() == before + 1);
  }
}

TEST_CASE("notifications/cancelled stops the call and suppresses its response") {
  TestHost host;
  mcp::Server server(*host.executor, {});
  Client client(server);
  client.initialize();
  client.post(call("slow-1", "slow", {{"text", "x"}}));
  // Calls run concurrently: a fast call is answered while the slow one runs.
  auto echo = client.request(call("fast", "echo", {{"text", "x"}}));
  CHECK(echo["result"]["isError"] == false);
  client.post(json{{"jsonrpc", "2.0"},
                   {"method", "notifications/cancelled"},
                   {"params", {{"requestId", "slow-1"}, {"reason", "user pressed Esc"}}}});
  server.wait_idle(client.session());
  auto pong = client.request(req("after", "ping"));
  CHECK(pong["result"] == json::object());
  for (const auto& m : client.received()) CHECK(m.value("id", json()) != "slow-1");
  // Cancelling something unknown or finished is ignored.
  client.post(json{{"jsonrpc", "2.0"},
                   {"method", "notifications/cancelled"},
                   {"params", {{"requestId", "nope"}}}});
  CHECK(client.request(req("after2", "ping"))["result"] == json::object());
}

TEST_CASE("logging/setLevel filters notifications/message") {
  TestHost host;
  mcp::Server server(*host.executor, {});
  Client client(server);
  client.initialize();
  auto bad = client.request(req(1, "logging/setLevel", {{"level", "loud"}}));
  CHECK(bad["error"]["code"] == -32602);
  auto ok = client.request(req(2, "logging/setLevel", {{"level", "warning"}}));
  CHECK(ok["result"] == json::object());
  const size_t before = client.received().size();
  server.broadcast_log("info", "tests", "dropped");
  server.broadcast_log("error", "tests", "kept");
  auto all = client.wait_count(before + 1);
  REQUIRE(all.size() == before + 1);
  CHECK(all.back()["method"] == "notifications/message");
  CHECK(all.back()["params"]["level"] == "error");
  CHECK(all.back()["params"]["logger"] == "tests");
  CHECK(all.back()["params"]["data"] == "kept");
}

TEST_CASE("resources: SKILL.md, templates, and report files written during the session") {
  TestHost host;
  const auto skills = temp_dir("skills");
  std::filesystem::create_directories(skills / "echo" / "prompts");
  std::ofstream(skills / "echo" / "SKILL.md") << "---\nname: echo\n---\n# echo\n";
  std::ofstream(skills / "echo" / "prompts" / "review.md")
      << "# Review a file with echo\nEcho {{file}} back, then check {{aspect}}.\n";
  mcp::ServerOptions options;
  options.skills_dir = skills;
  mcp::Server server(*host.executor, options);
  Client client(server);
  client.initialize();

  auto list = client.request(req(1, "resources/list"));
  REQUIRE(list["result"]["resources"].size() == 1);
  CHECK(list["result"]["resources"][0]["uri"] == "skill://echo/SKILL.md");
  auto read = client.request(req(2, "resources/read", {{"uri", "skill://echo/SKILL.md"}}));
  CHECK(read["result"]["contents"][0]["text"] == "---\nname: echo\n---\n# echo\n");
  CHECK(read["result"]["contents"][0]["mimeType"] == "text/markdown");
  auto missing = client.request(req(3, "resources/read", {{"uri", "skill://nope/SKILL.md"}}));
  CHECK(missing["error"]["code"] == -32002);
  auto outside = client.request(req(4, "resources/read", {{"uri", "file:///etc/passwd"}}));
  CHECK(outside["error"]["code"] == -32002);
  auto templates = client.request(req(5, "resources/templates/list"));
  CHECK(templates["result"]["resourceTemplates"][0]["uriTemplate"] == "skill://{name}/SKILL.md");

  const auto out = temp_dir("report");
  auto r = client.request(call("r", "report", {{"text", out.string()}}));
  REQUIRE(r["result"]["isError"] == false);
  const std::string uri = "file://" + (out / "report.md").string();
  auto list2 = client.request(req(6, "resources/list"));
  bool listed = false;
  for (const auto& res : list2["result"]["resources"]) listed |= res["uri"] == uri;
  CHECK(listed);
  auto report = client.request(req(7, "resources/read", {{"uri", uri}}));
  CHECK(report["result"]["contents"][0]["text"] == "# Report\n\nAll good.\n");
  bool changed = false;
  for (const auto& m : client.received()) {
    changed |= m.value("method", "") == "notifications/resources/list_changed";
  }
  CHECK(changed);
  auto sub = client.request(req(8, "resources/subscribe", {{"uri", uri}}));
  CHECK(sub["result"] == json::object());
  // A long result (over 256 bytes) naming a report deep down is found as well.
  const auto deep = out / std::string(120, 'd') / std::string(120, 'e');
  std::filesystem::create_directories(deep);
  auto long_result = client.request(call("r2", "report", {{"text", deep.string()}}));
  REQUIRE(long_result["result"]["isError"] == false);
  REQUIRE(long_result["result"]["content"][0]["text"].get<std::string>().size() > 256);
  const std::string deep_uri = "file://" + (deep / "report.md").string();
  bool deep_listed = false;
  const auto list3 = client.request(req(13, "resources/list"));
  for (const auto& res : list3["result"]["resources"]) deep_listed |= res["uri"] == deep_uri;
  CHECK(deep_listed);

  SECTION("workflow prompts declared by the skill") {
    auto prompts = client.request(req(9, "prompts/list"));
    REQUIRE(prompts["result"]["prompts"].size() == 1);
    const auto& p = prompts["result"]["prompts"][0];
    CHECK(p["name"] == "echo-review");
    CHECK(p["arguments"].size() == 2);
    auto got = client.request(
        req(10, "prompts/get",
            {{"name", "echo-review"}, {"arguments", {{"file", "a.py"}, {"aspect", "style"}}}}));
    const std::string text = got["result"]["messages"][0]["content"]["text"];
    CHECK(text.find("Echo a.py back, then check style.") != std::string::npos);
    auto missing_arg = client.request(req(11, "prompts/get", {{"name", "echo-review"}}));
    CHECK(missing_arg["error"]["code"] == -32602);
    auto completion =
        client.request(req(12, "completion/complete",
                           {{"ref", {{"type", "ref/resource"}, {"uri", "skill://{name}/SKILL.md"}}},
                            {"argument", {{"name", "name"}, {"value", "ec"}}}}));
    CHECK(completion["result"]["completion"]["values"] == json::array({"echo"}));
  }
  std::filesystem::remove_all(skills);
  std::filesystem::remove_all(out);
}

TEST_CASE("skills extension: skills/list and skills/get serve each SKILL.md and its files") {
  TestHost host;
  const auto skills = temp_dir("skills-ext");
  std::filesystem::create_directories(skills / "echo" / "examples");
  std::ofstream(skills / "echo" / "SKILL.md")
      << "---\nname: echo\ndescription: Echoes text back; a test skill.\nmetadata:\n"
         "  plugin: tests\n  keywords: [echo, repeat]\n  input_example: '{\"text\":\"hi\"}'\n"
         "---\n\n# echo\n\nSay it again.\n";
  std::ofstream(skills / "echo" / "examples" / "call.json") << "{\"text\": \"hi\"}\n";
  mcp::ServerOptions options;
  options.skills_dir = skills;
  mcp::Server server(*host.executor, options);
  Client client(server);
  const json init = client.initialize();
  CHECK(init["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/skills"] ==
        json::object());

  const json list = client.request(req(1, "skills/list"));
  REQUIRE(list["result"]["skills"].size() == 1);
  const json entry = list["result"]["skills"][0];
  CHECK(entry["uri"] == "skill://echo/SKILL.md");
  CHECK(entry["frontmatter"]["name"] == "echo");
  CHECK(entry["frontmatter"]["description"] == "Echoes text back; a test skill.");
  REQUIRE(entry["resources"].size() == 2);
  CHECK(entry["resources"][1]["uri"] == "skill://echo/examples/call.json");

  // Every listed file reads back with the digest and size the entry gives.
  int id = 100;
  for (const auto& file : entry["resources"]) {
    const json read = client.request(req(++id, "resources/read", {{"uri", file["uri"]}}));
    const std::string text = read["result"]["contents"][0]["text"];
    CHECK(file["size"] == text.size());
    CHECK(file["digest"] == mcp::detail::sha256_digest(text));
  }
  // The served SKILL.md is the exported one, and its front matter is the entry's.
  const json skill_md = client.request(req(3, "resources/read", {{"uri", entry["uri"]}}));
  const std::string text = skill_md["result"]["contents"][0]["text"];
  CHECK(text.find("## How to call this skill") != std::string::npos);
  CHECK(text.find("Say it again.") != std::string::npos);
  const auto parsed = mcp::detail::front_matter_json(text, "served");
  REQUIRE(parsed.has_value());
  CHECK(*parsed == entry["frontmatter"]);

  const json got = client.request(req(4, "skills/get", {{"uri", "skill://echo/SKILL.md"}}));
  CHECK(got["result"]["skill"] == entry);
  CHECK_FALSE(got["result"].contains("nextCursor"));
  const json unknown = client.request(req(5, "skills/get", {{"uri", "skill://nope/SKILL.md"}}));
  CHECK(unknown["error"]["code"] == -32602);
  const json no_uri = client.request(req(6, "skills/get"));
  CHECK(no_uri["error"]["code"] == -32602);
  // The SKILL.md resource is named and described from its front matter.
  const json resources = client.request(req(7, "resources/list"));
  CHECK(resources["result"]["resources"][0]["name"] == "echo");
  CHECK(resources["result"]["resources"][0]["description"] == "Echoes text back; a test skill.");
  std::filesystem::remove_all(skills);
}

TEST_CASE("2026-07-28: stateless requests carry their revision in _meta, no initialize") {
  TestHost host;
  mcp::ServerOptions options;
  options.fixtures_file =
      std::string(SKILLRT_SOURCE_DIR) + "/plugins/mcp-fixtures/conformance.json";
  mcp::Server server(*host.executor, options);
  Client client(server);  // never initialized
  const json meta = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                     {"io.modelcontextprotocol/clientCapabilities", json::object()}};

  const json discover = client.request(req(1, "server/discover", {{"_meta", meta}}));
  CHECK(discover["result"]["supportedVersions"][0] == "2026-07-28");
  CHECK(discover["result"]["resultType"] == "complete");
  CHECK(discover["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "skillrt");
  CHECK_FALSE(discover["result"]["capabilities"].contains("logging"));

  CHECK(client.request(req(2, "server/discover"))["error"]["code"] == -32602);
  const json no_caps = client.request(req(
      3, "tools/list", {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}}));
  CHECK(no_caps["error"]["code"] == -32602);
  json old_meta = meta;
  old_meta["io.modelcontextprotocol/protocolVersion"] = "2024-01-01";
  const json unsupported = client.request(req(4, "tools/list", {{"_meta", old_meta}}));
  CHECK(unsupported["error"]["code"] == -32022);
  CHECK(unsupported["error"]["data"]["requested"] == "2024-01-01");
  CHECK(unsupported["error"]["data"]["supported"] == json::array({"2026-07-28"}));
  for (const char* removed : {"initialize", "ping", "logging/setLevel", "resources/subscribe"}) {
    CHECK(client.request(req(5, removed, {{"_meta", meta}}))["error"]["code"] == -32601);
  }

  const json list = client.request(req(6, "tools/list", {{"_meta", meta}}));
  CHECK(list["result"]["resultType"] == "complete");
  CHECK(list["result"]["ttlMs"] == 0);
  CHECK(list["result"]["cacheScope"] == "private");
  const json called = client.request(
      req(7, "tools/call",
          {{"name", "test_simple_text"}, {"arguments", json::object()}, {"_meta", meta}}));
  CHECK(called["result"]["resultType"] == "complete");
  CHECK_FALSE(called["result"].contains("ttlMs"));
  // A tool that needs a capability the request does not declare.
  const json refused = client.request(
      req(8, "tools/call",
          {{"name", "test_missing_capability"}, {"arguments", json::object()}, {"_meta", meta}}));
  CHECK(refused["error"]["code"] == -32021);
  CHECK(refused["error"]["data"]["requiredCapabilities"] == json{{"sampling", json::object()}});
  json sampling = meta;
  sampling["io.modelcontextprotocol/clientCapabilities"] = {{"sampling", json::object()}};
  const json allowed = client.request(req(
      9, "tools/call",
      {{"name", "test_missing_capability"}, {"arguments", json::object()}, {"_meta", sampling}}));
  REQUIRE(allowed.contains("result"));
  CHECK(allowed["result"].value("isError", false) == false);
  // SEP-2164: an unknown resource is Invalid params in this revision.
  const json missing = client.request(
      req(10, "resources/read", {{"uri", "test://no-such-resource"}, {"_meta", meta}}));
  CHECK(missing["error"]["code"] == -32602);
  // No log notification without _meta logLevel.
  client.request(
      req(11, "tools/call",
          {{"name", "test_logging_tool"}, {"arguments", json::object()}, {"_meta", meta}}));
  for (const auto& m : client.received()) CHECK(m.value("method", "") != "notifications/message");
}

TEST_CASE("2026-07-28 over HTTP: headers must agree with the body") {
  TestHost host;
  mcp::Server server(*host.executor, mcp::ServerOptions{});
  auto session = server.open_session([](std::string) {});
  const std::string body = json{
      {"jsonrpc", "2.0"},
      {"id", 1},
      {"method", "tools/list"},
      {"params",
       {{"_meta",
         {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
          {"io.modelcontextprotocol/clientCapabilities",
           json::object()}}}}}}.dump();
  auto answer = [&](const mcp::Server::HttpHeaders& headers) {
    std::string out;
    server.handle_http(session, body, headers, [&](std::string&& m, bool last) {
      if (last) out = m;
    });
    server.wait_idle(session);
    return json::parse(out);
  };
  CHECK(answer({"2026-07-28", "tools/list", ""})["result"].contains("tools"));
  CHECK(answer({"", "", ""})["error"]["code"] == -32020);            // header missing
  CHECK(answer({"2025-11-25", "", ""})["error"]["code"] == -32020);  // header differs
  CHECK(answer({"2026-07-28", "tools/call", ""})["error"]["code"] == -32020);
  CHECK(answer({"2026-07-28", "tools/list", "x"})["error"]["code"] == -32020);
}

TEST_CASE("skill packages: digests and front matter types") {
  CHECK(mcp::detail::sha256_digest("abc") ==
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const auto fm = mcp::detail::front_matter_json(
      "---\nname: x\nn: 3\nf: 1.5\nb: true\nq: '3'\nz: ~\nlist: [a, 2]\n---\nbody\n", "t");
  REQUIRE(fm.has_value());
  CHECK((*fm)["n"] == 3);
  CHECK((*fm)["f"] == 1.5);
  CHECK((*fm)["b"] == true);
  CHECK((*fm)["q"] == "3");
  CHECK((*fm)["z"].is_null());
  CHECK((*fm)["list"] == json::array({"a", 2}));
  CHECK_FALSE(mcp::detail::front_matter_json("no front matter", "t").has_value());
  CHECK_FALSE(mcp::detail::front_matter_json("---\n- a\n---\n", "t").has_value());
  CHECK_FALSE(mcp::detail::front_matter_json("---\nname: [unclosed\n---\n", "t").has_value());
}

TEST_CASE("conformance fixtures are served from the fixtures file") {
  TestHost host;
  mcp::ServerOptions options;
  options.fixtures_file =
      std::string(SKILLRT_SOURCE_DIR) + "/plugins/mcp-fixtures/conformance.json";
  mcp::Server server(*host.executor, options);
  Client client(server);
  client.initialize();
  auto text = client.request(call("1", "test_simple_text", json::object()));
  CHECK(text["result"]["content"][0]["type"] == "text");
  const size_t before = client.received().size();
  auto progress =
      client.request(call("2", "test_tool_with_progress", json::object(), {{"progressToken", 7}}));
  CHECK(client.received().size() == before + 4);
  auto tmpl = client.request(req(3, "resources/read", {{"uri", "test://template/123/data"}}));
  CHECK(tmpl["result"]["contents"][0]["text"].get<std::string>().find("123") != std::string::npos);
  auto binary = client.request(req(4, "resources/read", {{"uri", "test://static-binary"}}));
  CHECK(binary["result"]["contents"][0]["blob"].is_string());
  auto prompt = client.request(req(
      5, "prompts/get",
      {{"name", "test_prompt_with_arguments"}, {"arguments", {{"arg1", "A1"}, {"arg2", "B2"}}}}));
  CHECK(prompt["result"]["messages"].dump().find("A1") != std::string::npos);
  auto list = client.request(req(6, "tools/list"));
  bool found = false;
  for (const auto& t : list["result"]["tools"]) {
    if (t["name"] == "json_schema_2020_12_tool") {
      found = true;
      CHECK(t["inputSchema"]["$schema"] == "https://json-schema.org/draft/2020-12/schema");
    }
  }
  CHECK(found);
}
