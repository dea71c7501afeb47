#include "mcp/tool_definition.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "schema/compiled_schema.hpp"

namespace skillrt::mcp {
namespace {

using nlohmann::json;

std::shared_ptr<const schema::CompiledSchema> compiled(const json& source) {
  auto s = schema::CompiledSchema::compile(source);
  REQUIRE(s.has_value());
  return *s;
}

bool valid(const json& schema, const json& value) {
  auto s = schema::CompiledSchema::compile(schema);
  REQUIRE(s.has_value());
  return (*s)->validate(value).empty();
}

const json kDiagnoseLike = json::parse(R"({
  "type": "object",
  "description": "Root text that the tool description already carries.",
  "properties": {
    "log": {"type": "string", "description": "Log file to read. Longer explanation that stays in the full schema."},
    "traceback": {"type": "string", "description": "Traceback text."},
    "rules": {"type": "string", "x-skillrt-advanced": true, "description": "Rule file."},
    "mode": {"enum": ["fast", "full"], "default": "fast", "description": "How deep, e.g. full. Second sentence."},
    "nested": {"type": "object", "description": "Options.", "properties": {"a": {"type": "integer"}},
               "required": ["a"], "additionalProperties": false},
    "either": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
  },
  "additionalProperties": false,
  "anyOf": [{"required": ["log"]}, {"required": ["traceback"]}],
  "examples": [{"log": "run.log"}, {"traceback": "x"}]
})");

TEST_CASE("a root anyOf of required fields becomes a sentence and leaves the published schema") {
  const PublishedSchema p = publish_schema(kDiagnoseLike, true);
  CHECK_FALSE(p.schema.contains("anyOf"));
  CHECK(p.schema["type"] == "object");
  REQUIRE(p.rules.size() == 1);
  CHECK(p.rules[0] == "Give at least one of: `log`; `traceback`.");
  CHECK(p.warnings.empty());
  CHECK(tool_rule_breaches({{"name", "x"}, {"inputSchema", p.schema}}).empty());
}

TEST_CASE("published properties keep type, enum, default and the first sentence only") {
  const PublishedSchema p = publish_schema(kDiagnoseLike, true);
  const json& props = p.schema["properties"];
  CHECK(props["log"]["description"] == "Log file to read.");
  CHECK(props["mode"]["description"] == "How deep, e.g. full.");  // "e.g." is not an end
  CHECK(props["mode"]["enum"] == json::array({"fast", "full"}));
  CHECK(props["mode"]["type"] == "string");
  CHECK(props["either"]["type"] == json::array({"array", "string"}));
  // Nested objects keep their type only: their own rules stay in the full schema.
  CHECK(props["nested"] == json{{"type", "object"}, {"description", "Options."}});
  CHECK(p.schema["examples"] == json::array({{{"log", "run.log"}}}));
}

TEST_CASE("advanced properties are left out and the object is no longer closed") {
  const PublishedSchema p = publish_schema(kDiagnoseLike, true);
  CHECK_FALSE(p.schema["properties"].contains("rules"));
  CHECK(p.hidden == std::vector<std::string>{"rules"});
  CHECK_FALSE(p.schema.contains("additionalProperties"));
  // What the host accepts, the published form accepts too: it is a relaxation.
  const json call = {{"log", "a.log"}, {"rules", "r.yaml"}, {"nested", {{"a", 1}}}};
  CHECK(valid(kDiagnoseLike, call));
  CHECK(valid(p.schema, call));
}

TEST_CASE("the published form accepts everything the full schema accepts") {
  const json full = json::parse(R"({
    "type": "object",
    "properties": {
      "n": {"type": "integer", "minimum": 1, "maximum": 4},
      "s": {"type": "string", "pattern": "^a", "minLength": 2},
      "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"}},
               "required": ["x"]}, "minItems": 1},
      "ref": {"$ref": "#/definitions/pair"}
    },
    "required": ["n"],
    "additionalProperties": false,
    "definitions": {"pair": {"type": "array", "items": {"type": "integer"}}}
  })");
  const PublishedSchema p = publish_schema(full, true);
  CHECK(p.schema["properties"]["ref"]["type"] == "array");
  CHECK(p.schema["properties"]["list"]["items"] == json{{"type", "object"}});
  CHECK(p.schema["required"] == json::array({"n"}));
  CHECK(p.schema["additionalProperties"] == false);
  for (const json& v : {json{{"n", 1}}, json{{"n", 4}, {"s", "ab"}, {"list", {{{"x", 1.5}}}}},
                        json{{"n", 2}, {"ref", {1, 2}}}}) {
    CHECK(valid(full, v));
    CHECK(valid(p.schema, v));
  }
  // Not a blanket "anything goes": the type and the closed object still hold.
  CHECK_FALSE(valid(p.schema, json{{"n", "one"}}));
  CHECK_FALSE(valid(p.schema, json{{"n", 1}, {"unknown", true}}));
}

TEST_CASE("an output schema that is a union of objects is published as one root object") {
  const json full = json::parse(R"({
    "definitions": {"one": {"type": "object", "properties": {"name": {"type": "string"}},
                            "required": ["name"], "additionalProperties": false}},
    "oneOf": [{"$ref": "#/definitions/one"},
              {"type": "object", "properties": {"ops": {"type": "array"}}, "required": ["ops"]}]
  })");
  const PublishedSchema p = publish_schema(full, false);
  REQUIRE(p.schema.is_object());
  CHECK(p.schema["type"] == "object");
  CHECK(p.schema["properties"].contains("name"));
  CHECK(p.schema["properties"].contains("ops"));
  CHECK_FALSE(p.schema.contains("required"));
  CHECK(valid(p.schema, json{{"name", "add"}}));
  CHECK(valid(p.schema, json{{"ops", json::array()}}));
  // A non-object output cannot be published as structured content at all.
  CHECK(publish_schema(json{{"type", "array"}}, false).schema.is_null());
}

TEST_CASE("a root rule that is not a list of required alternatives is flagged for the author") {
  const json full = json::parse(R"({
    "type": "object",
    "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
    "oneOf": [{"properties": {"a": {"const": "x"}}}, {"required": ["b"]}],
    "not": {"required": ["a", "b"]}
  })");
  const PublishedSchema p = publish_schema(full, true);
  CHECK_FALSE(p.schema.contains("oneOf"));
  CHECK_FALSE(p.schema.contains("not"));
  CHECK(p.warnings.size() == 2);
  CHECK(p.rules.size() == 2);
}

TEST_CASE("tool definitions are cut at sentence boundaries and checked against the budget") {
  Skill skill;
  skill.name = "demo";
  skill.description =
      "Finds things. Second sentence here. A third sentence that is not published because two "
      "are enough for a tool.";
  skill.input_schema = compiled(kDiagnoseLike);
  const ToolDefinition def = tool_definition(skill, true);
  const std::string description = def.tool["description"];
  CHECK(description.starts_with("Finds things. Second sentence here. Give at least one of:"));
  CHECK(description.find("third") == std::string::npos);
  CHECK(description.ends_with("More options: skill://demo/SKILL.md."));
  CHECK(def.warnings.empty());
  CHECK(tool_context_size(def.tool) < kToolContextBudget);

  // One sentence longer than the limit is cut at a word, in Chinese at a character boundary.
  skill.description = std::string(400, 'x') + " end.";
  const std::string long_one = tool_definition(skill, false).tool["description"];
  CHECK(long_one.find("\u2026 Give at least one of") != std::string::npos);
  CHECK(long_one.size() < 400);
  std::string zh;
  for (int i = 0; i < 200; ++i) zh += "\u7cbe";
  skill.description = zh;
  const std::string cut = tool_definition(skill, false).tool["description"];
  CHECK(json(cut).dump().find("\\ufffd") == std::string::npos);
  CHECK(nlohmann::json::parse(json(cut).dump()) == cut);  // still valid UTF-8
}

TEST_CASE("a definition over the budget is reported with what to do") {
  json big = {{"type", "object"}, {"properties", json::object()}};
  for (int i = 0; i < 60; ++i) {
    big["properties"]["option_" + std::to_string(i)] = {
        {"type", "string"}, {"description", "An option that takes some room in the context."}};
  }
  Skill skill;
  skill.name = "big";
  skill.description = "Does much.";
  skill.input_schema = compiled(big);
  const ToolDefinition def = tool_definition(skill, false);
  REQUIRE(def.warnings.size() == 1);
  CHECK(def.warnings[0].find("x-skillrt-advanced") != std::string::npos);
}

}  // namespace
}  // namespace skillrt::mcp
