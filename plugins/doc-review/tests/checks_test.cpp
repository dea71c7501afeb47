// Each check catches a planted defect and stays silent on a clean page; the real pages under
// tests/data show what it finds in practice.
#include <catch2/catch.hpp>

#include <algorithm>

#include "test_support.hpp"

using namespace doc_review_test;

namespace {

// A review of one folder of pages, one axis.
json review_axis(const TempDir& dir, const std::string& axis, bool with_code = true) {
  json in = {{"docs", (dir / "docs").string()}, {"axes", {axis}}};
  if (with_code) in["code"] = (dir / "code").string();
  return review(in);
}

const char* kCleanPage =
    "# torch_npu.npu_demo\n\n"
    "## 功能说明\n\n自动混合精度（AMP，Automatic Mixed "
    "Precision）训练时使用。AMP可减少显存占用。\n\n"
    "## 函数原型\n\n```python\ntorch_npu.npu_demo(self, epsilon=1e-06) -> Tensor\n```\n\n"
    "## 参数说明\n\n- **input** (`Tensor`)：必选参数。\n- **epsilon** "
    "(`float`)：可选参数，默认值为`1e-6`。\n\n"
    "## 调用示例\n\n```python\nimport torch\nimport torch_npu\n\n"
    "x = torch.rand(4, 8, dtype=torch.float16).npu()\ny = torch_npu.npu_demo(x, "
    "epsilon=1e-6)\n```\n\n"
    "| 产品 | 是否支持 |\n|---|---|\n| Atlas A2 训练系列产品 | √ |\n";

void write_clean_tree(const TempDir& dir) {
  write_file(dir / "docs/README.md", "# Docs\n\n- [demo](api/demo.md)\n- [安装](install.md)\n");
  write_file(dir / "docs/api/demo.md", kCleanPage);
  write_file(dir / "docs/install.md",
             "# 安装\n\n## 前提条件\n\n已安装CANN 8.0.0与PyTorch 2.1.0。\n\n## 操作步骤\n\n"
             "1. 安装依赖。\n\n    ```bash\n    pip3 install pyyaml\n    ```\n\n"
             "2. 安装插件。\n\n    ```bash\n    pip3 install torch_npu\n    ```\n\n"
             "安装成功后，执行`python3 -c \"import torch_npu\"`无报错即表示安装成功。\n");
  write_op_plugin(dir / "code", {"npu_demo(Tensor self, float epsilon=1e-06) -> Tensor"});
  write_file(dir / "code/op_plugin/utils/env.cpp",
             "const char* a = getenv(\"TORCH_NPU_DEMO_FLAG\");\n"
             "const char* b = getenv(\"ASCEND_DEMO_PATH\");\n");
}

}  // namespace

TEST_CASE("a clean tree is silent on every axis", "[doc-review][checks]") {
  TempDir dir("clean");
  write_clean_tree(dir);
  const json out = review({{"docs", (dir / "docs").string()}, {"code", (dir / "code").string()}});
  INFO(dump_findings(out));
  CHECK(out.at("findings").empty());
  CHECK(out.at("code_kind") == "op-plugin");
  CHECK(out.at("pages") == 3);
}

TEST_CASE("findable: broken links, images and anchors, orphan pages", "[doc-review][checks]") {
  TempDir dir("findable");
  write_clean_tree(dir);
  write_file(dir / "docs/api/demo.md",
             std::string(kCleanPage) +
                 "\n见[安装](../instal.md)、[约束](#约束说明)、[步骤](../install.md#操作步骤)、"
                 "[锚点](#section99)。\n![arch](figures/arch.png)\n<a id=\"section99\"></a>\n");
  write_file(dir / "docs/orphan.md", "# Orphan\n");
  const json out = review_axis(dir, "findable");
  INFO(dump_findings(out));
  const auto broken = findings(out, "broken-link");
  REQUIRE(broken.size() == 1);
  CHECK(broken[0].at("severity") == "error");
  CHECK(broken[0].at("suggestion").get<std::string>().find("install.md") != std::string::npos);
  REQUIRE(findings(out, "broken-image").size() == 1);
  const auto anchors = findings(out, "broken-anchor");
  REQUIRE(anchors.size() == 1);  // #约束说明 does not exist; #操作步骤 and #section99 do
  CHECK(anchors[0].at("message").get<std::string>().find("约束说明") != std::string::npos);
  const auto orphans = findings(out, "orphan-page");
  REQUIRE(orphans.size() == 1);
  CHECK(orphans[0].at("page") == "orphan.md");
}

TEST_CASE("findable on real op-plugin pages: formulas are not links, the index reaches pages",
          "[doc-review][checks]") {
  const json out =
      review({{"docs", (data_dir() / "op-plugin/docs").string()}, {"axes", {"findable"}}});
  INFO(dump_findings(out));
  CHECK(findings(out, "broken-link").empty());  // $$ ... [HiF8/FP8](input/scale) $$
  const auto orphans = findings(out, "orphan-page");
  REQUIRE(orphans.size() == 1);  // the trimmed tree has no README linking install.md
  CHECK(orphans[0].at("page") == "zh/install.md");
}

TEST_CASE("trustworthy: APIs, prototypes, parameters and defaults against the schema",
          "[doc-review][checks]") {
  TempDir dir("trust");
  write_clean_tree(dir);
  write_file(
      dir / "docs/api/demo.md",
      "# torch_npu.npu_demo\n\n## 函数原型\n\n```python\n"
      "torch_npu.npu_demo(x, epsilon=1e-05, scale=1.0) -> Tensor\n```\n\n## 参数说明\n\n"
      "- **x** (`Tensor`)：必选参数。\n- **epsilon** (`float`)：可选参数，默认值为`1e-5`。\n\n"
      "另见torch_npu.npu_demo_v9与torch_npu.npu_demo(x, eps=1)。\n");
  const json out = review_axis(dir, "trustworthy");
  INFO(dump_findings(out));
  const auto missing_api = findings(out, "api-not-in-code");
  REQUIRE(missing_api.size() == 1);
  CHECK(missing_api[0].at("message").get<std::string>().find("npu_demo_v9") != std::string::npos);
  const auto proto = findings(out, "prototype-parameter-not-in-code");
  REQUIRE(proto.size() == 2);  // scale (error, first), x where the schema has self (warning)
  CHECK(proto[0].at("severity") == "error");
  CHECK(proto[0].at("message").get<std::string>().find("'scale'") != std::string::npos);
  CHECK(proto[0]
            .at("evidence")
            .at("code_ref")
            .get<std::string>()
            .find("op_plugin_functions.yaml:3") != std::string::npos);
  CHECK(proto[1].at("severity") == "warning");
  CHECK(proto[1].at("message").get<std::string>().find("schema calls it self") !=
        std::string::npos);
  CHECK(findings(out, "parameter-not-in-code").size() == 1);
  CHECK(findings(out, "default-differs").size() == 2);      // prototype and parameter list
  CHECK(findings(out, "keyword-not-in-code").size() == 1);  // eps=
}

TEST_CASE("trustworthy on real op-plugin pages: the expert/export_for_source_row mismatch",
          "[doc-review][checks]") {
  const json out = review({{"docs", (data_dir() / "op-plugin/docs").string()},
                           {"code", (data_dir() / "op-plugin").string()},
                           {"axes", {"trustworthy"}}});
  INFO(dump_findings(out));
  bool export_row = false, missing_k = false;
  for (const json& f : findings(out)) {
    const std::string m = f.at("message");
    CHECK(f.at("page").get<std::string>().find("npu_add_rms_norm") == std::string::npos);
    export_row = export_row || m.find("export_for_source_row") != std::string::npos;
    missing_k = missing_k || (f.at("rule") == "prototype-missing-parameter" &&
                              m.find(": k") != std::string::npos);
  }
  CHECK(export_row);
  CHECK(missing_k);
  CHECK(findings(out, "parameter-not-in-code").size() == 2);  // expert_for_source_row, input
}

TEST_CASE("trustworthy: environment variables the code never reads, unknown dtypes",
          "[doc-review][checks]") {
  TempDir dir("env");
  write_clean_tree(dir);
  write_file(dir / "docs/api/demo.md",
             std::string(kCleanPage) +
                 "\n设置环境变量`TORCH_NPU_DEMO_FLAG=1`与`TORCH_NPU_DEMO_FLAGS=1`。\n\n"
                 "```bash\nexport ASCEND_DEMO_PATH=/x\nexport ASCEND_RT_VISIBLE_DEVICES=0\n"
                 "export ASCEND_DEMO_PATHS=/y\n```\n\n数据保存在ASCEND_PROFILER_OUTPUT目录。\n\n"
                 "数据类型为torch.bfloat16或torch.float8_e4m3或torch.interpolate。\n");
  const json out = review_axis(dir, "trustworthy");
  INFO(dump_findings(out));
  const auto env = findings(out, "env-var-not-in-code");
  REQUIRE(env.size() == 2);  // FLAGS and PATHS; CANN's own variable and a folder name are fine
  CHECK(env[0].at("message").get<std::string>().find("TORCH_NPU_DEMO_FLAGS") != std::string::npos);
  CHECK(env[1].at("message").get<std::string>().find("ASCEND_DEMO_PATHS") != std::string::npos);
  const auto dtypes = findings(out, "unknown-dtype");
  REQUIRE(dtypes.size() == 1);
  CHECK(dtypes[0].at("message").get<std::string>().find("float8_e4m3'") != std::string::npos);
}

TEST_CASE("trustworthy without code: API checks are skipped and say why", "[doc-review][checks]") {
  TempDir dir("nocode");
  write_clean_tree(dir);
  const json out = review_axis(dir, "trustworthy", false);
  CHECK(out.at("findings").empty());
  CHECK(skipped_has(out, "no code checkout was given"));
}

TEST_CASE("operable: syntax, APIs, keywords and imports of examples", "[doc-review][checks]") {
  TempDir dir("operable");
  write_clean_tree(dir);
  const std::string page =
      std::string(kCleanPage) +
      "\n```python\nimport torch_npu\nx = torch_npu.npu_demo(t, eps=1)\n"
      "y = torch_npu.npu_demo_v9(t)\nif x\n    pass\n```\n\n"
      "```Python\npython3 -c \"import torch_npu\"\n```\n\n"
      "以下是关键步骤的代码示例，不可直接拷贝运行，仅供参考。\n\n```python\nprof = …\n……\n```\n";
  write_file(dir / "docs/api/demo.md", page);
  const json out = review_axis(dir, "operable");
  INFO(dump_findings(out));
  const auto syntax = findings(out, "python-syntax");
  REQUIRE(syntax.size() == 1);
  // The line of "if x" on the page.
  const auto if_line = std::count(page.begin(), page.begin() + page.find("if x\n"), '\n') + 1;
  CHECK(syntax[0].at("line") == if_line);
  CHECK(findings(out, "example-keyword-not-in-code").size() == 1);
  CHECK(findings(out, "example-api-not-in-code").size() == 1);
  CHECK(findings(out, "mislabelled-code-block").size() == 1);
  CHECK(skipped_has(out, "marks as fragments"));
  CHECK(out.at("python").is_string());
}

TEST_CASE("operable: imports against a torch_npu checkout, scripts against the checkout",
          "[doc-review][checks]") {
  TempDir dir("imports");
  write_file(dir / "code/torch_npu/__init__.py", "from .npu import utils\n");
  write_file(dir / "code/torch_npu/npu/__init__.py", "from .utils import set_device\n");
  write_file(dir / "code/torch_npu/npu/utils.py", "def set_device(device):\n    pass\n");
  write_file(dir / "code/ci/build.sh", "#!/bin/sh\n");
  write_file(
      dir / "docs/README.md",
      "# Use\n\n```python\nimport torch_npu.npu.utils\nfrom torch_npu.npu import set_device, "
      "get_thing\nfrom torch_npu.contrib import transfer_to_npu\n"
      "torch_npu.npu.set_device(device=0)\ntorch_npu.npu.set_device(dev=0)\n```\n\n"
      "```bash\nbash ci/build.sh\nbash ci/missing.sh\npython3 train.py\n```\n");
  const json out = review_axis(dir, "operable");
  INFO(dump_findings(out));
  const auto imports = findings(out, "example-import-not-in-code");
  REQUIRE(imports.size() == 2);                                     // get_thing, torch_npu.contrib
  CHECK(findings(out, "example-keyword-not-in-code").size() == 1);  // dev=
  const auto scripts = findings(out, "script-not-in-checkout");
  REQUIRE(scripts.size() == 1);
  CHECK(scripts[0].at("message").get<std::string>().find("ci/missing.sh") != std::string::npos);
}

TEST_CASE("operable on real pages: doctests and printed output parse as intended",
          "[doc-review][checks]") {
  const json out = review({{"docs", (data_dir() / "op-plugin/docs").string()},
                           {"code", (data_dir() / "op-plugin").string()},
                           {"axes", {"operable"}}});
  INFO(dump_findings(out));
  CHECK(out.at("findings").empty());
  CHECK(skipped_has(out, "output printed inside Python examples"));
}

TEST_CASE("learnable: terms before their definition, steps without a result, setup pages",
          "[doc-review][checks]") {
  TempDir dir("learnable");
  write_clean_tree(dir);
  write_file(dir / "docs/api/demo.md",
             "# Demo\n\n使用HCCL进行通信。\n\n更多内容。\n\n集合通信库（HCCL，Huawei Collective "
             "Communication Library）提供通信能力。GE (Graph Engine) 会编译图。\n\n"
             "计算高斯误差线性单元（GELU）。\n\n图中是GELU (Gaussian Error Linear Unit)。\n\n"
             "模块名称（例如“RTS”）。\n\n**图 3** 日志示例（RTS）\n");
  write_file(dir / "docs/install.md",
             "# 安装指南\n\n1. 下载。\n\n    ```bash\n    wget x\n    ```\n\n2. 安装。\n\n"
             "    ```bash\n    pip3 install x\n    ```\n\n## 其他\n\n内容。\n");
  const json out = review_axis(dir, "learnable");
  INFO(dump_findings(out));
  const auto terms = findings(out, "term-before-definition");
  REQUIRE(terms.size() == 1);
  CHECK(terms[0].at("line") == 3);
  CHECK(terms[0].at("message").get<std::string>().find("HCCL") != std::string::npos);
  const auto steps = findings(out, "steps-without-result");
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].at("line") == 3);
  CHECK(findings(out, "missing-prerequisites").size() == 1);
  CHECK(findings(out, "missing-version-note").size() == 1);
}

TEST_CASE("learnable on real torch_npu pages: only the steps that never say what success shows",
          "[doc-review][checks]") {
  const json out =
      review({{"docs", (data_dir() / "torch_npu/docs").string()}, {"axes", {"learnable"}}});
  INFO(dump_findings(out));
  const auto steps = findings(out, "steps-without-result");
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].at("page").get<std::string>().find("configuring_pip_source") != std::string::npos);
  CHECK(out.at("findings").size() == 1);
}

TEST_CASE("readable: broken tables, unclosed fences, mixed headings, long sentences",
          "[doc-review][checks]") {
  TempDir dir("readable");
  write_clean_tree(dir);
  std::string sentence;
  for (int k = 0; k < 130; ++k) sentence += "长";
  write_file(dir / "docs/api/demo.md",
             "# Demo\n\n## 安装 the package for training\n\n## 采集timeline和summary数据\n\n"
             "| a | b |\n|---|---|\n| 1 | 2 | 3 |\n| 1 |\n\n" +
                 sentence + "。短句。\n\nShort sentence.\n\n```python\nx = 1\n");
  const json out = review_axis(dir, "readable");
  INFO(dump_findings(out));
  const auto tables = findings(out, "broken-table");
  REQUIRE(tables.size() == 1);
  CHECK(tables[0].at("line") == 9);
  CHECK(tables[0].at("message").get<std::string>().find("2 row(s)") != std::string::npos);
  const auto headings = findings(out, "mixed-language-heading");
  REQUIRE(headings.size() == 1);
  CHECK(headings[0].at("line") == 3);
  const auto sentences = findings(out, "long-sentence");
  REQUIRE(sentences.size() == 1);
  CHECK(sentences[0].at("message").get<std::string>().find("130 units") != std::string::npos);
  CHECK(findings(out, "unclosed-code-fence").size() == 1);
  // The threshold is the caller's to set.
  const json strict = review(
      {{"docs", (dir / "docs").string()}, {"axes", {"readable"}}, {"long_sentence_units", 200}});
  CHECK(findings(strict, "long-sentence").empty());
}

TEST_CASE("readable on real pages: the torch_npu and op-plugin pages read cleanly",
          "[doc-review][checks]") {
  for (const char* tree : {"op-plugin/docs", "torch_npu/docs"}) {
    const json out = review({{"docs", (data_dir() / tree).string()}, {"axes", {"readable"}}});
    INFO(tree << "\n" << dump_findings(out));
    CHECK(findings(out, "broken-table").empty());
    CHECK(findings(out, "mixed-language-heading").empty());
    CHECK(findings(out, "unclosed-code-fence").empty());
  }
}
