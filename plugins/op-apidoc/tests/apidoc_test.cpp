#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "apidoc.hpp"

using skillrt::Json;

namespace {

const char* kSchema =
    "npu_demo_norm(Tensor x, Tensor gamma, float epsilon=1e-06, *, int axis=-1, bool "
    "keep_dims=False) -> (Tensor y, Tensor rstd)";

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

size_t find_line(const std::vector<std::string>& lines, const std::string& needle) {
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find(needle) != std::string::npos) return i;
  FAIL("no line contains " << needle);
  return 0;
}

std::string page(const std::string& language) {
  return skillrt::op_apidoc::run_generate(
             {{"mode", "generate"}, {"schema", kSchema}, {"language", language}})
      .at("doc")
      .at("content")
      .get<std::string>();
}

// Generated pages follow the house template, so its checks are on.
Json check(const std::string& text) {
  return skillrt::op_apidoc::run_check(
      {{"mode", "check"}, {"schema", kSchema}, {"doc_text", text}, {"template", true}});
}

}  // namespace

TEST_CASE("generated pages pass their own check, zh and en", "[op-apidoc]") {
  for (const char* lang : {"zh", "en"}) {
    const std::string text = page(lang);
    const Json out = check(text);
    INFO(text << out.dump(2));
    CHECK(out.at("findings").empty());
  }
}

TEST_CASE("generate: house template, prototype from the schema, placeholders marked",
          "[op-apidoc]") {
  const Json out = skillrt::op_apidoc::run_generate(
      {{"mode", "generate"},
       {"schema", kSchema},
       {"facts",
        {{"summary", "RmsNorm 归一化"},
         {"params",
          {{"x", {{"description", "输入", "dtypes"}, {"dtypes", "float16、bfloat16"}}}}}}}});
  const auto lines = split(out.at("doc").at("content").get<std::string>());
  CHECK(lines[0] == "# torch_npu.npu_demo_norm");
  const char* order[] = {"## 产品支持情况", "## 功能说明", "## 函数原型", "## 参数说明",
                         "## 返回值说明",   "## 约束说明", "## 调用示例"};
  size_t last = 0;
  for (const char* h : order) {
    const size_t at = find_line(lines, h);
    CHECK(at > last);
    last = at;
  }
  CHECK(find_line(lines,
                  "torch_npu.npu_demo_norm(x, gamma, epsilon=1e-06, *, axis=-1, keep_dims=False) "
                  "-> (Tensor, Tensor)") > 0);
  CHECK(find_line(lines, "- **\\***") > 0);
  CHECK(find_line(lines, "图模式调用") > 0);
  CHECK(find_line(lines, "get_npu_backend") > 0);
  CHECK(out.at("doc").at("path") == "docs/zh/custom_APIs/torch_npu/torch_npu-npu_demo_norm.md");
  // Every placeholder is on the line it names.
  REQUIRE_FALSE(out.at("placeholders").empty());
  for (const auto& p : out.at("placeholders"))
    CHECK(lines[p.at("line").get<size_t>() - 1].find("【待补充】") != std::string::npos);
  CHECK(lines[find_line(lines, "API功能")].find("RmsNorm") != std::string::npos);
}

TEST_CASE("check finds each planted fault on its line", "[op-apidoc]") {
  struct Fault {
    const char* name;
    const char* find;     // the line to edit
    const char* replace;  // its new text ("" deletes the line)
    const char* kind;
  };
  const Fault faults[] = {
      {"missing parameter", "- **gamma** (`Tensor`)", "", "missing-parameter"},
      {"extra parameter", "- **x** (`Tensor`)",
       "- **x** (`Tensor`)：必选参数。\n- **bias** (`Tensor`)：可选参数。", "extra-parameter"},
      {"misnamed parameter", "- **keep_dims** (`bool`)",
       "- **keepdims** (`bool`)：可选参数。默认值为False。", "misnamed-parameter"},
      {"wrong default in list", "- **epsilon** (`float`)",
       "- **epsilon** (`float`)：可选参数。默认值为1e-05。", "wrong-default"},
      {"wrong type", "- **axis** (`int`)", "- **axis** (`float`)：可选参数。默认值为-1。",
       "wrong-type"},
      {"wrong default in prototype", "torch_npu.npu_demo_norm(x, gamma, epsilon=1e-06",
       "torch_npu.npu_demo_norm(x, gamma, epsilon=1e-05, *, axis=-1, keep_dims=False) -> (Tensor, "
       "Tensor)",
       "wrong-default"},
      {"keyword-only moved", "torch_npu.npu_demo_norm(x, gamma, epsilon=1e-06",
       "torch_npu.npu_demo_norm(x, gamma, epsilon=1e-06, axis=-1, *, keep_dims=False) -> (Tensor, "
       "Tensor)",
       "keyword-only"},
      {"prototype misnamed", "torch_npu.npu_demo_norm(x, gamma, epsilon=1e-06",
       "torch_npu.npu_demo_norm(x, gama, epsilon=1e-06, *, axis=-1, keep_dims=False) -> (Tensor, "
       "Tensor)",
       "misnamed-parameter"},
      {"missing section", "## 约束说明", "", "missing-section"},
      {"missing returns section", "## 返回值说明", "", "missing-section"},
      {"example unknown keyword", "    result = torch_npu.npu_demo_norm(x, gamma)",
       "    result = torch_npu.npu_demo_norm(x, gamma, eps=1e-5)", "example"},
      {"example missing argument", "            return torch_npu.npu_demo_norm(x, gamma)",
       "            return torch_npu.npu_demo_norm(x)", "example"},
      {"title", "# torch_npu.npu_demo_norm", "# torch_npu.npu_demo_norm_v2", "title"},
  };
  const auto base = split(page("zh"));
  for (const Fault& f : faults) {
    SECTION(f.name) {
      auto lines = base;
      const size_t at = find_line(lines, f.find);
      size_t expected_line = at + 1;
      if (std::string(f.replace).empty()) {
        lines.erase(lines.begin() + static_cast<long>(at));
        if (std::string(f.kind) == "missing-section") {
          // Reported at the heading that now follows the gap.
          expected_line = at + 1;
          while (lines[expected_line - 1].rfind("## ", 0) != 0) ++expected_line;
        } else {
          // A missing bullet is reported at the section heading.
          expected_line = find_line(lines, "## 参数说明") + 1;
        }
      } else {
        lines[at] = f.replace;
      }
      const std::string text = join(lines);
      // Re-split: a replacement may hold two lines.
      const Json out = check(text);
      INFO(text << "\n" << out.dump(2));
      bool hit = false;
      for (const auto& finding : out.at("findings"))
        hit = hit || (finding.at("kind") == f.kind &&
                      finding.at("line") ==
                          expected_line + (std::string(f.kind) == "extra-parameter" ? 1 : 0));
      CHECK(hit);
    }
  }
}

TEST_CASE("check: no page, bad schema", "[op-apidoc]") {
  CHECK_THROWS_WITH(skillrt::op_apidoc::run_check(
                        {{"mode", "check"}, {"schema", kSchema}, {"doc", "/nonexistent.md"}}),
                    Catch::Contains("field 'doc'"));
  CHECK_THROWS_WITH(skillrt::op_apidoc::run_check(
                        {{"mode", "check"}, {"schema", "f(Tensor x"}, {"doc_text", "# x"}}),
                    Catch::Contains("field 'schema'"));
}

TEST_CASE("generate: example code blocks are valid Python, also for a 'self' parameter",
          "[op-apidoc]") {
  const std::string text =
      skillrt::op_apidoc::run_generate(
          {{"mode", "generate"},
           {"schema",
            "npu_rms_norm(Tensor self, Tensor gamma, float epsilon=1e-06) -> (Tensor, Tensor)"}})
          .at("doc")
          .at("content")
          .get<std::string>();
  const auto lines = split(text);
  int blocks = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] != "    ```python") continue;
    std::string code;
    size_t k = i + 1;
    for (; k < lines.size() && lines[k] != "    ```"; ++k)
      code += (lines[k].size() > 4 ? lines[k].substr(4) : "") + "\n";
    const std::string path = "/tmp/op_apidoc_example_" + std::to_string(::getpid()) + "_" +
                             std::to_string(blocks++) + ".py";
    { std::ofstream(path) << code; }
    INFO(code);
    CHECK(
        std::system(
            ("/usr/bin/python3 -c \"import ast,sys; ast.parse(open(sys.argv[1]).read())\" " + path)
                .c_str()) == 0);
    i = k;
  }
  CHECK(blocks == 2);
}
