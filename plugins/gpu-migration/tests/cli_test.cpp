// End to end through the skillrt binary: the plugin loads, schemas accept the examples, results
// validate, and errors come back as exit codes with messages.
#include <catch2/catch.hpp>

#include "test_support.hpp"

using nlohmann::json;

namespace {

std::string skillrt_cmd(const std::string& args) {
  return std::string("'") + SKILLRT_BINARY_DIR + "/bin/skillrt' " + args;
}

std::string quoted(const json& j) {
  std::string s = j.dump();
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

TEST_CASE("cli: the three skills are listed", "[cli]") {
  std::string out;
  REQUIRE(gm_test::run(skillrt_cmd("list --json"), &out) == 0);
  const json list = json::parse(out);
  std::set<std::string> names;
  for (const json& s : list) names.insert(s.at("name").get<std::string>());
  CHECK(names.count("gpu-migration-analyze") == 1);
  CHECK(names.count("gpu-migration-apply") == 1);
  CHECK(names.count("gpu-migration-verify") == 1);
}

TEST_CASE("cli: analyze and apply run end to end", "[cli]") {
  std::string out;
  const json in = {{"repo", gm_test::fixture("dp_caps").string()}};
  REQUIRE(gm_test::run(skillrt_cmd("run gpu-migration-analyze --quiet --input " + quoted(in)),
                       &out) == 0);
  const json r = json::parse(out);
  CHECK(r.at("overall").at("verdict") == "blocked");
  CHECK(r.at("domains").size() == 7);

  gm_test::TempRepo repo("ddp_amp");
  const json a = {{"repo", repo.str()}, {"scope", {"train.py"}}};
  REQUIRE(gm_test::run(skillrt_cmd("run gpu-migration-apply --quiet --input " + quoted(a)), &out) ==
          0);
  CHECK_THAT(json::parse(out).at("patch").get<std::string>(), Catch::Contains("+++ b/train.py"));

  const json v = {{"repo", repo.str()},
                  {"expected_dump", "/nonexistent/cpu.npy"},
                  {"actual_dump", "/nonexistent/npu.npy"}};
  REQUIRE(gm_test::run(skillrt_cmd("run gpu-migration-verify --quiet --input " + quoted(v)),
                       &out) == 0);
  const json c = json::parse(out).at("comparison");
  // Whether api-consistency is installed or not, the step says what happened to the dumps.
  CHECK((c.at("status") == "not_run" || c.at("status") == "done"));
  CHECK(c.at("skill") == "api-consistency");
}

TEST_CASE("cli: bad inputs exit non-zero with the reason", "[cli][errors]") {
  std::string out;
  const json missing = {{"repo", "/nonexistent/repo"}};
  CHECK(gm_test::run(
            skillrt_cmd("run gpu-migration-analyze --quiet --input " + quoted(missing) + " 2>&1"),
            &out) == 3);
  CHECK_THAT(out, Catch::Contains("does not exist"));
  const json no_scope = {{"repo", "/tmp"}};
  CHECK(gm_test::run(
            skillrt_cmd("run gpu-migration-apply --quiet --input " + quoted(no_scope) + " 2>&1"),
            &out) == 3);
  CHECK_THAT(out, Catch::Contains("scope"));
}
