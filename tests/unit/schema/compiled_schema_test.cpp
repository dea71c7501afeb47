// compile(): the meta-schema check, faults named by JSON Pointer, and what compiles.
#include "schema/compiled_schema.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

using nlohmann::json;
using skillrt::Code;
using skillrt::schema::CompiledSchema;
using skillrt::schema::CompileOptions;

namespace {

std::string compile_error(const json& schema) {
  auto compiled = CompiledSchema::compile(schema);
  REQUIRE_FALSE(compiled.has_value());
  CHECK(compiled.error().code == Code::kInvalidArgument);
  return compiled.error().message;
}

}  // namespace

TEST_CASE("compile accepts a typical skill input schema", "[schema][compile]") {
  const json schema = json::parse(R"({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "demo",
    "type": "object",
    "additionalProperties": false,
    "required": ["repo"],
    "properties": {
      "repo": {"type": "string", "minLength": 1, "description": "path"},
      "since": {"type": "string", "format": "date"},
      "labels": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}
    }
  })");
  auto compiled = CompiledSchema::compile(schema);
  REQUIRE(compiled.has_value());
  CHECK((*compiled)->source() == schema);
  CHECK((*compiled)->validate(json{{"repo", "x"}}).empty());
  CHECK((*compiled)->is_valid(json{{"repo", "x"}}));
  CHECK_FALSE((*compiled)->is_valid(json{{"repo", 3}}));
}

TEST_CASE("compile names the pointer of a misspelt type", "[schema][compile]") {
  const std::string message = compile_error(
      json::parse(R"({"type": "object", "properties": {"name": {"type": "strin"}}})"));
  CHECK(message ==
        "/properties/name/type: must be one of "
        "[\"array\",\"boolean\",\"integer\",\"null\",\"number\",\"object\",\"string\"], "
        "got string \"strin\"");
}

TEST_CASE("compile rejects keywords of the wrong shape", "[schema][compile]") {
  CHECK(compile_error(json::parse(R"({"properties": {"n": {"minLength": -1}}})")) ==
        "/properties/n/minLength: must be >= 0, got -1");
  CHECK(compile_error(json::parse(R"({"required": "name"})")) ==
        "/required: must be array, got string \"name\"");
  CHECK(compile_error(json::parse(R"({"items": [1]})")).starts_with("/items"));
  CHECK(compile_error(json(42)) == "/: must be object or boolean, got integer 42");
}

TEST_CASE("compile reports every meta-schema fault", "[schema][compile]") {
  const std::string message = compile_error(
      json::parse(R"({"properties": {"a": {"type": "strin"}, "b": {"maxItems": "3"}}})"));
  CHECK(message.find("/properties/a/type:") != std::string::npos);
  CHECK(message.find("/properties/b/maxItems: must be integer, got string \"3\"") !=
        std::string::npos);
}

TEST_CASE("compile rejects an invalid regular expression", "[schema][compile]") {
  const std::string message =
      compile_error(json::parse(R"({"properties": {"a": {"pattern": "[a-"}}})"));
  // The meta-schema's "format": "regex" catches it first, with PCRE2's reason and offset.
  CHECK(
      message.starts_with("/properties/a/pattern: must be an ECMA-262 regular expression (at "
                          "offset 3: missing terminating ] for character class)"));
  const std::string in_keys =
      compile_error(json::parse(R"({"patternProperties": {"(": {"type": "string"}}})"));
  INFO(in_keys);
  CHECK(in_keys.find("(") != std::string::npos);
  CHECK(in_keys.find("regular expression") != std::string::npos);
}

// ECMA-262 has had lookbehind, Unicode property escapes and named groups since 2018; patterns
// written for ajv use them. A pattern that is not a regular expression at all is refused with
// where it sits.
TEST_CASE("patterns use ECMA-262's modern syntax; broken ones are refused", "[schema][compile]") {
  const auto schema = [](const char* pattern) {
    return json{{"properties", {{"a", {{"pattern", pattern}}}}}};
  };
  const auto check = [&](const char* pattern, const char* good, const char* bad) {
    INFO(pattern);
    const auto compiled = CompiledSchema::compile(schema(pattern));
    REQUIRE(compiled);
    CHECK((*compiled)->is_valid(json{{"a", good}}));
    CHECK_FALSE((*compiled)->is_valid(json{{"a", bad}}));
  };
  check("(?<=a)b", "ab", "cb");
  check("^\\p{L}+$", "r\u00e9sum\u00e9", "abc1");
  check("^(?<year>\\d{4})-\\k<year>$", "2025-2025", "2025-2026");
  // \d is ASCII only in ECMA-262.
  check("^\\d+$", "123", "\u0661\u0662");
  for (const char* pattern : {"(", "a{2,1}", "[b-a]"}) {
    INFO(pattern);
    const std::string message = compile_error(schema(pattern));
    CHECK(message.starts_with("/properties/a/pattern: "));
    INFO(message);
    CHECK(message.find("regular expression") != std::string::npos);
  }
}

TEST_CASE("compile rejects a reference that points at nothing", "[schema][compile]") {
  const std::string message =
      compile_error(json::parse(R"({"properties": {"a": {"$ref": "#/definitions/missing"}}})"));
  CHECK(message.starts_with(
      "/properties/a/$ref: reference \"#/definitions/missing\" points at nothing"));
}

TEST_CASE("compile rejects a schema that loops without descending into the value",
          "[schema][compile]") {
  // Each of these once crashed the process: valijson's parser or the validator recursed until
  // the stack ran out.
  CHECK(compile_error(json::parse(R"({"$ref": "#"})")) ==
        "/: the schema leads back to itself without looking inside the value (# -> #), so "
        "validation would never end; break the loop");
  CHECK(compile_error(json::parse(R"({"definitions": {"a": {"$ref": "#/definitions/b"},
                                                      "b": {"$ref": "#/definitions/a"}},
                                     "$ref": "#/definitions/a"})"))
            .find("#/definitions/a -> #/definitions/b -> #/definitions/a") != std::string::npos);
  CHECK(
      compile_error(json::parse(R"({"definitions": {"a": {"allOf": [{"$ref": "#/definitions/a"}]}},
                                     "properties": {"x": {"$ref": "#/definitions/a"}}})"))
          .starts_with("/definitions/a: the schema leads back to itself"));
  // Recursion through properties or items descends into the value and is fine.
  auto tree = CompiledSchema::compile(json::parse(R"({
    "type": "object",
    "properties": {"children": {"type": "array", "items": {"$ref": "#"}}, "n": {"type": "integer"}}
  })"));
  REQUIRE(tree.has_value());
  const auto violations =
      (*tree)->validate(json::parse(R"({"children": [{"children": [{"n": "x"}]}]})"));
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].pointer == "/children/0/children/0/n");
}

TEST_CASE("compile refuses remote references unless a fetcher serves them", "[schema][compile]") {
  const json schema = json::parse(R"({"$ref": "http://example.com/other.json#/definitions/a"})");
  const std::string message = compile_error(schema);
  CHECK(message.find("\"http://example.com/other.json\"") != std::string::npos);
  CHECK(message.find("does not fetch") != std::string::npos);

  CompileOptions options;
  std::string asked;
  options.fetch = [&](const std::string& uri) -> std::optional<json> {
    asked = uri;
    return json::parse(R"({"definitions": {"a": {"type": "integer", "enum": [1, 2]}}})");
  };
  auto compiled = CompiledSchema::compile(schema, options);
  REQUIRE(compiled.has_value());
  CHECK(asked == "http://example.com/other.json");
  CHECK((*compiled)->validate(json(1)).empty());
  const auto violations = (*compiled)->validate(json(3));
  REQUIRE(violations.size() == 1);
  // The fetched document is indexed too, so its enum values can be quoted.
  CHECK(violations[0].message == "/: must be one of [1,2], got integer 3");
}

TEST_CASE("nested $id and relative references resolve per RFC 3986", "[schema][compile]") {
  // valijson alone would look for "http://example.com/rootnode" and fail to compile this.
  auto compiled = CompiledSchema::compile(json::parse(R"({
    "$id": "http://example.com/root",
    "type": "object",
    "properties": {"child": {"$ref": "node"}},
    "definitions": {
      "node": {"$id": "http://example.com/node", "type": "object",
               "properties": {"n": {"$ref": "#/definitions/leaf"}},
               "definitions": {"leaf": {"type": "integer"}}}
    }
  })"));
  REQUIRE(compiled.has_value());
  CHECK((*compiled)->validate(json::parse(R"({"child": {"n": 1}})")).empty());
  const auto violations = (*compiled)->validate(json::parse(R"({"child": {"n": "x"}})"));
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].message == "/child/n: must be integer, got string \"x\"");
}

TEST_CASE("the draft-07 meta-schema is built in and referenceable", "[schema][compile]") {
  CHECK(skillrt::schema::draft07_meta_schema().at("$id") ==
        "http://json-schema.org/draft-07/schema#");
  auto compiled =
      CompiledSchema::compile(json{{"$ref", "http://json-schema.org/draft-07/schema#"}});
  REQUIRE(compiled.has_value());
  CHECK((*compiled)->validate(json{{"type", "string"}}).empty());
  CHECK_FALSE((*compiled)->validate(json{{"type", "strin"}}).empty());
}

TEST_CASE("every schema under schemas/ compiles", "[schema][compile]") {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(SKILLRT_SOURCE_DIR) / "schemas";
  int count = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    const json schema = json::parse(in);
    auto compiled = CompiledSchema::compile(schema);
    INFO(entry.path().string() << ": " << (compiled ? "" : compiled.error().message));
    CHECK(compiled.has_value());
    ++count;
  }
  CHECK(count >= 1);
}

TEST_CASE("a deferred schema is compiled on first use and reports its faults there",
          "[schema][compile]") {
  const auto good = CompiledSchema::defer(json::parse(
      R"({"type": "object", "required": ["op"],
          "properties": {"op": {"type": "string", "pattern": "^[a-z_]+$"}}})"));
  CHECK(good->source().at("required") == json::array({"op"}));
  CHECK(good->validate(json{{"op", "add"}}).empty());
  CHECK_FALSE(good->is_valid(json{{"op", "Add"}}));
  const auto violations = good->validate(json::object());
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].keyword == "required");

  // The same fault compile() reports at once comes back from every validation instead.
  const json broken = json::parse(R"({"properties": {"n": {"type": "integr"}}})");
  const std::string at_compile = compile_error(broken);
  const auto deferred = CompiledSchema::defer(broken);
  CHECK_FALSE(deferred->is_valid(json{{"n", 1}}));
  const auto reported = deferred->validate(json{{"n", 1}});
  REQUIRE(reported.size() == 1);
  CHECK(reported[0].message.find(at_compile) != std::string::npos);
  CHECK(reported[0].message.find("cannot be used") != std::string::npos);
}
