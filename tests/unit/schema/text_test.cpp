// The text helpers behind violation messages.
#include "schema/detail/text.hpp"

#include <catch2/catch.hpp>

#include "schema/detail/rules.hpp"
#include "schema/detail/uri.hpp"

using nlohmann::json;
using namespace skillrt::schema::detail;

TEST_CASE("JSON Pointer tokens are escaped per RFC 6901", "[schema][text]") {
  CHECK(escape_pointer_token("a/b~c") == "a~1b~0c");
  CHECK(escape_pointer_token("~1") == "~01");
  CHECK(pointer_from_tokens({}) == "");
  CHECK(pointer_from_tokens({"options", "max_prs"}) == "/options/max_prs");
  CHECK(pointer_from_tokens({"", "0"}) == "//0");
  CHECK(display_pointer("") == "/");
  CHECK(display_pointer("/a") == "/a");
}

TEST_CASE("valijson contexts become JSON Pointers", "[schema][text]") {
  CHECK(pointer_from_valijson_context({"<root>"}) == "");
  CHECK(pointer_from_valijson_context({"<root>", "[options]", "[max_prs]"}) == "/options/max_prs");
  CHECK(pointer_from_valijson_context({"<root>", "[prs]", "[2]"}) == "/prs/2");
  CHECK(pointer_from_valijson_context({"<root>", "[a/b]", "[[x]]"}) == "/a~1b/[x]");
}

TEST_CASE("values are described with their JSON Schema type", "[schema][text]") {
  CHECK(describe_value(json(3)) == "integer 3");
  CHECK(describe_value(json(3.0)) == "integer 3.0");
  CHECK(describe_value(json(2.5)) == "number 2.5");
  CHECK(describe_value(json("x")) == "string \"x\"");
  CHECK(describe_value(json(nullptr)) == "null");
  CHECK(describe_value(json(true)) == "boolean true");
  CHECK(describe_value(json::array({1})) == "array of 1 item");
  CHECK(describe_value(json::object()) == "object with 0 properties");
  CHECK(describe_value(json(std::string(100, 'a'))).ends_with("..."));
  CHECK(describe_value(json(std::string(100, 'a'))).size() < 80);
}

TEST_CASE("numbers print as short as they read", "[schema][text]") {
  CHECK(format_number(500.0) == "500");
  CHECK(format_number(-3.0) == "-3");
  CHECK(format_number(0.01) == "0.01");
  CHECK(format_number(1e300) == "1e+300");
}

TEST_CASE("lengths count code points", "[schema][text]") {
  CHECK(utf8_length("") == 0);
  CHECK(utf8_length("abc") == 3);
  CHECK(utf8_length("\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80") == 3);
}

TEST_CASE("RFC 3339 formats", "[schema][text]") {
  CHECK(matches_format("date", "2024-02-29"));
  CHECK_FALSE(matches_format("date", "2023-02-29"));
  CHECK_FALSE(matches_format("date", "2025-13-01"));
  CHECK_FALSE(matches_format("date", "2025-1-01"));
  CHECK(matches_format("date-time", "1990-12-31T23:59:60Z"));
  CHECK(matches_format("date-time", "2025-03-31t14:05:00.5-07:30"));
  CHECK_FALSE(matches_format("date-time", "2025-03-31T14:05:00"));
  CHECK_FALSE(matches_format("date-time", "2025-03-31T14:05:00.Z"));
  CHECK(matches_format("time", "08:30:00+01:00"));
  CHECK_FALSE(matches_format("time", "08:30+01:00"));
  CHECK(matches_format("uri", "anything"));
  CHECK(is_checked_format("date"));
  CHECK_FALSE(is_checked_format("uri"));
}

TEST_CASE("URI references resolve per RFC 3986", "[schema][text]") {
  // Examples from RFC 3986 section 5.4 with base http://a/b/c/d;p?q.
  const std::string base = "http://a/b/c/d;p?q";
  CHECK(resolve_uri(base, "g") == "http://a/b/c/g");
  CHECK(resolve_uri(base, "./g") == "http://a/b/c/g");
  CHECK(resolve_uri(base, "g/") == "http://a/b/c/g/");
  CHECK(resolve_uri(base, "/g") == "http://a/g");
  CHECK(resolve_uri(base, "//g") == "http://g");
  CHECK(resolve_uri(base, "#s") == "http://a/b/c/d;p?q#s");
  CHECK(resolve_uri(base, "../g") == "http://a/b/g");
  CHECK(resolve_uri(base, "../../g") == "http://a/g");
  CHECK(resolve_uri(base, "g;x?y#s") == "http://a/b/c/g;x?y#s");
  CHECK(resolve_uri(base, "http://x/y/../z") == "http://x/z");
  // The cases the draft-7 suite needs and valijson gets wrong.
  CHECK(resolve_uri("http://localhost:1234/tree", "node") == "http://localhost:1234/node");
  CHECK(resolve_uri("http://localhost:1234/scope_change_defs1.json", "folder/") ==
        "http://localhost:1234/folder/");
  CHECK(resolve_uri("", "#/definitions/a") == "#/definitions/a");
  CHECK(resolve_uri("", "other.json") == "other.json");
  CHECK(strip_fragment("http://a/b.json#/x") == "http://a/b.json");
}
