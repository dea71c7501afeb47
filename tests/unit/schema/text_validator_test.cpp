// check_text(): the verdict on JSON text must equal the DOM path's, parse then is_valid(), on
// every text: the whole draft-7 test suite, the host's own schemas with mutants, and random
// texts against random schemas.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/json_scan.hpp"
#include "schema/compiled_schema.hpp"
#include "support/schema_suite.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using skillrt::schema::CompiledSchema;
using skillrt::schema::CompileOptions;
using skillrt::schema::TextVerdict;
using skillrt::testing::kSchemaSuite;
using skillrt::testing::read_json_file;
using skillrt::testing::serve_suite_remote;
using skillrt::testing::suite_files;

namespace {

const fs::path kSource = SKILLRT_SOURCE_DIR;

const char* name_of(TextVerdict verdict) {
  switch (verdict) {
    case TextVerdict::kValid:
      return "valid";
    case TextVerdict::kInvalid:
      return "invalid";
    case TextVerdict::kMalformed:
      return "malformed";
    case TextVerdict::kUnsupported:
      return "unsupported";
  }
  return "?";
}

// What the DOM path decides: the reference check_text() is held to.
TextVerdict dom_verdict(const CompiledSchema& schema, std::string_view text) {
  json value;
  try {
    value = json::parse(text);
  } catch (const std::exception&) {
    return TextVerdict::kMalformed;
  }
  return schema.is_valid(value) ? TextVerdict::kValid : TextVerdict::kInvalid;
}

// Tallies agreement; keeps the first disagreements for the report.
struct Tally {
  std::size_t compared = 0;
  std::size_t unsupported = 0;
  std::size_t valid = 0;
  std::size_t invalid = 0;
  std::size_t malformed = 0;
  std::size_t trusted_compared = 0;  // also checked with check_well_formed_text()
  std::vector<std::string> disagreements;

  void compare(const CompiledSchema& schema, std::string_view text, const std::string& where) {
    ++compared;
    const TextVerdict expected = dom_verdict(schema, text);
    const TextVerdict got = schema.check_text(text);
    // Well-formed text starting at its first byte must get the same verdict without the
    // well-formedness pass (the MCP server's arguments, scanned out of a checked message).
    if (expected != TextVerdict::kMalformed && skillrt::json_scan::well_formed_root(text) == 0) {
      ++trusted_compared;
      const TextVerdict trusted = schema.check_well_formed_text(text);
      if (trusted != got && disagreements.size() < 20) {
        disagreements.push_back(where + "\n    text " + std::string(text) + "\n    check_text " +
                                name_of(got) + ", check_well_formed_text " + name_of(trusted));
      }
    }
    if (expected == TextVerdict::kValid) ++valid;
    if (expected == TextVerdict::kInvalid) ++invalid;
    if (expected == TextVerdict::kMalformed) ++malformed;
    if (got == TextVerdict::kUnsupported && expected != TextVerdict::kMalformed) {
      ++unsupported;
      return;
    }
    if (got == expected) return;
    if (disagreements.size() < 20) {
      disagreements.push_back(
          where + "\n    schema " + schema.source().dump() + "\n    text " +
          json(std::string(text)).dump(-1, ' ', true, json::error_handler_t::replace) +
          "\n    DOM " + name_of(expected) + ", text " + name_of(got));
    }
  }

  std::string report() const {
    std::string out;
    for (const auto& d : disagreements) out += d + "\n";
    return out;
  }
};

std::shared_ptr<const CompiledSchema> compile(const json& schema) {
  auto compiled = CompiledSchema::compile(schema);
  REQUIRE(compiled.has_value());
  return *compiled;
}

}  // namespace

TEST_CASE("check_text decides the fixture echo input", "[schema][text]") {
  const auto schema = compile(json::parse(R"({
    "type": "object",
    "properties": {"text": {"type": "string", "maxLength": 5}},
    "required": ["text"],
    "additionalProperties": false
  })"));
  CHECK(schema->check_text(R"({"text":"hello"})") == TextVerdict::kValid);
  // maxLength counts code points after unescaping: "h\u00e9llo" is five.
  CHECK(schema->check_text(" \t\r\n{ \"text\" : \"h\\u00e9llo\" }\n") == TextVerdict::kValid);
  CHECK(schema->check_text(R"({"text":"h\u00e9llo!"})") == TextVerdict::kInvalid);
  CHECK(schema->check_text("{\"text\":\"h\xC3\xA9llo\"}") == TextVerdict::kValid);
  CHECK(schema->check_text("{\"text\":\"h\xC3llo\"}") == TextVerdict::kMalformed);
  CHECK(schema->check_text(R"({"text":"hello","x":1})") == TextVerdict::kInvalid);
  CHECK(schema->check_text(R"({"text":1})") == TextVerdict::kInvalid);
  CHECK(schema->check_text(R"({})") == TextVerdict::kInvalid);
  CHECK(schema->check_text(R"([])") == TextVerdict::kInvalid);
  CHECK(schema->check_text(R"({"text":"hello"} x)") == TextVerdict::kMalformed);
  CHECK(schema->check_text(R"({"text":"hello")") == TextVerdict::kMalformed);
  CHECK(schema->check_text("") == TextVerdict::kMalformed);
  CHECK(schema->check_text("\xEF\xBB\xBF{\"text\":\"a\"}") == TextVerdict::kValid);
  CHECK(schema->check_text("\xEF\xBB{\"text\":\"a\"}") == TextVerdict::kMalformed);
  // nlohmann keeps the last of repeated keys.
  CHECK(schema->check_text(R"({"text":1,"text":"a"})") == TextVerdict::kValid);
  CHECK(schema->check_text(R"({"text":"a","text":1})") == TextVerdict::kInvalid);
  CHECK(schema->check_text(R"({"te\u0078t":"a","text":1})") == TextVerdict::kInvalid);
}

TEST_CASE("check_text classifies numbers as nlohmann and the walker do", "[schema][text]") {
  const auto integer = compile(json::parse(R"({"type": "integer"})"));
  CHECK(integer->check_text("1") == TextVerdict::kValid);
  CHECK(integer->check_text("-0") == TextVerdict::kValid);
  CHECK(integer->check_text("1.0") == TextVerdict::kValid);
  CHECK(integer->check_text("1e2") == TextVerdict::kValid);
  CHECK(integer->check_text("18446744073709551616") == TextVerdict::kValid);
  CHECK(integer->check_text("1.5") == TextVerdict::kInvalid);
  CHECK(integer->check_text("1e400") == TextVerdict::kMalformed);
  CHECK(integer->check_text("-1e400") == TextVerdict::kMalformed);
  CHECK(integer->check_text("1e-400") == TextVerdict::kValid);
  CHECK(integer->check_text("01") == TextVerdict::kMalformed);
  CHECK(integer->check_text("1.") == TextVerdict::kMalformed);
  // nlohmann ends the input at a NUL byte outside a string.
  CHECK(integer->check_text(std::string_view("7\0x", 3)) == TextVerdict::kValid);
  CHECK(integer->check_text(std::string_view("\"\0\"", 3)) == TextVerdict::kMalformed);
  // nlohmann compares a signed and an unsigned integer through a cast.
  const auto constant = compile(json::parse(R"({"const": 18446744073709551615})"));
  CHECK(constant->check_text("-1") ==
        (constant->is_valid(json::parse("-1")) ? TextVerdict::kValid : TextVerdict::kInvalid));
  CHECK(constant->check_text("1.8446744073709552e19") == TextVerdict::kValid);
  const auto one = compile(json::parse(R"({"enum": [1, "a", null]})"));
  CHECK(one->check_text("1.0") == TextVerdict::kValid);
  CHECK(one->check_text("true") == TextVerdict::kInvalid);
  CHECK(one->check_text("\"\\u0061\"") == TextVerdict::kValid);
}

// The string scan steps 16 bytes, then 8, then one at a time: a byte that ends or spoils a
// string must be found at every offset, in strings ending anywhere relative to those steps.
TEST_CASE("well_formed_string finds a special byte at every offset", "[schema][text]") {
  const std::vector<std::string> specials = {"\"",
                                             "\\n",
                                             "\\",
                                             "\x01",
                                             "\x1f",
                                             "\x7f",
                                             "\xc3\xa9",
                                             "\xff",
                                             "\x80",
                                             "\xe2\x82\xac",
                                             std::string(1, '\0')};
  std::size_t compared = 0;
  for (std::size_t length = 0; length <= 40; ++length) {
    for (std::size_t at = 0; at <= length; ++at) {
      for (const auto& special : specials) {
        std::string content(length, 'a');
        content.insert(at, special);
        for (const std::string& tail : {std::string(), std::string(",1]"), std::string(20, ' ')}) {
          const std::string text = "\"" + content + "\"" + tail;
          bool escaped = false;
          const std::size_t end = skillrt::json_scan::well_formed_string(text, 0, escaped);
          // nlohmann decides whether the text up to the closing quote it found is one string.
          const std::size_t close = end == skillrt::json_scan::kNoPosition ? 0 : end;
          INFO("length " << length << " at " << at << " special byte "
                         << static_cast<int>(static_cast<unsigned char>(special[0])) << " tail "
                         << tail.size());
          if (end == skillrt::json_scan::kNoPosition) {
            CHECK_FALSE(json::accept(std::string_view(text).substr(0, content.size() + 2)));
          } else {
            REQUIRE(close <= text.size());
            CHECK(json::accept(std::string_view(text).substr(0, close)));
            CHECK(escaped == (text.substr(0, close).find('\\') != std::string::npos));
          }
          ++compared;
        }
      }
    }
  }
  CHECK(compared == 3 * 11 * (41 * 42 / 2));
}

TEST_CASE("check_text compares objects and arrays as the walker does", "[schema][text]") {
  const auto unique = compile(json::parse(R"({"uniqueItems": true})"));
  CHECK(unique->check_text("[1, 1.0]") == TextVerdict::kInvalid);
  CHECK(unique->check_text("[\"a\", \"\\u0061\"]") == TextVerdict::kInvalid);
  CHECK(unique->check_text("[1, \"1\", true, null]") == TextVerdict::kValid);
  CHECK(unique->check_text("[{}, {}]") == TextVerdict::kInvalid);
  CHECK(unique->check_text("[{}, []]") == TextVerdict::kValid);
  CHECK(unique->check_text(R"([{"a": 1, "b": [2]}, {"b": [2.0], "a": 1}])") ==
        TextVerdict::kInvalid);
  CHECK(unique->check_text(R"([{"a": 1, "a": 2}, {"a": 2}])") == TextVerdict::kInvalid);
  CHECK(unique->check_text(R"([{"a": 1, "a": 2}, {"a": 1}])") == TextVerdict::kValid);
  CHECK(unique->check_text(R"([[1, 2], [1, 2, 3]])") == TextVerdict::kValid);
  const auto constant = compile(json::parse(R"({"const": {"a": [1, {"b": null}]}})"));
  CHECK(constant->check_text(R"({"a": [1.0, {"b": null}]})") == TextVerdict::kValid);
  CHECK(constant->check_text(R"({"a": [1, {"b": null}], "c": 1})") == TextVerdict::kInvalid);
  CHECK(constant->check_text(R"({"a": [1, {"b": null}], "a": 2})") == TextVerdict::kInvalid);
  CHECK(constant->check_text(R"({"a": 2, "a": [1, {"b": null}]})") == TextVerdict::kValid);
  CHECK(constant->check_text(R"({"a": [1, {"b": null}, 3]})") == TextVerdict::kInvalid);
  CHECK(constant->check_text("[1]") == TextVerdict::kInvalid);
  CHECK(constant->check_text("{\"a\": 1") == TextVerdict::kMalformed);
}

TEST_CASE("check_text agrees with the DOM on deep nesting", "[schema][text]") {
  // 64 levels fit the scanner's word of open containers, 256 the walker's depth bound.
  const std::vector<std::shared_ptr<const CompiledSchema>> schemas = {
      compile(json::parse(R"({"items": {"$ref": "#"}, "properties": {"a": {"$ref": "#"}}})")),
      compile(json::parse(R"({"type": ["array", "object"]})")),
  };
  Tally tally;
  for (const std::size_t n : {1, 63, 64, 65, 127, 128, 129, 255, 256, 257, 300}) {
    std::string arrays = std::string(n, '[') + std::string(n, ']');
    std::string mixed;
    std::string closers;
    for (std::size_t i = 0; i < n; ++i) {
      mixed += i % 3 == 0 ? "{\"a\":" : "[";
      closers.insert(closers.begin(), i % 3 == 0 ? '}' : ']');
    }
    const std::string valid_mixed = mixed + "1" + closers;
    std::vector<std::string> texts = {arrays, valid_mixed, arrays.substr(1), arrays + "]"};
    // One closer of the wrong kind, at the innermost, the 64th and the outermost level.
    for (const std::size_t level : {std::size_t{0}, std::size_t{63}, n - 1}) {
      if (level >= n) continue;
      std::string wrong = closers;
      wrong[level] = wrong[level] == '}' ? ']' : '}';
      texts.push_back(mixed + "1" + wrong);
    }
    for (const auto& schema : schemas) {
      for (const auto& text : texts) tally.compare(*schema, text, "depth " + std::to_string(n));
    }
  }
  INFO(tally.report());
  CHECK(tally.disagreements.empty());
  CHECK(tally.trusted_compared > 0);
  CHECK(tally.unsupported == 0);
  CHECK(tally.valid > 0);
  CHECK(tally.invalid > 0);
  CHECK(tally.malformed > 0);
}

TEST_CASE("check_text compiles its program once under concurrent first use", "[schema][text]") {
  const auto schema = CompiledSchema::defer(json::parse(R"({
    "type": "object",
    "properties": {"n": {"type": "integer", "maximum": 10}, "s": {"type": "string"}},
    "required": ["n"]
  })"));
  const std::vector<std::pair<std::string, TextVerdict>> cases = {
      {R"({"n": 3, "s": "x"})", TextVerdict::kValid},
      {R"({"n": 11})", TextVerdict::kInvalid},
      {R"({"s": "x"})", TextVerdict::kInvalid},
      {R"({"n": 3,})", TextVerdict::kMalformed},
  };
  std::vector<int> wrong(8, 0);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < wrong.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const auto& [text, expected] = cases[(t + static_cast<std::size_t>(i)) % cases.size()];
        if (schema->check_text(text) != expected) ++wrong[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const int w : wrong) CHECK(w == 0);
}

TEST_CASE("check_text agrees with the DOM on long numbers and large objects", "[schema][text]") {
  Tally tally;
  const std::vector<std::shared_ptr<const CompiledSchema>> numeric = {
      compile(json::parse(R"({"type": "integer"})")),
      compile(json::parse(R"({"maximum": 1e300, "multipleOf": 2})")),
      compile(json::parse(R"({"enum": [1e308, 100000000000000000000]})")),
  };
  // Around the 300 digits below which the scanner needs no strtod, and past a double's range.
  for (const std::size_t digits : {19, 20, 21, 62, 63, 64, 299, 300, 308, 309, 310, 400}) {
    const std::string ones(digits, '1');
    const std::string zeros(digits, '0');
    for (const std::string& text :
         {ones, "-" + ones, "1" + zeros, ones + ".5", ones + "e-5", ones + "e-400",
          "0." + zeros + "1", "0." + zeros + "1e" + std::to_string(digits + 300),
          "1e" + std::to_string(digits), "-1e-" + std::to_string(digits),
          "1" + zeros + "e-" + std::to_string(digits)}) {
      for (const auto& schema : numeric) tally.compare(*schema, text, "number " + text);
    }
  }
  // Objects past the size where repeated keys are found by sorting instead of pairwise.
  const std::vector<std::shared_ptr<const CompiledSchema>> objects = {
      compile(json::parse(R"({"maxProperties": 50, "properties": {"k7": {"type": "string"}}})")),
      compile(json::parse(R"({"minProperties": 50, "additionalProperties": {"type": "integer"}})")),
  };
  for (const std::size_t n : {40, 48, 49, 50, 51, 60}) {
    std::string plain = "{";
    std::string repeated = "{";
    for (std::size_t i = 0; i < n; ++i) {
      const std::string key = "k" + std::to_string(i % 45);
      const std::string separator = i > 0 ? "," : "";
      plain += separator + "\"k" + std::to_string(i) + "\":" + std::to_string(i);
      // Every 45th key again, once escaped: the last one must win.
      repeated += separator +
                  (i % 2 == 0 ? "\"" + key + "\"" : "\"\\u006b" + key.substr(1) + "\"") + ":" +
                  (i + 1 == n ? std::string("\"last\"") : std::to_string(i));
    }
    for (const auto& schema : objects) {
      tally.compare(*schema, plain + "}", "plain object of " + std::to_string(n));
      tally.compare(*schema, repeated + "}", "repeated keys in " + std::to_string(n));
    }
  }
  INFO(tally.report());
  CHECK(tally.disagreements.empty());
  CHECK(tally.trusted_compared > 0);
  CHECK(tally.unsupported == 0);
  CHECK(tally.malformed > 0);
  CHECK(tally.valid > 0);
  CHECK(tally.invalid > 0);
}

TEST_CASE("check_text on a deferred schema that does not build", "[schema][text]") {
  const auto broken = CompiledSchema::defer(json::parse(R"({"$ref": "#/definitions/none"})"));
  CHECK(broken->check_text("{}") == TextVerdict::kInvalid);
  CHECK(broken->check_text("{") == TextVerdict::kMalformed);
  CHECK_FALSE(broken->is_valid(json::object()));
}

TEST_CASE("check_text agrees with the DOM on the draft-07 test suite", "[schema][text]") {
  const fs::path dir = kSchemaSuite / "tests" / "draft7";
  if (!fs::is_directory(dir)) {
    // Catch2 2 has no skip: say so and pass, as the suite is an optional package.
    WARN("skipped: JSON-Schema-Test-Suite not installed at " + kSchemaSuite.string());
    return;
  }
  const auto files = suite_files(dir, /*recursive=*/true);
  REQUIRE_FALSE(files.empty());

  CompileOptions options;
  options.fetch = serve_suite_remote;
  Tally tally;
  std::size_t instances = 0;
  for (const auto& file : files) {
    for (const json& group : read_json_file(file)) {
      const auto compiled = CompiledSchema::compile(group.at("schema"), options);
      if (!compiled) continue;
      for (const json& test : group.at("tests")) {
        ++instances;
        const std::string where = fs::relative(file, dir).string() +
                                  " :: " + group.at("description").get<std::string>() +
                                  " :: " + test.at("description").get<std::string>();
        const json& data = test.at("data");
        // Compact, indented, and with every non-ASCII character escaped.
        tally.compare(**compiled, data.dump(), where);
        tally.compare(**compiled, data.dump(2), where + " (indented)");
        tally.compare(**compiled, data.dump(-1, ' ', true), where + " (ASCII)");
      }
    }
  }
  std::cout << "check_text vs DOM on draft7 (" << files.size() << " files): " << instances
            << " instances, " << tally.compared << " texts compared, " << tally.unsupported
            << " unsupported (" << tally.valid << " valid, " << tally.invalid << " invalid)\n";
  INFO(tally.report());
  CHECK(tally.disagreements.empty());
  CHECK(tally.trusted_compared > 0);
  CHECK(tally.malformed == 0);
  CHECK(instances > 500);
  // Nothing in the suite needs the DOM.
  CHECK(tally.unsupported == 0);
}

namespace {

// What a mutant puts in place of a value: every type and the edges skill schemas use.
const std::vector<json>& replacements() {
  static const std::vector<json> values = json::parse(R"([
    null, true, 0, -1, 1, 1.5, 100000, 1e300, "", "x", "2024-02-30", "2024-01-02T03:04:05Z",
    [], ["a", "a"], [1, 2], {}, {"a": 1}
  ])")
                                              .get<std::vector<json>>();
  return values;
}

// Neighbours of a value: members removed, replaced or added, items replaced, removed, repeated.
void mutate(const json& value, int depth, std::vector<json>& out) {
  if (value.is_object()) {
    for (const auto& [key, member] : value.items()) {
      json without = value;
      without.erase(key);
      out.push_back(without);
      for (const json& other : replacements()) {
        json replaced = value;
        replaced[key] = other;
        out.push_back(replaced);
      }
      if (depth > 0) {
        std::vector<json> inner;
        mutate(member, depth - 1, inner);
        for (auto& m : inner) {
          json nested = value;
          nested[key] = std::move(m);
          out.push_back(std::move(nested));
        }
      }
    }
    json extra = value;
    extra["zz_extra"] = 1;
    out.push_back(extra);
  } else if (value.is_array() && !value.empty()) {
    for (std::size_t i = 0; i < value.size() && i < 3; ++i) {
      for (const json& other : replacements()) {
        json replaced = value;
        replaced[i] = other;
        out.push_back(replaced);
      }
      if (depth > 0) {
        std::vector<json> inner;
        mutate(value[i], depth - 1, inner);
        for (auto& m : inner) {
          json nested = value;
          nested[i] = std::move(m);
          out.push_back(std::move(nested));
        }
      }
    }
    json shorter = value;
    shorter.erase(shorter.begin());
    out.push_back(shorter);
    json repeated = value;
    repeated.push_back(value[0]);
    out.push_back(repeated);
  } else {
    for (const json& other : replacements()) out.push_back(other);
  }
}

const json* resolve(const json& root, const json& node) {
  if (!node.is_object() || !node.contains("$ref")) return &node;
  const std::string ref = node["$ref"].get<std::string>();
  if (!ref.starts_with("#")) return &node;
  return &root.at(json::json_pointer(ref.substr(1)));
}

// A small instance that aims at validity, for schemas without examples; mutants of it explore
// the rest.
json minimal_instance(const json& root, const json& schema_node, int depth) {
  const json& node = *resolve(root, schema_node);
  if (!node.is_object() || depth > 8) return nullptr;
  if (node.contains("const")) return node["const"];
  if (node.contains("enum") && !node["enum"].empty()) return node["enum"][0];
  for (const char* alternatives : {"anyOf", "oneOf", "allOf"}) {
    if (node.contains(alternatives))
      return minimal_instance(root, node[alternatives][0], depth + 1);
  }
  std::string type = "object";
  if (node.contains("type")) {
    type = node["type"].is_array() ? node["type"][0].get<std::string>()
                                   : node["type"].get<std::string>();
  }
  if (type == "object") {
    json out = json::object();
    for (const json& name : node.value("required", json::array())) {
      const std::string key = name.get<std::string>();
      const json properties = node.value("properties", json::object());
      out[key] = properties.contains(key) ? minimal_instance(root, properties[key], depth + 1)
                                          : json(nullptr);
    }
    return out;
  }
  if (type == "array") {
    json out = json::array();
    const std::size_t n = node.value("minItems", std::size_t{0});
    for (std::size_t i = 0; i < n; ++i) {
      out.push_back(node.contains("items") ? minimal_instance(root, node["items"], depth + 1)
                                           : json(i));
    }
    return out;
  }
  if (type == "string") {
    const std::string format = node.value("format", "");
    if (format == "date") return "2024-01-02";
    if (format == "date-time") return "2024-01-02T03:04:05Z";
    if (format == "time") return "03:04:05Z";
    return std::string(std::max<std::size_t>(node.value("minLength", std::size_t{1}), 1), 'x');
  }
  if (type == "integer" || type == "number") {
    if (node.contains("minimum")) return node["minimum"];
    return 1;
  }
  if (type == "boolean") return false;
  return nullptr;
}

// Texts whose object repeats a key, once before and once after the original member.
std::vector<std::string> with_repeated_keys(const json& value) {
  std::vector<std::string> out;
  if (!value.is_object() || value.empty()) return out;
  const std::string text = value.dump();
  for (const auto& [key, member] : value.items()) {
    for (const json& other : {json(nullptr), json("x"), json(7)}) {
      const std::string repeat = json(key).dump() + ":" + other.dump();
      out.push_back("{" + repeat + "," + text.substr(1));
      out.push_back(text.substr(0, text.size() - 1) + "," + repeat + "}");
    }
  }
  return out;
}

}  // namespace

TEST_CASE("check_text agrees with the DOM on the host's schemas and their mutants",
          "[schema][text]") {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kSource / "schemas" / "skills")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  for (const auto& entry : fs::directory_iterator(kSource / "bench" / "schema" / "cases")) {
    if (entry.path().string().ends_with(".input.json")) files.push_back(entry.path());
  }
  files.push_back(kSource / "schemas" / "skillrt" / "config.schema.json");
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() > 10);

  Tally tally;
  std::size_t examples = 0;
  for (const auto& file : files) {
    const json schema = read_json_file(file);
    const auto compiled = compile(schema);
    std::vector<json> instances;
    for (const json& example : schema.value("examples", json::array())) {
      instances.push_back(example);
      ++examples;
      // An example is valid and must be decided on the text path.
      CHECK(compiled->check_text(example.dump()) == TextVerdict::kValid);
    }
    std::string name = file.filename().string();
    name.resize(name.size() - std::string(".input.json").size());
    const fs::path bench_instances = file.parent_path() / (name + ".instances.json");
    if (fs::exists(bench_instances)) {
      const json sets = read_json_file(bench_instances);
      for (const char* set : {"valid", "invalid"}) {
        for (const json& i : sets.value(set, json::array())) instances.push_back(i);
      }
    }
    instances.push_back(minimal_instance(schema, schema, 0));
    const std::string where = file.filename().string();
    for (const json& instance : instances) {
      tally.compare(*compiled, instance.dump(), where);
      tally.compare(*compiled, instance.dump(1, '\t', true), where);
      std::vector<json> mutants;
      mutate(instance, 2, mutants);
      for (const json& m : mutants) tally.compare(*compiled, m.dump(), where + " (mutant)");
      for (const auto& text : with_repeated_keys(instance)) {
        tally.compare(*compiled, text, where + " (repeated key)");
      }
    }
  }
  std::cout << "check_text vs DOM on " << files.size() << " host schemas: " << examples
            << " examples, " << tally.compared << " texts compared, " << tally.unsupported
            << " unsupported (" << tally.valid << " valid, " << tally.invalid << " invalid)\n";
  INFO(tally.report());
  CHECK(tally.disagreements.empty());
  CHECK(tally.trusted_compared > 0);
  CHECK(examples > 30);
  CHECK(tally.valid > 100);
  CHECK(tally.invalid > 1000);
}

namespace {

// Random JSON texts, mostly well-formed, with the corners where a text reader and nlohmann can
// part ways: escapes, surrogates, bad UTF-8, control characters, number edges, whitespace,
// repeated keys, truncation and trailing bytes.
class TextGenerator {
 public:
  explicit TextGenerator(std::mt19937& rng) : rng_(rng) {}

  std::string text() {
    std::string out = value(0);
    switch (pick(14)) {
      case 0:
        out.resize(static_cast<std::size_t>(pick(static_cast<int>(out.size()) + 1)));
        break;
      case 1:
        out += one_of({"x", "}", "]", ",", " 1", "\"", "\f", "\v", "\xEF\xBB\xBF", "//"});
        break;
      case 2:
        out = one_of({"\xEF\xBB\xBF", "\xEF\xBB", "\xEF", " \xEF\xBB\xBF"}) + out;
        break;
      case 3:
        if (!out.empty()) {
          out[static_cast<std::size_t>(pick(static_cast<int>(out.size())))] = static_cast<char>(
              one_of({"\x00", "\x80", "\xFF", "\"", "\\", "{", "]", ",", "0", " ", "e", "-"})[0]);
        }
        break;
      default:
        break;
    }
    return space() + out + space();
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::string one_of(std::initializer_list<const char*> options) {
    auto it = options.begin();
    std::advance(it, pick(static_cast<int>(options.size())));
    // Pieces may hold NUL bytes: keep the first one when it is the whole piece.
    return **it == '\0' ? std::string(1, '\0') : std::string(*it);
  }

  std::string space() {
    switch (pick(8)) {
      case 0:
        return " ";
      case 1:
        return "\n\t";
      case 2:
        return "\r\n  ";
      default:
        return "";
    }
  }

  std::string string_token() {
    std::string out = "\"";
    const int pieces = pick(4);
    for (int i = 0; i < pieces; ++i) {
      if (pick(12) == 0) {
        out += one_of({"\\ud800", "\\udc00", "\\ud800\\u0041", "\\x", "\\u12g4", "\xFF", "\xC0\x80",
                       "\xED\xA0\x80", "\xE2\x82", "\x01", "\t", "\xF4\x90\x80\x80", "\\U0041",
                       "\x7F"});
      } else {
        out += one_of({"a",
                       "b",
                       "text",
                       "\xC3\xA9",
                       "\\u00e9",
                       "\\n",
                       "\\\"",
                       "\\\\",
                       "\\/",
                       "\\ud83d\\ude00",
                       "\xF0\x9F\x98\x80",
                       "2024-01-02",
                       "2024-01-02T03:04:05Z",
                       "03:04:05Z",
                       "x y",
                       "\\u0000",
                       "\\u0061",
                       "1",
                       "aaaaaaaaaa",
                       "\\b\\f\\r\\t",
                       "\xE2\x82\xAC",
                       "\\uFFFF"});
      }
    }
    return out + "\"";
  }

  std::string number_token() {
    if (pick(10) == 0) return one_of({"01", "1.", ".5", "-", "+1", "1e", "1e+", "--1", "0x1"});
    return one_of({"0",
                   "-0",
                   "1",
                   "-1",
                   "2",
                   "3",
                   "7",
                   "10",
                   "100",
                   "1.0",
                   "-0.0",
                   "1e2",
                   "1E+2",
                   "2.5",
                   "-2.5e-3",
                   "0.1",
                   "1e-400",
                   "1e400",
                   "-1e400",
                   "1e308",
                   "2e308",
                   "18446744073709551615",
                   "18446744073709551616",
                   "-9223372036854775808",
                   "-9223372036854775809",
                   "9223372036854775807",
                   "4.0000000000000001",
                   "123456789012345678901234567890",
                   "0.30000000000000004",
                   "5e-324"});
  }

  std::string key() {
    if (pick(10) == 0) return string_token();
    return one_of({"\"a\"", "\"b\"", "\"c\"", "\"text\"", "\"\"", "\"\\u0061\"", "\"x\""});
  }

  std::string value(int depth) {
    const int kind = depth > 4 ? 2 + pick(4) : pick(8);
    switch (kind) {
      case 0:
      case 6: {
        std::string out = "{" + space();
        const int n = pick(4);
        for (int i = 0; i < n; ++i) {
          if (i > 0) out += "," + space();
          out += key() + space() + ":" + space() + value(depth + 1) + space();
        }
        return out + "}";
      }
      case 1:
      case 7: {
        std::string out = "[" + space();
        const int n = pick(4);
        for (int i = 0; i < n; ++i) {
          if (i > 0) out += "," + space();
          out += value(depth + 1) + space();
        }
        return out + "]";
      }
      case 2:
        return string_token();
      case 3:
        return number_token();
      case 4:
        return one_of({"true", "false", "null", "tru", "nul", "True"});
      default:
        return pick(2) == 0 ? number_token() : string_token();
    }
  }

  std::mt19937& rng_;
};

// Random schemas over the keywords check_text decides.
class SchemaGenerator {
 public:
  explicit SchemaGenerator(std::mt19937& rng) : rng_(rng) {}

  json root() {
    json out = schema(0);
    if (!out.is_object()) return out;
    if (pick(4) == 0) {
      out["definitions"] = {{"d", schema(1)}};
      out["properties"]["b"] = {{"$ref", "#/definitions/d"}};
    }
    if (pick(6) == 0) out["items"] = {{"$ref", "#"}};
    return out;
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  json scalar() {
    static const json kValues =
        json::parse(R"([null, true, false, 0, 1, -1, 1.0, 2.5, 18446744073709551615, "a", "",
                        "\u00e9", "2024-01-02", [1], {"a": 1}])");
    return kValues[static_cast<std::size_t>(pick(static_cast<int>(kValues.size())))];
  }

  json type_name() {
    static const char* kTypes[] = {"null",   "boolean", "object", "array",
                                   "string", "number",  "integer"};
    return kTypes[pick(7)];
  }

  json schema(int depth) {
    if (pick(12) == 0) return pick(2) == 0;
    json out = json::object();
    const int keywords = 1 + pick(3);
    for (int i = 0; i < keywords; ++i) add_keyword(out, depth);
    return out;
  }

  void add_keyword(json& out, int depth) {
    const bool leaf = depth >= 3;
    switch (pick(leaf ? 12 : 22)) {
      case 0:
        out["type"] = pick(3) == 0 ? json::array({type_name(), type_name()}) : type_name();
        break;
      case 1:
        out["enum"] = json::array({scalar(), scalar(), scalar()});
        break;
      case 2:
        out["const"] = scalar();
        break;
      case 3:
        out[pick(2) == 0 ? "minimum" : "exclusiveMinimum"] = pick(5) - 2;
        break;
      case 4:
        out[pick(2) == 0 ? "maximum" : "exclusiveMaximum"] =
            pick(2) == 0 ? json(pick(10)) : json(2.5);
        break;
      case 5:
        out[pick(2) == 0 ? "minLength" : "maxLength"] = pick(4);
        break;
      case 6:
        out["pattern"] = json::array({"^a", "b$", "[0-9]", "^.{2,3}$", "\u00e9", "^$",
                                      "x*"})[static_cast<std::size_t>(pick(7))];
        break;
      case 7:
        out["format"] =
            json::array({"date", "date-time", "time", "email"})[static_cast<std::size_t>(pick(4))];
        break;
      case 8:
        out[pick(2) == 0 ? "minItems" : "maxItems"] = pick(3);
        break;
      case 9:
        out[pick(2) == 0 ? "minProperties" : "maxProperties"] = pick(3);
        break;
      case 10:
        out["uniqueItems"] = pick(4) != 0;
        break;
      case 11:
        out["multipleOf"] = pick(2) == 0 ? json(2) : json(0.5);
        break;
      case 12:
        out["properties"] = {{"a", schema(depth + 1)}, {"text", schema(depth + 1)}};
        break;
      case 13:
        out["required"] = pick(2) == 0 ? json::array({"a"}) : json::array({"a", "b"});
        break;
      case 14:
        out["additionalProperties"] = pick(2) == 0 ? json(pick(2) == 0) : schema(depth + 1);
        break;
      case 15:
        if (pick(2) == 0) {
          out["items"] = schema(depth + 1);
        } else {
          out["items"] = json::array({schema(depth + 1), schema(depth + 1)});
          if (pick(2) == 0) out["additionalItems"] = pick(2) == 0 ? json(false) : schema(depth + 1);
        }
        break;
      case 16:
      case 17: {
        static const char* kLists[] = {"anyOf", "oneOf", "allOf"};
        out[kLists[pick(3)]] = json::array({schema(depth + 1), schema(depth + 1)});
        break;
      }
      case 18:
        out["not"] = schema(depth + 1);
        break;
      case 19:
        out["patternProperties"] = {{"^[ab]", schema(depth + 1)}};
        break;
      case 20:
        out["if"] = schema(depth + 1);
        out["then"] = schema(depth + 1);
        if (pick(2) == 0) out["else"] = schema(depth + 1);
        break;
      default:
        switch (pick(3)) {
          case 0:
            out["contains"] = schema(depth + 1);
            break;
          case 1:
            out["propertyNames"] = schema(depth + 1);
            break;
          default:
            out["dependencies"] = {{"a", json::array({"b"})}, {"text", schema(depth + 1)}};
            break;
        }
        break;
    }
  }

  std::mt19937& rng_;
};

}  // namespace

TEST_CASE("check_text agrees with the DOM on random texts and schemas", "[schema][text]") {
  std::mt19937 rng(20261201);
  TextGenerator texts(rng);
  SchemaGenerator schemas(rng);
  Tally tally;
  std::size_t compiled_schemas = 0;
  while (compiled_schemas < 1500) {
    const json schema = schemas.root();
    const auto compiled = CompiledSchema::compile(schema);
    if (!compiled) continue;
    ++compiled_schemas;
    for (int i = 0; i < 12; ++i) tally.compare(**compiled, texts.text(), "random");
  }
  std::cout << "check_text vs DOM on random input: " << compiled_schemas << " schemas, "
            << tally.compared << " texts (" << tally.malformed << " malformed, " << tally.valid
            << " valid, " << tally.invalid << " invalid), " << tally.unsupported
            << " unsupported\n";
  INFO(tally.report());
  CHECK(tally.disagreements.empty());
  CHECK(tally.trusted_compared > 0);
  // The generator must keep reaching every outcome, or the comparison proves little.
  CHECK(tally.malformed > tally.compared / 10);
  CHECK(tally.valid > tally.compared / 10);
  CHECK(tally.invalid > tally.compared / 10);
  CHECK(tally.unsupported == 0);
}

// Objects of named scalars (the usual tool input) take a one-walk path of their own; it must
// decide as the DOM does on repeated keys, escaped keys that decode to declared names, unknown
// keys with and without additionalProperties, missing required members and every scalar rule.
TEST_CASE("check_text decides flat objects as the DOM does", "[schema][text]") {
  const std::vector<std::string> schemas = {
      R"({"type":"object","properties":{"a":{"type":"string","minLength":1,"maxLength":3},
          "b":{"type":"integer","minimum":0,"exclusiveMaximum":10},"c":{"type":["number","null"]},
          "d":{}},"required":["a","b"],"additionalProperties":false})",
      R"({"properties":{"a":{"type":"string","maxLength":2},"b":{"exclusiveMinimum":1,
          "maximum":9.5}},"required":["b"]})",
      R"({"type":["object","array"],"properties":{"a":{"type":"boolean"},"b":{"type":"null"}},
          "additionalProperties":{}})",
      R"({"type":"string","properties":{"a":{"type":"string"}}})",
      R"({"type":"object","properties":{}, "required":[], "additionalProperties":false})",
  };
  const std::vector<std::string> keys = {"a", "b", "c", "d", "e", "\\u0061", "b\\u0062", ""};
  const std::vector<std::string> values = {
      R"("")", R"("x")",     R"("xyz")", R"("wxyz")", R"("h\u00e9l")", "\"\xC3\xA9\xC3\xA9\"",
      "0",     "-1",         "9",        "10",        "9.5",           "1.0",
      "1e1",   "-0",         "true",     "false",     "null",          "[]",
      "{}",    R"({"a":1})", "[1,2]"};
  std::mt19937 random(20261201);
  Tally tally;
  for (const auto& source : schemas) {
    const auto schema = compile(json::parse(source));
    for (int n = 0; n < 4000; ++n) {
      const int members = static_cast<int>(random() % 5);
      std::string text = n % 7 == 0 ? " { " : "{";
      for (int m = 0; m < members; ++m) {
        if (m > 0) text += n % 5 == 0 ? " , " : ",";
        text += "\"" + keys[random() % keys.size()] + "\"" + (n % 3 == 0 ? " : " : ":");
        text += values[random() % values.size()];
      }
      text += n % 7 == 0 ? " } " : "}";
      tally.compare(*schema, text, "flat " + source);
      // Broken the ways a walk that also checks the text could miss.
      if (n % 10 == 0) {
        tally.compare(*schema, text.substr(0, text.size() - 1), "flat cut " + source);
        tally.compare(*schema, text + "x", "flat trailing " + source);
        tally.compare(*schema, text + std::string(1, '\0') + "x", "flat NUL " + source);
        tally.compare(*schema, "\xEF\xBB\xBF" + text, "flat BOM " + source);
        std::string broken = text;
        for (const char c : {':', ',', '"', '}'}) {
          broken = text;
          if (const auto at = broken.rfind(c); at != std::string::npos) {
            broken[at] = c == '"' ? '\x01' : ' ';
            tally.compare(*schema, broken, "flat broken " + source);
          }
        }
        broken = text;
        if (const auto at = broken.find("x\""); at != std::string::npos) {
          broken[at] = '\xC3';
          tally.compare(*schema, broken, "flat UTF-8 " + source);
        }
      }
    }
  }
  INFO(tally.report());
  CHECK(tally.disagreements.empty());
  CHECK(tally.unsupported == 0);
  CHECK(tally.valid > 1000);
  CHECK(tally.invalid > 1000);
  CHECK(tally.malformed > 1000);
}

// The verdicts themselves, against the suite's expected ones: the required tests and the optional
// ECMA-262 regex file (patterns are compiled by PCRE2 to ECMA-262 semantics). Formats the host does
// not check and arbitrary-precision numbers (optional) are left out.
TEST_CASE("validate() gives the draft-07 suite's verdicts, ECMA-262 regexes included",
          "[schema][suite]") {
  const fs::path dir = kSchemaSuite / "tests" / "draft7";
  if (!fs::is_directory(dir)) {
    WARN("skipped: JSON-Schema-Test-Suite not installed at " + kSchemaSuite.string());
    return;
  }
  std::vector<fs::path> files = suite_files(dir, /*recursive=*/false);
  files.push_back(dir / "optional" / "ecmascript-regex.json");
  CompileOptions options;
  options.fetch = serve_suite_remote;
  std::size_t checked = 0;
  std::vector<std::string> wrong;
  for (const auto& file : files) {
    for (const json& group : read_json_file(file)) {
      const auto compiled = CompiledSchema::compile(group.at("schema"), options);
      const std::string where_group =
          fs::relative(file, dir).string() + " :: " + group.at("description").get<std::string>();
      if (!compiled) {
        wrong.push_back(where_group + ": does not compile: " + compiled.error().message);
        continue;
      }
      for (const json& test : group.at("tests")) {
        ++checked;
        const bool expected = test.at("valid").get<bool>();
        if ((*compiled)->is_valid(test.at("data")) == expected) continue;
        wrong.push_back(where_group + " :: " + test.at("description").get<std::string>() +
                        (expected ? ": rejected, should pass" : ": passed, should fail"));
      }
    }
  }
  std::string report;
  for (const auto& w : wrong) report += w + "\n";
  std::cout << "draft-07 suite verdicts: " << checked << " instances, " << wrong.size()
            << " wrong\n"
            << report;
  INFO(report);
  CHECK(checked > 400);
  CHECK(wrong.empty());
}
