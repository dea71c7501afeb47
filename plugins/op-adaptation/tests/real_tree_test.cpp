// verify on a pinned slice of the real op-plugin (tests/data/real_tree, op-plugin@517f2e7, a tree
// that builds): the C++ kernels there raise no error, and the Meta errors are exactly the
// defects of the hand audit (audit/meta_audit.jsonl, each run through torch's dispatcher), with
// the compatibility-test gaps it found as warnings. The expectations were written from
// op-plugin's generator and PyTorch's calling convention before the rules were changed.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "test_support.hpp"
#include "tree.hpp"
#include "verify.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

const std::string kReal = opa_test::kData + "/real_tree";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The slice as a checkout: Meta registrations and baseline on disk, the YAML files (kept once,
// in tests/data) and, when asked, the kernel files overlaid where op-plugin has them.
skillrt::opa::Tree real_tree(bool with_kernels) {
  skillrt::opa::Tree tree(kReal + "/op-plugin");
  tree.put(skillrt::opa::kFunctionsYaml, slurp(opa_test::kData + "/op_plugin_functions.yaml"));
  tree.put(skillrt::opa::kDerivativesYaml, slurp(opa_test::kData + "/derivatives.yaml"));
  tree.put(skillrt::opa::kAllowlistJson, slurp(opa_test::kData + "/allowlist_for_publicAPI.json"));
  if (with_kernels) {
    for (const auto& entry : fs::recursive_directory_iterator(kReal + "/kernels")) {
      if (!entry.is_regular_file()) continue;
      const std::string rel = fs::relative(entry.path(), kReal + "/kernels").generic_string();
      tree.put("op_plugin/ops/" + rel, slurp(entry.path()));
    }
  }
  return tree;
}

std::set<std::string> ops_with(const skillrt::opa::VerifyResult& r, const std::string& severity,
                               const std::string& rule_prefix) {
  std::set<std::string> out;
  for (const auto& f : r.findings) {
    if (f.severity == severity && f.rule.rfind(rule_prefix, 0) == 0) out.insert(f.op);
  }
  return out;
}

}  // namespace

TEST_CASE("real tree: kernels of a tree that builds raise no C++ error", "[real_tree]") {
  const Json expected = Json::parse(slurp(kReal + "/expected_cpp.json"));
  skillrt::opa::VerifyOptions o;
  o.ops = expected.at("ops").get<std::vector<std::string>>();
  REQUIRE(o.ops.size() >= 40);
  const auto r = skillrt::opa::verify_tree(real_tree(true), o);
  INFO(opa_test::describe(r));
  CHECK(r.unknown_ops.empty());
  CHECK(ops_with(r, "error", "cpp.").empty());
  CHECK(expected.at("errors").empty());
  // The checks ran on those kernels: the worked example of a local left unassigned on a path is
  // outside the slice, but the DO_COMPATIBILITY/EXEC_NPU_CMD check is not.
  CHECK(std::find(r.checks_run.begin(), r.checks_run.end(), "cpp:op_api") != r.checks_run.end());
  CHECK_FALSE(opa_test::with_rule(r, "cpp.aclnn_mismatch").empty());
}

TEST_CASE("real tree: the Meta errors are exactly the audited defects", "[real_tree]") {
  std::set<std::string> real_meta;
  std::set<std::string> version_gaps;
  std::istringstream audit(slurp(kReal + "/audit/meta_audit.jsonl"));
  for (std::string line; std::getline(audit, line);) {
    if (line.empty()) continue;
    const Json a = Json::parse(line);
    if (a.at("verdict") != "real") continue;
    const std::string rule = a.at("rule");
    (rule.rfind("meta.", 0) == 0 ? real_meta : version_gaps).insert(a.at("op").get<std::string>());
  }
  REQUIRE(real_meta.size() == 12);
  skillrt::opa::VerifyOptions o;
  o.all = true;
  const auto r = skillrt::opa::verify_tree(real_tree(false), o);
  INFO(opa_test::describe(r));
  // No kernels in this run: the C++ checks are skipped, not failed.
  CHECK(ops_with(r, "error", "cpp.").empty());
  CHECK(ops_with(r, "error", "") == real_meta);
  CHECK(ops_with(r, "warning", "baseline.") == version_gaps);
  CHECK(ops_with(r, "error", "baseline.").empty());
  // The name, count and default mismatches that bind are still reported, as warnings.
  CHECK(opa_test::with_rule(r, "meta.param_renamed").size() >= 67);
  for (const auto& f : opa_test::with_rule(r, "meta.param_renamed")) CHECK(f.severity == "warning");
}
