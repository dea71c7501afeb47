// The text analysis on strings: ids, signatures, unittest results, routing, rules, templates.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "analysis.hpp"

using namespace skillrt::issue_pipeline;
namespace fs = std::filesystem;

TEST_CASE("analysis: pytest and unittest ids parse; bad ids are refused with an example") {
  const TestId p = parse_test_id("test/test_nn.py::TestNN::test_conv2d");
  CHECK(p.pytest);
  CHECK(p.file == "test/test_nn.py");
  CHECK(p.cls == "TestNN");
  CHECK(p.method == "test_conv2d");
  const TestId u = parse_test_id("test_nn.TestNN.test_conv2d");
  CHECK_FALSE(u.pytest);
  CHECK(u.file_candidates.front() == "test/test_nn.py");
  CHECK(u.cls == "TestNN");
  CHECK_THROWS_WITH(parse_test_id("test_conv2d"), Catch::Contains("module.Class.test"));
  CHECK_THROWS_WITH(parse_test_id("test/x.py::A::b; rm -rf /"), Catch::Contains("shell"));
  CHECK_THROWS(parse_test_id("../x.py::A::test_b"));
}

TEST_CASE("analysis: device-generic tests are located through their template class") {
  const fs::path dir = fs::temp_directory_path() / ("ipl_locate_" + std::to_string(::getpid()));
  fs::create_directories(dir / "test");
  std::ofstream(dir / "test" / "test_ops.py")
      << "import unittest\n\nclass TestCommon(unittest.TestCase):\n    def test_out(self):\n"
         "        pass\n\n    def test_out_add(self):\n        pass\n";
  const TestLocation loc = locate_test(
      dir.string(), parse_test_id("test/test_ops.py::TestCommonCPU::test_out_add_cpu_float32"));
  CHECK(loc.found);
  CHECK(loc.class_name == "TestCommon");
  CHECK(loc.class_line == 3);
  CHECK(loc.method_name == "test_out_add");
  CHECK(loc.method_line == 7);
  const TestLocation missing =
      locate_test(dir.string(), parse_test_id("test/test_ops.py::TestCommon::test_mul"));
  CHECK_FALSE(missing.found);
  CHECK_THAT(missing.why_not, Catch::Contains("def test_mul"));
  fs::remove_all(dir);
}

TEST_CASE("analysis: signatures compare with digits masked and differ on the exception") {
  const std::string a =
      "Traceback (most recent call last):\n  File \"/x/a.py\", line 3, in f\n    g()\n"
      "NotImplementedError: Could not run 'aten::add.Tensor' with arguments from the "
      "'PrivateUse1' backend at 0x7f01\n";
  const std::string b =
      "Traceback (most recent call last):\n  File \"/y/a.py\", line 9, in f\n"
      "NotImplementedError: Could not run 'aten::add.Tensor' with arguments from the "
      "'PrivateUse1' backend at 0x1234\n";
  const std::string c =
      "Traceback (most recent call last):\n  File \"a\", line 1, in f\nAssertionError: 1 != 2\n";
  const Signature sa = failure_signature(a);
  REQUIRE(sa.found);
  CHECK(sa.exception == "NotImplementedError");
  CHECK(sa.where.line == 4);
  CHECK(compare_signatures(sa, failure_signature(b)).same);
  const Comparison diff = compare_signatures(sa, failure_signature(c));
  CHECK_FALSE(diff.same);
  CHECK_THAT(diff.reason, Catch::Contains("AssertionError"));
}

TEST_CASE("analysis: unittest verbose output gives per-test outcomes (3.11 and older formats)") {
  const auto r = unittest_results(
      "test_add (test_ops.TestAdd.test_add) ... ERROR\n"
      "test_sub (test_ops.TestAdd) ... ok\n"
      "test_mul (__main__.TestAdd.test_mul) ... skipped 'no npu'\n");
  CHECK(r.at("TestAdd.test_add") == "ERROR");
  CHECK(r.at("TestAdd.test_sub") == "ok");
  CHECK(r.at("TestAdd.test_mul") == "skipped");
}

TEST_CASE("analysis: routing weighs path, imports and log, with evidence") {
  const Route d = route_case("test/distributed/test_c10d_hccl.py",
                             "import torch.distributed as dist\n", "HCCL timeout\n");
  CHECK(d.route == "distributed");
  CHECK(d.distributed_score >= 6);
  const Route c =
      route_case("test/test_ops.py",
                 "from torch.testing._internal.common_methods_invocations import op_db\n", "");
  CHECK(c.route == "core");
  CHECK(c.evidence.size() >= 2);
  const Route none = route_case("test/test_misc.py", "import os\n", "");
  CHECK(none.route == "core");
  CHECK(none.evidence.back()["source"] == "default");
}

TEST_CASE("analysis: rules decide by priority and keep their evidence line") {
  const std::map<std::string, std::string> wt = {
      {"pytorch", "/w/pytorch"}, {"torch_npu", "/w/torch_npu"}, {"op_plugin", "/w/op_plugin"}};
  const auto d = match_rules(
      "Traceback (most recent call last):\n  File \"/w/op_plugin/op_plugin/ops.py\", line 12, in "
      "dispatch\n"
      "NotImplementedError: Could not run 'aten::add.Tensor' with arguments from the 'PrivateUse1' "
      "backend.\n",
      wt, "test/test_ops.py");
  REQUIRE_FALSE(d.empty());
  CHECK(d.front().rule == "IPL-D001");
  CHECK(d.front().op == "aten::add.Tensor");
  CHECK(d.front().evidence.front().line == 3);
  const auto e =
      match_rules("ModuleNotFoundError: No module named 'torch_npu'\nAssertionError\n", wt, "t.py");
  CHECK(e.front().cls == "environment-build");
  const auto u = match_rules(
      "Traceback (most recent call last):\n  File \"/w/pytorch/test/test_x.py\", line 5, in "
      "test_a\n"
      "  File \"/w/pytorch/torch/functional.py\", line 40, in f\nAssertionError: bad\n",
      wt, "test/test_x.py");
  CHECK(u.front().cls == "upstream-problem");
  CHECK(match_rules("all good\n", wt, "t.py").empty());
}

TEST_CASE("analysis: the PR template keeps its headings and gets the sections") {
  std::vector<std::string> used;
  const std::string out = fill_template(
      "### 【合入来源】\n请填写来源\n### 【修改方案】\n\n### 【CheckList】\n- [ ] 已自测\n",
      {{"合入来源", "upstream test"}, {"修改方案", "add kernel"}}, &used);
  CHECK(used.size() == 2);
  CHECK_THAT(out, Catch::Contains("### 【合入来源】\nupstream test"));
  CHECK_THAT(out, !Catch::Contains("请填写来源"));
  CHECK_THAT(out, Catch::Contains("- [ ] 已自测"));
}

TEST_CASE("analysis: case ids are safe directory and branch names") {
  CHECK(case_id_from_test("test/test_ops.py::TestA::test_b") == "test_test_ops.py__TestA__test_b");
  CHECK(case_id_from_test("..x") == "_x");
  CHECK(case_id_from_test(std::string(300, 'a')).size() == 100);
}
