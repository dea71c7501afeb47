// Triage scenarios: synthetic pairs and logs that reproduce the real phenomena (fp16 overflow,
// TF32/HF32 matmul loss, reduction-order noise, nondeterministic scatter, integer and shape
// mismatches, crash logs, memory) must reach the right exit, by the right rule, with evidence.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>

#include "analysis.hpp"
#include "test_support.hpp"
#include "triage.hpp"

using apic_test::TempDir;
using nlohmann::json;

namespace {

// Generated once per process; each TEST_CASE runs one scenario through the request path.
struct Scenarios {
  TempDir dir{"scenarios"};
  std::map<std::string, json> by_id;
  Scenarios() {
    const int rc = apic_test::python(apic_test::test_dir() + "/data/make_scenarios.py", dir.str(),
                                     dir / "log.txt");
    INFO(apic_test::read_file(dir / "log.txt"));
    REQUIRE(rc == 0);
    for (const auto& s : json::parse(apic_test::read_file(dir / "scenarios.json"))) {
      by_id[s["id"].get<std::string>()] = s;
    }
  }
};

Scenarios& scenarios() {
  static Scenarios s;
  return s;
}

void check_scenario(const std::string& id) {
  Scenarios& s = scenarios();
  REQUIRE(s.by_id.count(id) == 1);
  const json& sc = s.by_id[id];
  json manifest{{"cases", json::array({sc["case"]})}};
  std::ofstream(s.dir / (id + ".manifest.json")) << manifest.dump();
  const json out = skillrt::apic::run_request({{"manifest", s.dir / (id + ".manifest.json")}},
                                              skillrt::apic::embedded_knowledge(), {});
  const json& c = out["cases"][0];
  INFO(c.dump(1).substr(0, 6000));
  REQUIRE(c["status"] == "ok");
  const json& t = c["triage"];
  const json& want = sc["expect"];
  CHECK(t["symptom"] == want["symptom"]);
  CHECK(t["exit"] == want["exit"]);
  CHECK(t["decided_by"] == want["rule"]);
  // Evidence: the deciding rule is among those fired, with the numbers its conditions saw.
  bool listed = false;
  for (const auto& r : t["rules_fired"]) {
    if (r["id"] != want["rule"]) continue;
    listed = true;
    REQUIRE(!r["conditions"].empty());
    for (const auto& cond : r["conditions"]) CHECK(cond.contains("value"));
  }
  CHECK(listed);
  if (want.contains("operator")) {
    REQUIRE(t["operator"].is_object());
    CHECK(t["operator"]["operator"] == want["operator"]);
    CHECK(!t["operator"]["evidence"].get<std::string>().empty());
  }
  if (want.contains("evidence")) {
    CHECK(t.dump().find(want["evidence"].get<std::string>()) != std::string::npos);
  }
}

}  // namespace

#define APIC_SCENARIO(ID) \
  TEST_CASE("triage scenario: " ID) { check_scenario(ID); }

APIC_SCENARIO("fp16_overflow_intermediate")
APIC_SCENARIO("fp16_out_of_range")
APIC_SCENARIO("tf32_matmul_cuda")
APIC_SCENARIO("hf32_matmul_910b")
APIC_SCENARIO("fp32_matmul_910a")
APIC_SCENARIO("matmul_910b_no_hf32")
APIC_SCENARIO("reduction_order_noise")
APIC_SCENARIO("scatter_add_nondeterministic")
APIC_SCENARIO("scatter_add_deterministic_requested")
APIC_SCENARIO("gelu_runs_differ")
APIC_SCENARIO("sum_runs_rounding")
APIC_SCENARIO("argmax_integer_mismatch")
APIC_SCENARIO("shape_mismatch")
APIC_SCENARIO("dtype_promotion")
APIC_SCENARIO("crash_aclnn_log")
APIC_SCENARIO("crash_missing_binary")
APIC_SCENARIO("fallback_dispatch")
APIC_SCENARIO("invalid_argument_code")
APIC_SCENARIO("memory_overhead")
APIC_SCENARIO("memory_internal_format")
APIC_SCENARIO("oom_batch_size")
APIC_SCENARIO("golden_nan")
APIC_SCENARIO("biased_wrong_result")
APIC_SCENARIO("consistent")
APIC_SCENARIO("nz_format_precision")
APIC_SCENARIO("segfault_unattributed")
APIC_SCENARIO("per_op_dumps")

TEST_CASE("triage: the rule file parses and every rule names a known exit") {
  const auto& k = skillrt::apic::embedded_knowledge();
  CHECK(k.rules.rules.size() >= 20);
  CHECK(k.rules.default_chip == "Ascend910B");
  CHECK_THROWS_WITH(skillrt::apic::load_rules("symptoms: []\nrules:\n  - {id: X, symptom: p, exit: "
                                              "maybe, when: ['a == 1']}\n",
                                              "bad.yaml"),
                    Catch::Contains("bad.yaml") && Catch::Contains("'X'"));
  CHECK_THROWS_WITH(skillrt::apic::load_rules("symptoms: []\nrules:\n  - {id: Y, symptom: p, exit: "
                                              "operator, when: ['a =~ 1']}\n",
                                              "bad.yaml"),
                    Catch::Contains("'a =~ 1'"));
}

namespace {

// The condition of `rule` on `fact` in a triage result, or null.
json condition_of(const json& triage, const std::string& rule, const std::string& fact) {
  for (const auto& r : triage["rules_fired"]) {
    if (r["id"] != rule) continue;
    for (const auto& c : r["conditions"]) {
      if (c["condition"].get<std::string>().rfind(fact + " ", 0) == 0) return c;
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("triage: the chip's reduced-precision defaults decide, with their source as evidence") {
  // The same TF32-level matmul error is expected on Ascend910A (fp16 Cube) but not on Ascend910B,
  // where matmul HF32 is off by default: covered by fp32_matmul_910a and matmul_910b_no_hf32;
  // here the evidence names the path, the default and where it comes from.
  Scenarios& s = scenarios();
  json c = s.by_id["fp32_matmul_910a"]["case"];
  for (auto& key : {"expected", "actual"}) c[key] = s.dir / c[key].get<std::string>();
  json out = skillrt::apic::run_request(c, skillrt::apic::embedded_knowledge(), {});
  json cond =
      condition_of(out["cases"][0]["triage"], "R41-reduced-precision-matmul", "reduced_path_on");
  REQUIRE(cond.is_object());
  CHECK(cond["evidence"].get<std::string>().find("float16 Cube is on by default") !=
        std::string::npos);
  CHECK(cond["evidence"].get<std::string>().find("Ascend910A") != std::string::npos);
  // On Ascend910B a conv is on HF32 by default; the user's switch turns it off.
  c["chip"] = "Ascend910B";
  c["api"] = "torch.nn.functional.conv2d";
  out = skillrt::apic::run_request(c, skillrt::apic::embedded_knowledge(), {});
  CHECK(out["cases"][0]["triage"]["decided_by"] == "R41-reduced-precision-matmul");
  c["description"] = "torch.npu.conv.allow_hf32 = False";
  out = skillrt::apic::run_request(c, skillrt::apic::embedded_knowledge(), {});
  CHECK(out["cases"][0]["triage"]["exit"] == "operator");
}

TEST_CASE("triage: rule variants replace conditions and conclusion per chip") {
  const auto rules = skillrt::apic::load_rules(R"(
default_chip: A
symptoms:
  - {id: S, symptom: p, when: ["dtype == float32"]}
rules:
  - id: R
    symptom: p
    exit: not_defect
    conclusion: base
    when: ["dtype == float16"]
    variants:
      B: {when: ["dtype == float32"], conclusion: on B}
)",
                                               "variants.yaml");
  skillrt::apic::TriageInput in;
  in.primary = json{{"verdict", "fail"}, {"dtype", "float32"}};
  in.chip = "B";
  json t = skillrt::apic::triage(in, rules, skillrt::apic::embedded_knowledge().aclnn);
  CHECK(t["decided_by"] == "R");
  CHECK(t["conclusion"] == "on B");
  in.chip = "A";
  t = skillrt::apic::triage(in, rules, skillrt::apic::embedded_knowledge().aclnn);
  CHECK(t["exit"] == "undetermined");
}

TEST_CASE("aclnn map: declared exec names, inferred names and unknown APIs") {
  const auto& m = skillrt::apic::embedded_knowledge().aclnn;
  const json softmax = m.lookup("torch.softmax");
  CHECK(softmax["operator"] == "aclnnSoftmax");
  CHECK(softmax["confidence"] == "declared");
  CHECK(softmax["evidence"].get<std::string>().find("op_plugin_functions.yaml:") == 0);
  const json mm = m.lookup("torch.mm");
  CHECK(mm["confidence"] == "inferred");
  CHECK(m.lookup("torch.no_such_api").is_null());
}

TEST_CASE("triage: a description that matches no symptom stays undetermined and says why") {
  const json out = skillrt::apic::run_request(
      {{"api", "torch.matmul"}, {"description", "torch.matmul 在 NPU 上 fp16 结果和 CPU 差很多"}},
      skillrt::apic::embedded_knowledge(), {});
  const json& t = out["cases"][0]["triage"];
  CHECK(t["symptom"] == "unknown");
  CHECK(t["exit"] == "undetermined");
  CHECK(t["decided_by"].is_null());
  CHECK(t["next_steps"][0].get<std::string>().find("reproduce") != std::string::npos);
}
