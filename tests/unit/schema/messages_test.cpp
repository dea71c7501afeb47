// validate(): every violation, at its JSON Pointer, in a sentence an agent can act on.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "schema/compiled_schema.hpp"

using nlohmann::json;
using skillrt::schema::CompiledSchema;
using skillrt::schema::Violation;

namespace {

std::shared_ptr<const CompiledSchema> compile(const char* text) {
  auto compiled = CompiledSchema::compile(json::parse(text));
  INFO((compiled ? std::string() : compiled.error().message));
  REQUIRE(compiled.has_value());
  return *compiled;
}

std::vector<std::string> messages(const char* schema, const char* instance) {
  std::vector<std::string> out;
  for (const auto& v : compile(schema)->validate(json::parse(instance))) out.push_back(v.message);
  return out;
}

using Messages = std::vector<std::string>;

constexpr const char* kPrAnalysis = R"({
  "type": "object",
  "additionalProperties": false,
  "required": ["repo", "since"],
  "properties": {
    "repo": {"type": "string", "minLength": 1},
    "since": {"type": "string", "format": "date"},
    "until": {"type": ["string", "null"], "format": "date"},
    "prs": {"type": "array", "items": {"type": "integer", "minimum": 1}, "uniqueItems": true},
    "options": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "max_prs": {"type": "integer", "minimum": 1, "maximum": 500},
        "state": {"enum": ["open", "merged", "closed"]}
      }
    }
  }
})";

}  // namespace

TEST_CASE("a valid instance has no violations", "[schema][validate]") {
  CHECK(messages(kPrAnalysis, R"({"repo": "r", "since": "2025-01-01", "until": null})").empty());
}

TEST_CASE("every violation is reported at once with its pointer", "[schema][validate]") {
  const auto schema = compile(kPrAnalysis);
  const auto violations = schema->validate(json::parse(R"({
    "repo": "", "since": "2025-02-30", "extra": 1,
    "prs": [3, "4", 3], "options": {"max_prs": 1000, "state": "draft"}
  })"));
  std::vector<std::string> got;
  for (const auto& v : violations) got.push_back(v.pointer + " " + v.keyword);
  CHECK_THAT(got,
             Catch::Matchers::UnorderedEquals(std::vector<std::string>{
                 "/repo minLength", "/since format", "/extra additionalProperties", "/prs/1 type",
                 "/prs uniqueItems", "/options/max_prs maximum", "/options/state enum"}));
  for (const auto& v : violations) {
    CHECK(v.message.starts_with((v.pointer.empty() ? "/" : v.pointer) + ": "));
  }
}

TEST_CASE("messages for each keyword", "[schema][validate]") {
  CHECK(messages(kPrAnalysis,
                 R"({"repo": "r", "since": "2025-01-01", "options": {"max_prs": 1000}})") ==
        Messages{"/options/max_prs: must be <= 500, got 1000"});
  CHECK(messages(kPrAnalysis, R"({"since": "2025-01-01"})") ==
        Messages{"/: missing required property 'repo'"});
  CHECK(messages(kPrAnalysis, R"({"repo": 3, "since": "2025-01-01"})") ==
        Messages{"/repo: must be string, got integer 3"});
  CHECK(messages(kPrAnalysis, R"({"repo": "r", "since": "2025-01-01", "until": 5})") ==
        Messages{"/until: must be string or null, got integer 5"});
  CHECK(messages(kPrAnalysis, R"({"repo": "r", "since": "2025-01-01", "extra": true})") ==
        Messages{"/extra: property is not allowed (additionalProperties is false); allowed "
                 "here: 'options', 'prs', 'repo', 'since', 'until'"});
  CHECK(messages(kPrAnalysis, R"({"repo": "r", "since": "yesterday"})") ==
        Messages{"/since: must be an RFC 3339 date such as \"2025-03-31\", got string "
                 "\"yesterday\""});
  CHECK(
      messages(kPrAnalysis, R"({"repo": "r", "since": "2025-01-01", "options": {"state": "x"}})") ==
      Messages{"/options/state: must be one of [\"open\",\"merged\",\"closed\"], got string "
               "\"x\""});
  CHECK(messages(kPrAnalysis, R"({"repo": "r", "since": "2025-01-01", "prs": [0, 2, 2]})") ==
        Messages{"/prs/0: must be >= 1, got 0",
                 "/prs: items must be unique, but items 1 and 2 are both 2"});
  CHECK(messages(kPrAnalysis, R"({"repo": "", "since": "2025-01-01"})") ==
        Messages{"/repo: must not be empty (at least 1 characters)"});
  CHECK(messages(kPrAnalysis, R"([])") == Messages{"/: must be object, got array of 0 items"});
}

TEST_CASE("string, number and array bounds", "[schema][validate]") {
  CHECK(messages(R"({"maxLength": 3})", R"("abcdé")") ==
        Messages{"/: must be at most 3 characters long, got 5"});
  CHECK(messages(R"({"minLength": 3})", R"("ab")") ==
        Messages{"/: must be at least 3 characters long, got 2"});
  CHECK(messages(R"({"pattern": "^[a-z-]+$"})", R"("Op_Name")") ==
        Messages{"/: must match the pattern \"^[a-z-]+$\", got string \"Op_Name\""});
  CHECK(messages(R"({"exclusiveMinimum": 0})", "0") == Messages{"/: must be > 0, got 0"});
  CHECK(messages(R"({"exclusiveMaximum": 1.5})", "2.5") == Messages{"/: must be < 1.5, got 2.5"});
  CHECK(messages(R"({"multipleOf": 0.01})", "0.015") ==
        Messages{"/: must be a multiple of 0.01, got 0.015"});
  CHECK(messages(R"({"multipleOf": 0.01})", "19.99").empty());
  CHECK(messages(R"({"multipleOf": 4})", "10") == Messages{"/: must be a multiple of 4, got 10"});
  CHECK(messages(R"({"minItems": 2})", "[1]") == Messages{"/: must have at least 2 items, got 1"});
  CHECK(messages(R"({"maxItems": 1})", "[1, 2]") ==
        Messages{"/: must have at most 1 items, got 2"});
  CHECK(messages(R"({"maxProperties": 1})", R"({"a": 1, "b": 2})") ==
        Messages{"/: must have at most 1 properties, got 2"});
  CHECK(messages(R"({"minProperties": 1})", "{}") ==
        Messages{"/: must have at least 1 properties, got 0"});
  CHECK(messages(R"({"type": "integer"})", "2.5") ==
        Messages{"/: must be integer, got number 2.5"});
}

TEST_CASE("const, not, contains, items and dependencies", "[schema][validate]") {
  CHECK(messages(R"({"const": {"mode": "dry-run"}})", R"({"mode": "apply"})") ==
        Messages{"/: must be {\"mode\":\"dry-run\"}, got object with 1 property"});
  CHECK(messages(R"({"not": {"type": "null"}})", "null") ==
        Messages{"/: must not match {\"type\":\"null\"} (not), got null"});
  CHECK(messages(R"({"contains": {"type": "string"}})", "[1, 2]") ==
        Messages{"/: must contain at least one item matching {\"type\":\"string\"}, but none "
                 "of its 2 items does"});
  CHECK(messages(R"({"items": [{"type": "string"}], "additionalItems": false})", R"(["a", 1])") ==
        Messages{"/: must have at most 1 items (additionalItems is false), got 2"});
  CHECK(messages(R"({"items": [{"type": "string"}], "additionalItems": {"type": "integer"}})",
                 R"([1, "b"])") ==
        Messages{"/0: must be string, got integer 1", "/1: must be integer, got string \"b\""});
  CHECK(messages(R"({"dependencies": {"apply": ["workspace"]}})", R"({"apply": true})") ==
        Messages{"/: property 'apply' requires property 'workspace' as well (dependencies); add "
                 "it or remove 'apply'"});
  CHECK(messages(R"({"dependencies": {"apply": {"required": ["root"]}}})", R"({"apply": true})") ==
        Messages{"/: missing required property 'root' (dependencies: required because 'apply' is "
                 "present)"});
  CHECK(messages(R"({"propertyNames": {"pattern": "^[a-z]+$"}})", R"({"ok": 1, "Bad": 2})") ==
        Messages{"/Bad: property name 'Bad' is not allowed: must match the pattern "
                 "\"^[a-z]+$\", got string \"Bad\""});
  CHECK(messages(
            R"({"if": {"properties": {"apply": {"const": true}}}, "then": {"required": ["root"]}})",
            R"({"apply": true})") ==
        Messages{"/: missing required property 'root' (if/then: the value matches the 'if' "
                 "schema)"});
  CHECK(messages(R"({"properties": {"a": false}})", R"({"a": 1})") ==
        Messages{"/a: no value is allowed here (the schema is false), got integer 1"});
}

TEST_CASE("anyOf and oneOf report the alternative that fits the value's type",
          "[schema][validate]") {
  constexpr const char* kPrs = R"({"anyOf": [
      {"type": "integer", "minimum": 1},
      {"type": "string", "pattern": "^#[0-9]+$"}]})";
  CHECK(messages(kPrs, R"("12")") ==
        Messages{"/: must match the pattern \"^#[0-9]+$\", got string \"12\""});
  CHECK(messages(kPrs, "0") == Messages{"/: must be >= 1, got 0"});
  CHECK(messages(kPrs, "true") == Messages{"/: must be integer or string, got boolean true"});

  constexpr const char* kBoth = R"({"oneOf": [{"minimum": 1}, {"maximum": 10}]})";
  CHECK(messages(kBoth, "5") ==
        Messages{"/: must match exactly one alternative (oneOf), but matches alternatives 0 and "
                 "1; change the value so that only one applies"});
  const auto none = messages(R"({"oneOf": [{"minimum": 10}, {"maximum": 1}]})", "5");
  REQUIRE(none.size() == 1);
  CHECK(none[0] ==
        "/: must match exactly one of 2 alternatives (oneOf), but must be >= 10, got "
        "5; or must be <= 1, got 5");
}

TEST_CASE("pointers escape ~ and / in property names", "[schema][validate]") {
  const auto violations =
      compile(R"({"properties": {"a/b": {"properties": {"c~d": {"type": "string"}}}}})")
          ->validate(json::parse(R"({"a/b": {"c~d": 1}})"));
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].pointer == "/a~1b/c~0d");
  CHECK(violations[0].keyword == "type");
  CHECK(violations[0].message == "/a~1b/c~0d: must be string, got integer 1");
}

TEST_CASE("a failure is reported once, not again at every parent", "[schema][validate]") {
  const auto violations =
      compile(R"({"properties": {"a": {"items": {"properties": {"b": {"type": "string"}}}}}})")
          ->validate(json::parse(R"({"a": [{"b": 1}, {"b": "ok"}, {"b": 2}]})"));
  REQUIRE(violations.size() == 2);
  CHECK(violations[0].pointer == "/a/0/b");
  CHECK(violations[1].pointer == "/a/2/b");
}

TEST_CASE("references and allOf are followed without duplicate messages", "[schema][validate]") {
  constexpr const char* kSchema = R"({
    "definitions": {"name": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}},
    "properties": {
      "op": {"$ref": "#/definitions/name"},
      "alias": {"allOf": [{"$ref": "#/definitions/name"}, {"$ref": "#/definitions/name"}]}
    }
  })";
  CHECK(messages(kSchema, R"({"op": "Add", "alias": 3})") ==
        Messages{"/alias: must be string, got integer 3",
                 "/op: must match the pattern \"^[a-z][a-z0-9_]*$\", got string \"Add\""});
}

TEST_CASE("format applies to strings only", "[schema][validate]") {
  constexpr const char* kWhen = R"({"type": ["string", "null", "integer"], "format": "date-time"})";
  CHECK(messages(kWhen, "null").empty());
  CHECK(messages(kWhen, "5").empty());
  CHECK(messages(kWhen, R"("2025-03-31T14:05:00Z")").empty());
  CHECK(messages(kWhen, R"("2025-03-31T14:05:00.123+08:00")").empty());
  CHECK(messages(kWhen, R"("2024-02-29T00:00:00Z")").empty());
  CHECK(messages(kWhen, R"("2023-02-29T00:00:00Z")").size() == 1);
  CHECK(messages(kWhen, R"("2025-03-31 14:05")").size() == 1);
  CHECK(messages(R"({"format": "time"})", R"("25:00:00Z")").size() == 1);
  CHECK(messages(R"({"format": "time"})", R"("23:59:60Z")").empty());
  // Formats the host does not check are annotations.
  CHECK(messages(R"({"format": "email"})", R"("not an email")").empty());
}

TEST_CASE("a plain id is no keyword in draft 7", "[schema][validate]") {
  // Were "id" read as a base URI, the reference below would resolve against example.com.
  CHECK(messages(R"({"id": "http://example.com/x.json", "definitions": {"a": {"type": "integer"}},
                     "$ref": "#/definitions/a"})",
                 R"("s")") == Messages{"/: must be integer, got string \"s\""});
}

TEST_CASE("a value nested too deeply is refused, not followed down the stack",
          "[schema][validate]") {
  const auto schema = compile(R"({"type": "array", "items": {"$ref": "#"}})");
  json deep = json::array();
  for (int i = 0; i < 100000; ++i) deep = json::array({std::move(deep)});
  const auto violations = schema->validate(deep);
  REQUIRE(violations.size() == 1);
  CHECK(violations[0].keyword == "depth");
  CHECK(violations[0].message.find("nests deeper than 256 levels") != std::string::npos);
  CHECK_FALSE(schema->is_valid(deep));
  json shallow = json::array();
  for (int i = 0; i < 100; ++i) shallow = json::array({std::move(shallow)});
  CHECK(schema->validate(shallow).empty());
}
