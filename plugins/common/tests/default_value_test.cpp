// Defaults compared by value, the way schemas, Python signatures and API pages write them.
#include "optoolkit/default_value.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "optoolkit/text.hpp"

using skillrt::ops::same_default_value;

TEST_CASE("default values: equal values written differently", "[default_value]") {
  CHECK(same_default_value("1e-5", "0.00001"));
  CHECK(same_default_value("1e-06", "1e-6"));
  CHECK(same_default_value("1.", "1"));
  CHECK(same_default_value("2^63-1", "9223372036854775807"));
  CHECK(same_default_value("2**31-1", "2147483647"));
  CHECK(same_default_value("None", "none"));
  CHECK(same_default_value("True", "true"));
  CHECK(same_default_value("'BSND'", "\"BSND\""));
  CHECK(same_default_value("'sum'", "sum"));  // unquoted in prose
  CHECK(same_default_value("[1,1]", "[1, 1]"));
  CHECK(same_default_value("(1, 2)", "[1,2]"));
  CHECK(same_default_value("torch.float16", "float16"));
  CHECK(same_default_value("at::Reduction::Mean", "Mean"));
  CHECK(same_default_value("1", "[1, 1]", 2));  // int[2] stride=1
}

TEST_CASE("default values: different values", "[default_value]") {
  CHECK_FALSE(same_default_value("1e-5", "1e-6"));
  CHECK_FALSE(same_default_value("0", "-2"));
  CHECK_FALSE(same_default_value("None", "0"));
  CHECK_FALSE(same_default_value("False", "0"));
  CHECK_FALSE(same_default_value("'BSND'", "'BSH'"));
  CHECK_FALSE(same_default_value("[1,1]", "[1,1,1]"));
  CHECK_FALSE(same_default_value("1", "[1, 1]"));  // without a sized list type
  CHECK_FALSE(same_default_value("2^63-1", "2147483647"));
}

TEST_CASE("text helpers: trim, top-level split, edit distance", "[text]") {
  CHECK(skillrt::ops::trim(" \t a b \r\n") == "a b");
  CHECK(skillrt::ops::split_top_level("a, b=[1, 2], c='x,y', (d, e),") ==
        std::vector<std::string>{"a", "b=[1, 2]", "c='x,y'", "(d, e)"});
  CHECK(skillrt::ops::split_top_level("").empty());
  CHECK(skillrt::ops::edit_distance("gama", "gamma") == 1);
  CHECK(skillrt::ops::edit_distance("", "abc") == 3);
  CHECK(skillrt::ops::edit_distance("kitten", "sitting") == 3);
}
