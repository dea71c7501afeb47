#include <catch2/catch.hpp>

#include "embedded_data.hpp"
#include "errors.hpp"
#include "rules.hpp"
#include "run.hpp"
#include "test_support.hpp"

namespace pra = skillrt::pr_analysis;

TEST_CASE("rules: glob semantics") {
  CHECK(pra::glob_match("torch/_inductor/**", "torch/_inductor/codegen/common.py"));
  CHECK_FALSE(pra::glob_match("torch/_inductor/**", "torch/_dynamo/x.py"));
  CHECK(pra::glob_match("**/CMakeLists.txt", "CMakeLists.txt"));
  CHECK(pra::glob_match("**/CMakeLists.txt", "caffe2/CMakeLists.txt"));
  CHECK(pra::glob_match("c10/core/DispatchKey*", "c10/core/DispatchKeySet.h"));
  CHECK_FALSE(pra::glob_match("aten/src/ATen/*.h", "aten/src/ATen/core/Tensor.h"));
  CHECK_FALSE(pra::glob_match("c10/core/?", "c10/core/ab"));
}

TEST_CASE("rules: the shipped pack parses and covers every required category") {
  const pra::RulePack pack = pra::load_rule_pack("");
  for (const char* c :
       {"operator-schema", "autograd", "dispatcher", "device-generic", "distributed",
        "dynamo-inductor", "testing", "serialization", "build", "docs-ci"}) {
    INFO(c);
    CHECK(pack.category(c) != nullptr);
    bool used = false;
    for (const auto& r : pack.rules) used = used || r.category == c;
    CHECK(used);
  }
  for (const std::string& kind : pra::op_change_kinds()) {
    bool named = false;
    for (const auto& r : pack.rules) {
      for (const auto& k : r.op_changes) named = named || k == kind;
    }
    INFO(kind);
    CHECK(named);
  }
}

TEST_CASE("rules: errors name the file, line and field") {
  try {
    pra::parse_rule_pack(
        "categories: []\nrules:\n  - id: a\n    category: x\n    impact: huge\n"
        "    when: {paths: [a]}\n",
        "mine.yaml");
    FAIL("no error");
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    CHECK(m.find("mine.yaml:3") != std::string::npos);
    CHECK(m.find("impact") != std::string::npos);
  }
  CHECK_THROWS_WITH(pra::parse_rule_pack("rules:\n  - id: a\n    category: x\n    impact: low\n"
                                         "    when: {path: [a]}\n",
                                         "m.yaml"),
                    Catch::Contains("unknown condition 'path'"));
  CHECK_THROWS_WITH(pra::parse_rule_pack("rules:\n  - id: a\n    category: x\n    impact: low\n"
                                         "    when: {op_changes: [op_renamed]}\n",
                                         "m.yaml"),
                    Catch::Contains("unknown op change 'op_renamed'"));
}

TEST_CASE("rules: a user pack adds rules and replaces a shipped rule by id") {
  pra_test::TempDir dir("rules");
  std::ofstream(dir.str("extra.yaml"))
      << "categories:\n  - {id: perfkernels, title: CPU perf kernels}\n"
         "rules:\n"
         "  - id: perfkernels\n    category: perfkernels\n    impact: low\n"
         "    when: {paths: [\"caffe2/perfkernels/**\"]}\n    suggestion: CPU only.\n"
         "  - id: docs-ci\n    category: docs-ci\n    impact: low\n"
         "    when: {paths: [\"docs/**\"]}\n";
  const pra::RulePack pack = pra::load_rule_pack(dir.str("extra.yaml"));
  int docs = 0;
  for (const auto& r : pack.rules) {
    if (r.id == "docs-ci") {
      ++docs;
      CHECK(r.impact == pra::Impact::kLow);
    }
  }
  CHECK(docs == 1);
  CHECK(pack.category("perfkernels") != nullptr);
  CHECK(pack.rules.back().id == "perfkernels");
  std::ofstream(dir.str("bad.yaml"))
      << "rules:\n  - id: z\n    category: nowhere\n    impact: low\n"
         "    when: {paths: [a]}\n";
  CHECK_THROWS_AS(pra::load_rule_pack(dir.str("bad.yaml")), pra::InputError);
  CHECK_THROWS_WITH(pra::load_rule_pack(dir.str("missing.yaml")), Catch::Contains("missing.yaml"));
}
