#include <catch2/catch.hpp>
#include <set>
#include <skillrt/sdk.hpp>

#include "detail/rule_table.hpp"
#include "gpu_migration.hpp"
#include "test_support.hpp"

using namespace skillrt::gpu_migration::detail;

TEST_CASE("rule table: the built-in table covers the seven domains with sources", "[rules]") {
  const RuleTable& t = builtin_rule_table();
  REQUIRE(t.domains.size() == 7);
  std::set<std::string> covered;
  for (const Rule& r : t.rules) {
    covered.insert(r.domain);
    CHECK_FALSE(r.source.empty());
    CHECK_FALSE(r.alternative.empty());
    CHECK(t.effort_class(r.effort) != nullptr);
    if (r.rewrite != RewriteKind::kNone) CHECK_FALSE(r.reason.empty());
    if (!r.equivalence.empty()) CHECK(t.equivalence.count(r.equivalence) == 1);
  }
  for (const Domain& d : t.domains) CHECK(covered.count(d.id) == 1);
  CHECK(t.effort_class("blocker")->days_per_finding.has_value() == false);
}

TEST_CASE("rule table: a user file overrides by id and adds rules first", "[rules]") {
  gm_test::TempRepo dir;
  const auto file = dir.path() / "rules.json";
  gm_test::write_file(file, R"({"rules": [
    {"id": "DEV-TENSOR-CUDA", "domain": "device", "effort": "small_manual",
     "match": {"kind": "attribute", "name": "cuda", "call": true},
     "alternative": "team rule", "source": "our wiki"},
    {"id": "TEAM-MEGATRON", "domain": "third_party", "effort": "large_manual",
     "match": {"kind": "import", "patterns": ["megatron"]},
     "alternative": "use MindSpeed", "source": "team decision"}]})");
  const RuleTable t = rule_table_with_user_file(file.string());
  REQUIRE(t.rules.front().id == "TEAM-MEGATRON");
  const auto it = std::find_if(t.rules.begin(), t.rules.end(),
                               [](const Rule& r) { return r.id == "DEV-TENSOR-CUDA"; });
  REQUIRE(it != t.rules.end());
  CHECK(it->effort == "small_manual");
  CHECK(it->rewrite == RewriteKind::kNone);
  CHECK(t.origins.size() == 2);

  // The user rule fires in an analysis.
  gm_test::write_file(dir.path() / "src" / "m.py", "import megatron.core\nx.cuda()\n");
  const auto r = skillrt::gpu_migration::analyze(
      {{"repo", (dir.path() / "src").string()}, {"rules_file", file.string()}});
  const auto& f = r.at("findings");
  REQUIRE(f.size() == 2);
  CHECK(f[0].at("rule") == "TEAM-MEGATRON");
  CHECK(f[1].at("effort") == "small_manual");
}

TEST_CASE("rule table: malformed user files are refused with the field named", "[rules]") {
  gm_test::TempRepo dir;
  const auto file = dir.path() / "rules.json";
  auto message_for = [&](const std::string& text) {
    gm_test::write_file(file, text);
    try {
      rule_table_with_user_file(file.string());
    } catch (const skillrt::SkillError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message_for("{"), Catch::Contains("is not valid JSON"));
  CHECK_THAT(message_for(R"({"rules": [{"id": "X", "domain": "gpu", "effort": "automatic",
      "alternative": "a", "source": "s", "match": {"kind": "chain", "patterns": ["a"]}}]})"),
             Catch::Contains("domain 'gpu'"));
  CHECK_THAT(message_for(R"({"rules": [{"id": "X", "domain": "device", "effort": "automatic",
      "alternative": "a", "source": "s", "match": {"kind": "string", "regex": "("}}]})"),
             Catch::Contains("not a valid ECMAScript regular expression"));
  CHECK_THAT(message_for(R"({"rules": [{"id": "X", "domain": "device", "effort": "automatic",
      "alternative": "a", "source": "s", "suggestion": true,
      "match": {"kind": "attribute", "name": "x"},
      "rewrite": {"kind": "rename_attribute", "to": "y"}, "reason": "r"}]})"),
             Catch::Contains("suggestion rule cannot have a rewrite"));
  CHECK_THAT(message_for(R"({"rules": [{"id": "X", "domain": "device"}]})"),
             Catch::Contains("field 'effort' is missing"));
  try {
    rule_table_with_user_file((dir.path() / "missing.json").string());
    FAIL("no error");
  } catch (const skillrt::SkillError& e) {
    CHECK_THAT(e.what(), Catch::Contains("cannot be read"));
  }
}

TEST_CASE("rule table: file globs", "[rules]") {
  CHECK(glob_match("requirements*.txt", "requirements-dev.txt"));
  CHECK(glob_match("*.cu", "a.cu"));
  CHECK_FALSE(glob_match("*.cu", "a.cuh"));
  CHECK(glob_match("CMakeLists.txt", "CMakeLists.txt"));
  CHECK_FALSE(glob_match("requirements*.txt", "requirements.in"));
}
