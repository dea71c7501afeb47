// `skillrt run` prints a result checked as text by re-indenting it; it must read exactly as the
// DOM path's dump(2) did.
#include "cli/detail/indent.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

namespace {

using nlohmann::json;
using skillrt::cli::detail::indent_json;

json random_value(std::mt19937& rng, int depth) {
  const int kind = static_cast<int>(rng() % (depth > 3 ? 5 : 7));
  switch (kind) {
    case 0:
      return nullptr;
    case 1:
      return rng() % 2 == 0;
    case 2:
      return static_cast<int64_t>(rng() % 2000) - 1000;
    case 3:
      return static_cast<double>(rng() % 100000) / 64.0 - 700.0;
    case 4: {
      static const std::string pieces[] = {"a", "é", "\"", "\\", "\n",   "\t",   "/",   "{",
                                           "]", ",", ":",  " ",  "\x01", "你好", "\x7f"};
      std::string s;
      for (size_t n = rng() % 6; n > 0; --n) s += pieces[rng() % std::size(pieces)];
      return s;
    }
    case 5: {
      json array = json::array();
      for (size_t n = rng() % 4; n > 0; --n) array.push_back(random_value(rng, depth + 1));
      return array;
    }
    default: {
      json object = json::object();
      for (size_t n = rng() % 4; n > 0; --n) {
        object["k" + std::to_string(rng() % 10) + (rng() % 3 == 0 ? " :{" : "")] =
            random_value(rng, depth + 1);
      }
      return object;
    }
  }
}

}  // namespace

TEST_CASE("indent_json lays out compact text as dump(2) does") {
  CHECK(indent_json("{}") == "{}");
  CHECK(indent_json("[ ]") == "[]");
  CHECK(indent_json(R"({"a":[],"b":{},"c":[1,{"d":"x,y:z"}]})") ==
        json::parse(R"({"a":[],"b":{},"c":[1,{"d":"x,y:z"}]})").dump(2));
  CHECK(indent_json(" 42 ") == "42");
  CHECK(indent_json(R"("a\"b\\")") == R"("a\"b\\")");
  std::mt19937 rng(7);
  for (int round = 0; round < 3000; ++round) {
    const json value = random_value(rng, 0);
    INFO(value.dump());
    CHECK(indent_json(value.dump()) == value.dump(2));
    CHECK(indent_json(value.dump(4)) == value.dump(2));
    CHECK(indent_json(value.dump(), 4) == value.dump(4));
  }
}
