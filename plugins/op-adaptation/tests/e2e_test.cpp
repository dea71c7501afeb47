// End to end through the built skillrt binary: the host validates input and output against
// the schemas, and a host holding only this plugin shows how generate reports the missing
// op-test and op-apidoc skills.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

using nlohmann::json;

namespace {

struct RunResult {
  int exit_code = -1;
  json output;
};

RunResult run_skill(const json& input, const std::string& extra_flags = "") {
  static int calls = 0;
  const auto dir = opa_test::fs::temp_directory_path() /
                   ("opa_e2e_" + std::to_string(::getpid()) + "_" + std::to_string(++calls));
  opa_test::fs::create_directories(dir);
  std::ofstream(dir / "in.json") << input.dump();
  const std::string cmd = std::string(SKILLRT_BINARY_DIR) + "/bin/skillrt " + extra_flags +
                          " run op-adaptation --input '" + (dir / "in.json").string() +
                          "' --output '" + (dir / "out.json").string() + "' -q > '" +
                          (dir / "log").string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(dir / "out.json");
  std::stringstream ss;
  ss << in.rdbuf();
  if (!ss.str().empty()) r.output = json::parse(ss.str());
  std::error_code ec;
  opa_test::fs::remove_all(dir, ec);
  return r;
}

}  // namespace

TEST_CASE("e2e: the SKILL.md input example passes --check-only") {
  const std::string cmd =
      std::string(SKILLRT_BINARY_DIR) +
      "/bin/skillrt run op-adaptation --check-only --input "
      "'{\"mode\":\"verify\",\"op_plugin\":\"/src/op-plugin\",\"ops\":[\"npu_rms_norm\"]}'"
      " > /dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("e2e: verify of the fixture through the host, output valid against its schema") {
  const RunResult r =
      run_skill({{"mode", "verify"}, {"op_plugin", opa_test::kFixture}, {"all", true}});
  REQUIRE(r.exit_code == 0);
  CHECK(r.output["clean"] == true);
  CHECK(r.output["ops_checked"] == 12);
}

TEST_CASE("e2e: verify of the real YAML file gives a summary by rule") {
  const RunResult r = run_skill({{"mode", "verify"},
                                 {"op_plugin", opa_test::kData + "/op_plugin_functions.yaml"},
                                 {"all", true},
                                 {"max_findings", 10}});
  REQUIRE(r.exit_code == 0);
  CHECK(r.output["findings"].size() <= 10);
  CHECK(r.output["summary"]["by_rule"].is_object());
  CHECK(r.output["ops_checked"].get<int>() > 1400);
}

TEST_CASE("e2e: generate in a host without op-test/op-apidoc names the parts it did not produce") {
  opa_test::FixtureCopy fx;
  const std::string flags = "--no-default-plugins --plugin-path '" +
                            std::string(SKILLRT_BINARY_DIR) +
                            "/lib/skillrt/plugins/op-adaptation.so'";
  const RunResult r =
      run_skill({{"mode", "generate"},
                 {"op_plugin", fx.root().string()},
                 {"spec",
                  {{"schema", "npu_demo_gate(Tensor x, *, int dim=-1, float alpha=1.0) -> Tensor"},
                   {"aclnn", "aclnnDemoGate"},
                   {"exposed", true}}}},
                flags);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.output["not_produced"].size() == 2);
  CHECK(r.output["not_produced"][0]["reason"].get<std::string>().find("op-test") !=
        std::string::npos);
  CHECK(r.output["not_produced"][1]["reason"].get<std::string>().find("op-apidoc") !=
        std::string::npos);
  CHECK(r.output["applied"] == false);
}

TEST_CASE("e2e: a missing checkout is an INVALID_ARGUMENT naming the path") {
  const RunResult r =
      run_skill({{"mode", "verify"}, {"op_plugin", "/nonexistent/op-plugin"}, {"all", true}});
  CHECK(r.exit_code != 0);
  CHECK(r.output.is_null());
}

TEST_CASE("e2e: generate with the host's default plugins uses op-test and op-apidoc when present") {
  // Where the op-test and op-apidoc plugins are built, their output joins the patch and verify
  // is clean; where they are not, generate names exactly those two parts.
  const std::string list_cmd = std::string(SKILLRT_BINARY_DIR) + "/bin/skillrt list 2>/dev/null";
  std::string listing;
  if (FILE* p = ::popen(list_cmd.c_str(), "r")) {
    char buf[4096];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) listing.append(buf, n);
    ::pclose(p);
  }
  // `skillrt list`: one skill per line, its name first.
  auto listed = [&](const std::string& skill) {
    return listing.rfind(skill + " ", 0) == 0 ||
           listing.find("\n" + skill + " ") != std::string::npos;
  };
  const bool have_test = listed("op-test");
  const bool have_doc = listed("op-apidoc");
  opa_test::FixtureCopy fx;
  const RunResult r =
      run_skill({{"mode", "generate"},
                 {"op_plugin", fx.root().string()},
                 {"spec",
                  {{"schema", "npu_demo_gate(Tensor x, *, int dim=-1, float alpha=1.0) -> Tensor"},
                   {"aclnn", "aclnnDemoGate"},
                   {"exposed", true}}}});
  REQUIRE(r.exit_code == 0);
  INFO(r.output.dump(2));
  CHECK(r.output["not_produced"].size() == (have_test ? 0u : 1u) + (have_doc ? 0u : 1u));
  if (have_test && have_doc) CHECK(r.output["verify"]["clean"] == true);
  CHECK(r.output["verify"]["summary"]["errors"] == 0);
}
