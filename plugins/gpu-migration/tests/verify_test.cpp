#include <catch2/catch.hpp>
#include <skillrt/sdk.hpp>

#include "gpu_migration.hpp"
#include "test_support.hpp"

using nlohmann::json;
using skillrt::gpu_migration::apply;
using skillrt::gpu_migration::verify_kit;

namespace {

const json& item(const json& r, const std::string& id) {
  for (const json& c : r.at("checklist")) {
    if (c.at("id") == id) return c;
  }
  FAIL("no checklist item " << id);
  static json none;
  return none;
}

}  // namespace

TEST_CASE("verify: checklist before and after apply", "[verify]") {
  gm_test::TempRepo repo("ddp_amp");
  const json before = verify_kit({{"repo", repo.str()}});
  CHECK(item(before, "torch-npu-imported").at("status") == "open");
  CHECK(item(before, "cuda-strings").at("status") == "open");
  CHECK_THAT(item(before, "cuda-strings").at("evidence")[0].get<std::string>(),
             Catch::Contains("train.py:"));
  CHECK(item(before, "nccl-to-hccl").at("status") == "open");
  CHECK(item(before, "amp").at("status") == "open");
  CHECK(item(before, "dp-to-ddp").at("status") == "done");
  CHECK(item(before, "training-runs").at("status") == "cannot_tell");
  CHECK(item(before, "equivalence-verified").at("status") == "cannot_tell");
  CHECK(item(before, "fused-optimizers").at("optional") == true);

  apply({{"repo", repo.str()}, {"scope", {"."}}, {"apply", true}});
  const json after = verify_kit({{"repo", repo.str()}});
  CHECK(item(after, "torch-npu-imported").at("status") == "done");
  // The line marked as data keeps its "cuda" string and does not hold the item open.
  CHECK(item(after, "cuda-strings").at("status") == "done");
  CHECK(item(after, "nccl-to-hccl").at("status") == "done");
  CHECK(item(after, "amp").at("status") == "done");
  CHECK(after.at("written").empty());
}

TEST_CASE("verify: the layer comparison script is generated, written only with apply", "[verify]") {
  gm_test::TempRepo repo("dp_caps");
  const json dry = verify_kit({{"repo", repo.str()}});
  REQUIRE(dry.at("scripts").size() == 1);
  const std::string script = dry.at("scripts")[0].at("content");
  CHECK_THAT(script, Catch::Contains("register_forward_hook"));
  CHECK_FALSE(gm_test::fs::exists(repo.path() / "npu_migration_check"));
  const json wrote = verify_kit({{"repo", repo.str()}, {"apply", true}, {"kit_dir", "check"}});
  CHECK(wrote.at("written") == json::array({"check/layer_compare.py"}));
  CHECK(gm_test::read_file(repo.path() / "check/layer_compare.py") == script);
  CHECK(gm_test::run("/usr/bin/python3 -m py_compile '" +
                     (repo.path() / "check/layer_compare.py").string() + "'") == 0);
  try {
    verify_kit({{"repo", repo.str()}, {"apply", true}, {"kit_dir", "../outside"}});
    FAIL("no error");
  } catch (const skillrt::SkillError& e) {
    CHECK_THAT(e.what(), Catch::Contains("outside the repository"));
  }
}
