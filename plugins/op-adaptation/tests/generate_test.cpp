// generate and modify on copies of the fixture: 10 diverse ops generated, applied, verified
// clean and syntax-checked; dry runs write nothing; missing op-test/op-apidoc are reported.
#include <algorithm>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <set>

#include <skillrt/sdk.hpp>

#include "generate.hpp"
#include "skill.hpp"
#include "test_support.hpp"

using opa_test::FixtureCopy;
using skillrt::opa::Json;

namespace {

// Python parameter list of a schema without types: what an API page's prototype shows.
std::string python_params(const std::string& schema) {
  const size_t open = schema.find('(');
  const size_t close = schema.rfind(") ->");
  const std::string inner = schema.substr(open + 1, close - open - 1);
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  auto flush = [&] {
    const size_t eq = cur.find('=');
    std::string head = cur.substr(0, eq);
    while (!head.empty() && head.back() == ' ') head.pop_back();
    const std::string name = head.substr(head.rfind(' ') + 1);
    out.push_back(name + (eq == std::string::npos ? "" : cur.substr(eq)));
    cur.clear();
  };
  for (char c : inner) {
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      flush();
      continue;
    }
    if (c == ' ' && cur.empty()) continue;
    cur += c;
  }
  flush();
  std::string joined;
  for (size_t i = 0; i < out.size(); ++i) joined += (i ? ", " : "") + out[i];
  return joined;
}

// Stand-ins for the op-test and op-apidoc skills, answering in their agreed contract.
Json fake_skills(const std::string& skill, const Json& in) {
  const std::string schema = in.at("schema");
  const std::string name = schema.substr(0, schema.find_first_of("(."));
  if (skill == "op-test") {
    CHECK(in.at("device") == "npu");
    const std::string dir = name.rfind("npu_", 0) == 0 ? "test_custom_ops" : "test_base_ops";
    return {{"test_file",
             {{"path", "test/" + dir + "/test_" + name + ".py"},
              {"content", "import torch\n\n\ndef test_" + name + "():\n    assert torch\n"}}}};
  }
  if (skill == "op-apidoc" && in.value("mode", "") == "check") {
    return {{"findings", Json::array()}};  // the page written below agrees by construction
  }
  if (skill == "op-apidoc") {
    CHECK(in.at("language") == "zh");
    // As many returns as the schema has: "-> (Tensor, Tensor)" for a tuple.
    const std::string ret = schema.substr(schema.rfind("->") + 2);
    std::string returns = "Tensor";
    if (ret.find('(') != std::string::npos) {
      const size_t n = static_cast<size_t>(std::count(ret.begin(), ret.end(), ',')) + 1;
      returns = "(";
      for (size_t i = 0; i < n; ++i) returns += (i ? ", " : "") + std::string("Tensor");
      returns += ")";
    }
    return {{"doc",
             {{"path", "docs/zh/custom_APIs/torch_npu/torch_npu-" + name + ".md"},
              {"content", "# torch_npu." + name + "\n\n## 函数原型\n\n```python\ntorch_npu." +
                              name + "(" + python_params(schema) + ") -> " + returns +
                              "\n```\n"}}}};
  }
  throw std::runtime_error("unknown skill '" + skill + "'");
}

Json missing_skills(const std::string& skill, const Json&) {
  throw skillrt::SkillError(SKILLRT_NOT_FOUND, "unknown skill '" + skill + "'");
}

Json run(const Json& input, bool skills_present) {
  skillrt::opa::Services s;
  s.call_skill = skills_present ? &fake_skills : &missing_skills;
  return skillrt::opa::run_op_adaptation(input, s);
}

const std::vector<Json>& ten_specs() {
  static const std::vector<Json> k = {
      // keyword-only arguments, exposed, backward with the default formula
      {{"schema", "npu_demo_gate(Tensor x, *, int dim=-1, float alpha=1.0) -> Tensor"},
       {"aclnn", "aclnnDemoGate"},
       {"versions", {"v2.6", "newest"}},
       {"exposed", true},
       {"backward", Json::object()}},
      // multiple returns with their own dtypes, backward for two inputs
      {{"schema", "npu_demo_norm(Tensor x, Tensor gamma, float eps=1e-05) -> (Tensor, Tensor)"},
       {"aclnn", "aclnnDemoNorm"},
       {"outputs", {{{"size", "x"}, {"dtype", "x"}}, {{"size", "x"}, {"dtype", "at::kFloat"}}}},
       {"backward", {{"inputs", {"x", "gamma"}}, {"output_differentiability", {true, false}}}}},
      // in-place custom op with a Scalar
      {{"schema", "npu_demo_scale_(Tensor(a!) self, Scalar alpha=1) -> Tensor(a!)"},
       {"aclnn", "aclnnInplaceDemoScale"}},
      // official out overload
      {{"schema", "demo_abs2.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"},
       {"aclnn", "aclnnDemoAbs2"},
       {"versions", "all_version"}},
      // optional arguments
      {{"schema",
        "npu_demo_optional(Tensor x, Tensor? bias=None, int? group=None, float? scale=None) -> "
        "Tensor"},
       {"aclnn", "aclnnDemoOptional"}},
      // list arguments, output allocated from an expression
      {{"schema", "npu_demo_list(Tensor[] xs, int[] dims, int[]? sizes=None) -> Tensor"},
       {"aclnn", "aclnnDemoList"},
       {"outputs",
        {{{"size", "{xs[0].size(0), 4}"},
          {"dtype", "at::kFloat"},
          {"meta_shape", "(xs[0].shape[0], 4)"}}}}},
      // SymInt and SymInt[]
      {{"schema", "npu_demo_symint(Tensor x, SymInt[] size, SymInt n=1) -> Tensor"},
       {"aclnn", "aclnnDemoSymint"},
       {"versions", {"v2.1", "newest"}}},
      // strings and bools with defaults
      {{"schema", "npu_demo_str(Tensor x, str mode=\"rint\", bool flag=True) -> Tensor"},
       {"aclnn", "aclnnDemoStr"},
       {"exposed", {"v2.7", "newest"}},
       {"versions", {"v2.5", "newest"}}},
      // gen_opapi instead of a hand-written kernel
      {{"schema", "npu_demo_structured(Tensor x, Tensor y) -> Tensor"},
       {"aclnn", "aclnnDemoStructured"},
       {"structured", true}},
      // three returns, keyword-only dtype code, exposed on a range
      {{"schema",
        "npu_demo_multi(Tensor a, Tensor b, *, int dst_type=291) -> (Tensor, Tensor, Tensor)"},
       {"aclnn", "aclnnDemoMulti"},
       {"versions", {"v2.5", "newest"}},
       {"exposed", {"v2.6", "newest"}},
       {"chips", {"Ascend910B", "Ascend910_93"}}},
  };
  return k;
}

int shell(const std::string& cmd) {
  const int status = std::system((cmd + " > /dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("generate: 10 diverse ops applied, verify clean, C++ and Python pass syntax checks") {
  FixtureCopy fx;
  std::vector<std::string> ops;
  for (const Json& spec : ten_specs()) {
    const Json out = run(
        {{"mode", "generate"}, {"op_plugin", fx.root().string()}, {"spec", spec}, {"apply", true}},
        true);
    INFO(spec.dump() << "\n" << out.dump(2));
    CHECK(out["applied"] == true);
    CHECK(out["not_produced"].empty());
    CHECK(out["verify"]["clean"] == true);
    CHECK(out["verify"]["summary"]["errors"] == 0);
  }
  // The whole tree, all ops, old and new together.
  const auto all = fx.verify({});
  INFO(opa_test::describe(all));
  CHECK(all.findings.empty());
  CHECK(all.ops_checked.size() == 12 + 10 + 2);  // two backward ops
  // Generated kernels against the stand-in headers; the Meta file with the system Python.
  size_t kernels = 0;
  for (const auto& e : opa_test::fs::directory_iterator(fx.root() / "op_plugin/ops/opapi")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("Demo", 0) != 0) continue;
    ++kernels;
    INFO(name);
    CHECK(shell("g++ -std=c++17 -fsyntax-only -Wall -Werror -I" + opa_test::kData + "/stubs " +
                e.path().string()) == 0);
  }
  CHECK(kernels == 11);  // 9 hand-written forwards (the tenth is gen_opapi) + 2 backwards
  CHECK(shell("/usr/bin/python3 -m py_compile " +
              (fx.root() / "op_plugin/python/meta/_meta_registrations.py").string()) == 0);
  // Beyond syntax: the generated Meta kernels run under torch's dispatcher with every argument
  // passed (keyword-only by name) and return the schema's number of outputs.
  CHECK(shell("/usr/bin/python3 " + opa_test::kData + "/meta_runtime_check.py " +
              fx.root().string() +
              " npu_demo_gate npu_demo_gate_backward npu_demo_norm npu_demo_norm_backward "
              "npu_demo_scale_ npu_demo_optional npu_demo_list npu_demo_symint npu_demo_str "
              "npu_demo_multi") == 0);
  const std::string yaml = fx.read("op_plugin/config/op_plugin_functions.yaml");
  CHECK(yaml.find("gen_opapi:\n      out:\n        size: x\n        dtype: x\n      exec: "
                  "aclnnDemoStructured") != std::string::npos);
  CHECK(yaml.find("symint:\n  - func: embedding") != std::string::npos);
  CHECK(yaml.find("  - func: npu_demo_symint(Tensor x, SymInt[] size, SymInt n=1) -> Tensor\n    "
                  "op_api: [v2.1, newest]\n") != std::string::npos);
  const std::string meta = fx.read("op_plugin/python/meta/_meta_registrations.py");
  CHECK(meta.find("def npu_demo_multi_meta(a, b, *, dst_type=291):") != std::string::npos);
}

TEST_CASE("generate: the dry run writes nothing and returns the patch and the verify result") {
  FixtureCopy fx;
  const std::string before = fx.read("op_plugin/config/op_plugin_functions.yaml");
  const Json out = run(
      {{"mode", "generate"}, {"op_plugin", fx.root().string()}, {"spec", ten_specs()[0]}}, true);
  CHECK(out["applied"] == false);
  CHECK(fx.read("op_plugin/config/op_plugin_functions.yaml") == before);
  CHECK_FALSE(opa_test::fs::exists(fx.root() / "op_plugin/ops/opapi/DemoGateKernelNpuOpApi.cpp"));
  const std::string patch = out["patch"];
  CHECK(patch.find("+++ b/op_plugin/ops/opapi/DemoGateKernelNpuOpApi.cpp") != std::string::npos);
  CHECK(
      patch.find("+  - func: npu_demo_gate(Tensor x, *, int dim=-1, float alpha=1.0) -> Tensor") !=
      std::string::npos);
  CHECK(patch.find("+  x: npu_demo_gate_backward(grad, x, dim, alpha)") != std::string::npos);
  CHECK(out["verify"]["clean"] == true);
  // The patch is a real one: git applies it to the untouched checkout.
  std::ofstream(fx.root() / "gen.diff") << patch;
  CHECK(shell("cd '" + fx.root().string() + "' && git init -q . && git apply --check gen.diff") ==
        0);
}

TEST_CASE("modify: refuses a change that leaves exposed versions without a kernel") {
  FixtureCopy fx;
  CHECK_THROWS_WITH(run({{"mode", "modify"},
                         {"op_plugin", fx.root().string()},
                         {"op", "npu_rms_norm"},
                         {"changes", {{"op_api", {"v2.3", "newest"}}}}},
                        true),
                    Catch::Contains("exposed includes v2.1") && Catch::Contains("changes.exposed"));
}

TEST_CASE("generate: without op-test and op-apidoc it says which parts are missing, no stubs") {
  FixtureCopy fx;
  const Json out = run({{"mode", "generate"},
                        {"op_plugin", fx.root().string()},
                        {"spec", ten_specs()[0]},
                        {"apply", true}},
                       false);
  REQUIRE(out["not_produced"].size() == 2);
  CHECK(out["not_produced"][0]["part"].get<std::string>().find("unit test") == 0);
  CHECK(out["not_produced"][0]["reason"].get<std::string>().find("op-test") != std::string::npos);
  CHECK(out["not_produced"][1]["part"].get<std::string>().find("API doc") == 0);
  CHECK_FALSE(opa_test::fs::exists(fx.root() / "test/test_custom_ops/test_npu_demo_gate.py"));
  // verify names exactly those two gaps and nothing else.
  std::set<std::string> rules;
  for (const Json& f : out["verify"]["findings"]) rules.insert(f["rule"].get<std::string>());
  CHECK(rules == std::set<std::string>{"test.missing", "doc.missing"});
  CHECK(out["verify"]["summary"]["errors"] == 0);
}

TEST_CASE("generate: rejects an existing op and a bad schema with the field named") {
  FixtureCopy fx;
  Json spec = {{"schema",
                "npu_rms_norm(Tensor self, Tensor gamma, float epsilon=1e-06) -> (Tensor, Tensor)"},
               {"aclnn", "aclnnRmsNorm"}};
  CHECK_THROWS_WITH(
      run({{"mode", "generate"}, {"op_plugin", fx.root().string()}, {"spec", spec}}, true),
      Catch::Contains("already exists") && Catch::Contains("modify"));
  spec["schema"] = "npu_bad(Tensor x, -> Tensor";
  CHECK_THROWS_WITH(
      run({{"mode", "generate"}, {"op_plugin", fx.root().string()}, {"spec", spec}}, true),
      Catch::Contains("spec.schema") && Catch::Contains("column"));
}

TEST_CASE(
    "modify: new version range and exposure keep YAML, derivatives, baseline, allowlist in step") {
  FixtureCopy fx;
  const Json out =
      run({{"mode", "modify"},
           {"op_plugin", fx.root().string()},
           {"op", "npu_rms_norm"},
           {"apply", true},
           {"changes", {{"op_api", {"v2.3", "newest"}}, {"exposed", {"v2.5", "newest"}}}}},
          true);
  INFO(out.dump(2));
  CHECK(out["verify"]["clean"] == true);
  CHECK(out["files"].size() == 4);
  CHECK(fx.read("op_plugin/config/op_plugin_functions.yaml")
            .find("    op_api: [v2.3, newest]\n    exposed: [v2.5, newest]\n") !=
        std::string::npos);
  CHECK(fx.read("op_plugin/config/derivatives.yaml").find("  version: [v2.3, newest]") !=
        std::string::npos);
  const Json allow = Json::parse(fx.read("test/allowlist_for_publicAPI.json"));
  CHECK(allow["torch_npu"]["all_version"].empty());
  CHECK(allow["torch_npu"]["v2.5"] == Json::array({"npu_rms_norm"}));
  const Json base = Json::parse(fx.read("test/core_tests/torch_npu_OpApi_schema_all.json"));
  CHECK(
      base["func: npu_rms_norm(Tensor self, Tensor gamma, float epsilon=1e-06) -> (Tensor, Tensor)"]
          ["version"] == Json::array({"v2.3", "newest"}));
  CHECK(fx.verify({}).findings.empty());
}

TEST_CASE("modify: a new op_api backend gets a kernel, or is reported missing") {
  FixtureCopy fx;
  // embedding as an acl_op-only op first, then op_api added back with an aclnn name.
  fx.replace("op_plugin/config/op_plugin_functions.yaml",
             "sparse=False) -> Tensor\n    op_api: [v2.1, newest]\n\ncustom:",
             "sparse=False) -> Tensor\n    acl_op: [v2.1, newest]\n\ncustom:");
  fx.remove("op_plugin/ops/opapi/EmbeddingKernelNpuOpApi.cpp");
  const Json without = run({{"mode", "modify"},
                            {"op_plugin", fx.root().string()},
                            {"op", "embedding"},
                            {"changes", {{"op_api", {"v2.5", "newest"}}}}},
                           true);
  REQUIRE(without["not_produced"].size() == 1);
  CHECK(without["not_produced"][0]["reason"].get<std::string>().find("changes.aclnn") !=
        std::string::npos);
  const Json with =
      run({{"mode", "modify"},
           {"op_plugin", fx.root().string()},
           {"op", "embedding"},
           {"changes", {{"op_api", {"v2.5", "newest"}}, {"aclnn", "aclnnEmbedding"}}}},
          true);
  CHECK(with["not_produced"].empty());
  CHECK(with["patch"].get<std::string>().find("+at::Tensor embedding_symint(") !=
        std::string::npos);
  // acl_op has no kernel in the fixture for embedding: verify says so, and only that.
  std::set<std::string> rules;
  for (const Json& f : with["verify"]["findings"]) rules.insert(f["rule"].get<std::string>());
  CHECK(rules == std::set<std::string>{"cpp.missing"});
}

TEST_CASE("apply: never writes outside the checkout") {
  FixtureCopy fx;
  skillrt::opa::ChangeSet set;
  skillrt::opa::Change c;
  c.path = "../escape.txt";
  c.after = "x";
  c.is_new = true;
  set.changes.push_back(c);
  CHECK_THROWS_WITH(skillrt::opa::apply_changes(fx.root().string(), set),
                    Catch::Contains("outside"));
  CHECK_FALSE(opa_test::fs::exists(fx.root().parent_path() / "escape.txt"));
}
