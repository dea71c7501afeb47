// The reproduction generator: the script compiles, and run with device cpu it writes the .npy
// pairs, env.json and case.json that the compare step reads (float16 and bfloat16 included).
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis.hpp"
#include "repro.hpp"
#include "test_support.hpp"

using apic_test::TempDir;
using nlohmann::json;

namespace {

json run(const json& input) {
  return skillrt::apic::run_request(input, skillrt::apic::embedded_knowledge(), {});
}

int sh(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace

TEST_CASE("repro: generated scripts pass py_compile") {
  TempDir d("pycompile");
  const json reqs = json::array(
      {json{{"api", "torch.nn.functional.gelu"},
            {"args", json::array({json{{"shape", {4, 8}}, {"dtype", "float16"}}})},
            {"kwargs", json{{"approximate", "tanh"}}}},
       json{{"api", "torch_npu.npu_rotary_mul"},
            {"args", json::array({json{{"shape", {1, 2, 4, 8}}, {"dtype", "bfloat16"}},
                                  json{{"shape", {1, 1, 4, 8}}, {"dtype", "bfloat16"}},
                                  json{{"shape", {1, 1, 4, 8}}, {"dtype", "bfloat16"}}})},
            {"device", "npu"}},
       json{{"api", "torch.index_add"},
            {"args", json::array({json{{"shape", {5, 3}}}, 0,
                                  json{{"shape", {4}}, {"dtype", "int64"}, {"low", 0}, {"high", 5}},
                                  json{{"shape", {4, 3}}}})},
            {"runs", 3},
            {"device", "cuda"}}});
  int i = 0;
  for (const auto& r : reqs) {
    const std::string script = skillrt::apic::generate_reproduction(r);
    const std::string path = d / ("s" + std::to_string(++i) + ".py");
    std::ofstream(path) << script;
    INFO(script);
    CHECK(sh("/usr/bin/python3 -m py_compile '" + path + "' > '" + (d / "log") + "' 2>&1") == 0);
    CHECK(script.find("torch_npu") != std::string::npos);
  }
  CHECK_THROWS_AS(skillrt::apic::generate_reproduction({{"api", "os.system('x')"}}),
                  std::invalid_argument);
  CHECK_THROWS_AS(skillrt::apic::generate_reproduction(
                      {{"api", "torch.abs"},
                       {"args", json::array({json{{"shape", {2}}, {"dtype", "float17"}}})}}),
                  std::invalid_argument);
}

TEST_CASE("repro: run on device cpu, the case it writes compares and triages as consistent") {
  TempDir d("reprorun");
  struct Api {
    json request;
    std::string dtype;
  };
  const std::vector<Api> apis{
      {json{{"api", "torch.add"},
            {"args", json::array({json{{"shape", {3, 5}}, {"dtype", "bfloat16"}},
                                  json{{"shape", {3, 5}}, {"dtype", "bfloat16"}}})},
            {"kwargs", json{{"alpha", 2}}}},
       "bfloat16"},
      {json{{"api", "torch.abs"},
            {"args", json::array({json{{"shape", {16}}, {"dtype", "float16"}}})}},
       "float16"},
      {json{{"api", "torch.matmul"},
            {"args", json::array({json{{"shape", {4, 6}}}, json{{"shape", {6, 2}}}})}},
       "float32"},
      {json{{"api", "torch.argsort"},
            {"args", json::array({json{{"shape", {5, 9}}, {"low", 0}, {"high", 3}}})},
            {"kwargs", json{{"dim", 1}}}},
       "int64"}};
  int i = 0;
  for (const Api& api : apis) {
    json req = api.request;
    req["device"] = "cpu";
    req["seed"] = 3;
    const std::string out_dir = d / ("r" + std::to_string(++i));
    const json gen = run({{"reproduce", req}, {"output_dir", out_dir}});
    const std::string script = gen["reproduction"]["path"];
    const std::string case_dir = out_dir + "/repro_out";
    const int rc = sh("cd '" + out_dir + "' && /usr/bin/python3 '" + script +
                      "' --device cpu --out '" + case_dir + "' > '" + out_dir + "/run.log' 2>&1");
    INFO(apic_test::read_file(out_dir + "/run.log"));
    REQUIRE(rc == 0);
    const json env = json::parse(apic_test::read_file(case_dir + "/env.json"));
    CHECK(env.contains("torch"));
    CHECK(env.contains("torch_npu"));
    CHECK(env.contains("cann"));
    const json out = run({{"case", case_dir + "/case.json"}});
    const json& c = out["cases"][0];
    INFO(c.dump(1).substr(0, 4000));
    REQUIRE(c["status"] == "ok");
    CHECK(c["tensors"][0]["dtype"] == api.dtype);
    CHECK(c["verdict"] == "pass");
    CHECK(c["runs"]["differ"] == false);
    CHECK(c["triage"]["exit"] == "not_defect");
    CHECK(c["environment"]["device"] == "cpu");
    // The inputs are saved beside the outputs, so the triage can gather, multiply or evaluate.
    const json case_file = json::parse(apic_test::read_file(case_dir + "/case.json"));
    CHECK(case_file["inputs"].contains("input"));
    if (api.request["api"] == "torch.argsort") CHECK(case_file["dim"] == 1);
  }
}
