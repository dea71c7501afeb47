// verify: the fixture is clean, and each planted inconsistency is reported with the right rule,
// severity and file to change (one case per kind).
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include "test_support.hpp"

using opa_test::FixtureCopy;

namespace {

const std::string kYaml = "op_plugin/config/op_plugin_functions.yaml";
const std::string kDeriv = "op_plugin/config/derivatives.yaml";
const std::string kMeta = "op_plugin/python/meta/_meta_registrations.py";
const std::string kBaseline = "test/core_tests/torch_npu_OpApi_schema_all.json";
const std::string kAllow = "test/allowlist_for_publicAPI.json";
const std::string kRmsDoc = "docs/zh/custom_APIs/torch_npu/torch_npu-npu_rms_norm.md";

// Exactly the expected finding exists: rule, severity, op and the file to change; and nothing
// at error level that the edit did not cause is hidden behind it.
void expect(const skillrt::opa::VerifyResult& r, const std::string& rule,
            const std::string& severity, const std::string& op, const std::string& change) {
  INFO(opa_test::describe(r));
  const auto hits = opa_test::with_rule(r, rule);
  REQUIRE_FALSE(hits.empty());
  bool matched = false;
  for (const auto& f : hits) {
    if (f.op == op && f.severity == severity && f.change == change) matched = true;
  }
  CHECK(matched);
}

}  // namespace

TEST_CASE("verify: the mini fixture is clean for all ops") {
  FixtureCopy fx;
  const auto r = fx.verify({});
  INFO(opa_test::describe(r));
  CHECK(r.findings.empty());
  CHECK(r.ops_checked.size() == 12);
  CHECK(r.checks_skipped.empty());
}

TEST_CASE("verify: an unknown op name is an error with the nearest names") {
  FixtureCopy fx;
  const auto r = fx.verify({"npu_rms_nrom"});
  expect(r, "op.unknown", "error", "npu_rms_nrom", kYaml);
  CHECK(r.findings.front().message.find("npu_rms_norm") != std::string::npos);
}

TEST_CASE("verify kind yaml.schema_parse") {
  FixtureCopy fx;
  fx.replace(kYaml, "npu_rotary_mul(Tensor self, Tensor r1,",
             "npu_rotary_mul(Tensor self Tensor r1,");
  expect(fx.verify({}), "yaml.schema_parse", "error", "npu_rotary_mul", kYaml);
}

TEST_CASE("verify kind yaml.version_invalid") {
  FixtureCopy fx;
  fx.replace(kYaml, "    op_api: all_version\n    exposed: all_version",
             "    op_api: [v2.1, v3.0]\n    exposed: all_version");
  const auto r = fx.verify({"npu_rms_norm"});
  expect(r, "yaml.version_invalid", "error", "npu_rms_norm", kYaml);
  CHECK(opa_test::with_rule(r, "yaml.version_invalid").front().found == "[v2.1, v3.0]");
}

TEST_CASE("verify kind yaml.no_backend") {
  FixtureCopy fx;
  fx.replace(kYaml, "-> Tensor[]\n    op_api: [v2.5, newest]\n", "-> Tensor[]\n");
  expect(fx.verify({"npu_grouped_matmul_demo"}), "yaml.no_backend", "error",
         "npu_grouped_matmul_demo", kYaml);
}

TEST_CASE("verify kind yaml.gen_opapi_without_op_api") {
  FixtureCopy fx;
  fx.replace(kYaml, "    op_api: [v2.6, newest]\n    exposed: [v2.6, newest]\n    gen_opapi",
             "    acl_op: [v2.6, newest]\n    exposed: [v2.6, newest]\n    gen_opapi");
  expect(fx.verify({"npu_clipped_swiglu"}), "yaml.gen_opapi_without_op_api", "error",
         "npu_clipped_swiglu", kYaml);
}

TEST_CASE("verify kind yaml.version_not_covered (exposed beyond the kernels)") {
  FixtureCopy fx;
  fx.replace(kYaml, "    op_api: all_version\n    exposed: all_version",
             "    op_api: [v2.3, newest]\n    exposed: all_version");
  const auto r = fx.verify({"npu_rms_norm"});
  expect(r, "yaml.version_not_covered", "error", "npu_rms_norm", kYaml);
  CHECK(opa_test::with_rule(r, "yaml.version_not_covered").front().found == "extra: v2.1, v2.2");
}

TEST_CASE("verify kind yaml.duplicate (same func, overlapping versions)") {
  FixtureCopy fx;
  fx.replace(
      kYaml, "\nsymint:",
      "\n  - func: npu_rotary_mul(Tensor self, Tensor r1, Tensor r2, str rotary_mode='half') "
      "-> Tensor\n    op_api: [v2.7, newest]\n\nsymint:");
  const auto r = fx.verify({"npu_rotary_mul"});
  expect(r, "yaml.duplicate", "error", "npu_rotary_mul", kYaml);
  CHECK(opa_test::with_rule(r, "yaml.duplicate").front().found == "both active in v2.7, v2.8");
}

TEST_CASE("verify kind yaml.section (symint entry without SymInt)") {
  FixtureCopy fx;
  fx.write(kYaml, fx.read(kYaml) +
                      "\n  - func: npu_rotary_mul(Tensor self, Tensor r1, Tensor r2, str "
                      "rotary_mode='half') -> Tensor\n    op_api: all_version\n");
  expect(fx.verify({"npu_rotary_mul"}), "yaml.section", "error", "npu_rotary_mul", kYaml);
}

TEST_CASE("verify kind gen_opapi.exec_arg") {
  FixtureCopy fx;
  fx.replace(kYaml, "alpha, limit, bias", "alpha, limits, bias");
  const auto r = fx.verify({"npu_clipped_swiglu"});
  expect(r, "gen_opapi.exec_arg", "error", "npu_clipped_swiglu", kYaml);
  CHECK(opa_test::with_rule(r, "gen_opapi.exec_arg").front().found == "limits");
}

TEST_CASE("verify kind gen_opapi.inherit_missing") {
  FixtureCopy fx;
  fx.replace(kYaml, "structured_inherit: abs.out", "structured_inherit: abs.outt");
  expect(fx.verify({"abs"}), "gen_opapi.inherit_missing", "error", "abs", kYaml);
}

TEST_CASE("verify kind gen_opapi.out_key (out overload keyed by another name)") {
  FixtureCopy fx;
  fx.replace(kYaml, "      out:\n        size: self", "      result:\n        size: self");
  expect(fx.verify({"abs.out"}), "gen_opapi.out_key", "error", "abs.out", kYaml);
}

TEST_CASE("verify kind cpp.missing") {
  FixtureCopy fx;
  fx.remove("op_plugin/ops/opapi/RotaryMulKernelNpuOpApi.cpp");
  const auto r = fx.verify({"npu_rotary_mul"});
  expect(r, "cpp.missing", "error", "npu_rotary_mul",
         "op_plugin/ops/opapi/RotaryMulKernelNpuOpApi.cpp");
}

TEST_CASE("verify kind cpp.param_type (float for a schema float, which maps to double)") {
  FixtureCopy fx;
  fx.replace("op_plugin/ops/opapi/RmsNormKernelNpuOpApi.cpp", "double epsilon", "float epsilon");
  const auto r = fx.verify({"npu_rms_norm"});
  expect(r, "cpp.param_type", "error", "npu_rms_norm",
         "op_plugin/ops/opapi/RmsNormKernelNpuOpApi.cpp");
  const auto f = opa_test::with_rule(r, "cpp.param_type").front();
  CHECK(f.expected.find("double epsilon") != std::string::npos);
  CHECK(f.found.find("float epsilon") != std::string::npos);
  CHECK(f.message.find("undefined reference") != std::string::npos);
  CHECK(f.where.line == 13);
}

TEST_CASE("verify kind cpp.param_type (const Tensor& for a Tensor(a!) argument)") {
  FixtureCopy fx;
  fx.replace("op_plugin/ops/opapi/ClampKernelNpuOpApi.cpp", "at::Tensor& clamp_(at::Tensor& self",
             "at::Tensor& clamp_(const at::Tensor& self");
  expect(fx.verify({"clamp_.Tensor"}), "cpp.param_type", "error", "clamp_.Tensor",
         "op_plugin/ops/opapi/ClampKernelNpuOpApi.cpp");
}

TEST_CASE("verify kind cpp.param_count") {
  FixtureCopy fx;
  fx.replace("op_plugin/ops/opapi/SwigluGroupQuantKernelNpuOpApi.cpp",
             "double dst_type_max, bool output_origin)", "double dst_type_max)");
  expect(fx.verify({"npu_swiglu_group_quant"}), "cpp.param_count", "error",
         "npu_swiglu_group_quant", "op_plugin/ops/opapi/SwigluGroupQuantKernelNpuOpApi.cpp");
}

TEST_CASE("verify kind cpp.symint_suffix") {
  FixtureCopy fx;
  fx.replace("op_plugin/ops/opapi/EmbeddingKernelNpuOpApi.cpp", "at::Tensor embedding_symint(",
             "at::Tensor embedding(");
  expect(fx.verify({"embedding"}), "cpp.symint_suffix", "error", "embedding",
         "op_plugin/ops/opapi/EmbeddingKernelNpuOpApi.cpp");
}

TEST_CASE("verify kind cpp.aclnn_mismatch (DO_COMPATIBILITY vs EXEC_NPU_CMD)") {
  FixtureCopy fx;
  fx.replace("op_plugin/ops/opapi/ClampKernelNpuOpApi.cpp",
             "DO_COMPATIBILITY(aclnnInplaceClampTensor", "DO_COMPATIBILITY(aclnnClampTensor");
  const auto r = fx.verify({"clamp_.Tensor"});
  expect(r, "cpp.aclnn_mismatch", "warning", "clamp_.Tensor",
         "op_plugin/ops/opapi/ClampKernelNpuOpApi.cpp");
  CHECK(opa_test::with_rule(r, "cpp.aclnn_mismatch").front().found == "aclnnClampTensor");
}

TEST_CASE("verify kind cpp.return_type") {
  FixtureCopy fx;
  fx.replace("op_plugin/ops/opapi/RotaryMulKernelNpuOpApi.cpp", "at::Tensor npu_rotary_mul(",
             "at::Tensor& npu_rotary_mul(");
  expect(fx.verify({"npu_rotary_mul"}), "cpp.return_type", "error", "npu_rotary_mul",
         "op_plugin/ops/opapi/RotaryMulKernelNpuOpApi.cpp");
}

TEST_CASE("verify kind cpp.unused_arg (a schema argument the kernel ignores)") {
  FixtureCopy fx;
  fx.replace("op_plugin/ops/opapi/SwigluGroupQuantKernelNpuOpApi.cpp",
             "static_cast<at::ScalarType>(dst_type)", "at::kByte");
  const auto r = fx.verify({"npu_swiglu_group_quant"});
  expect(r, "cpp.unused_arg", "warning", "npu_swiglu_group_quant",
         "op_plugin/ops/opapi/SwigluGroupQuantKernelNpuOpApi.cpp");
  CHECK(opa_test::with_rule(r, "cpp.unused_arg").size() == 1);
}

TEST_CASE("verify kind meta.param_renamed is a warning for a positional argument") {
  FixtureCopy fx;
  fx.replace(kMeta, "def npu_rotary_mul_meta(self,", "def npu_rotary_mul_meta(input_,");
  const auto r = fx.verify({"npu_rotary_mul"});
  expect(r, "meta.param_renamed", "warning", "npu_rotary_mul", kMeta);
  const auto f = opa_test::with_rule(r, "meta.param_renamed").front();
  CHECK(f.expected == "self");
  CHECK(f.found == "input_");
  CHECK(f.other.file == kYaml);
  CHECK(r.findings.size() == 1);
}

TEST_CASE("verify kind meta.default_mismatch: info when the Meta body never reads it") {
  FixtureCopy fx;
  fx.replace(kMeta, "dst_type=291", "dst_type=296");
  const auto r = fx.verify({"npu_swiglu_group_quant"});
  expect(r, "meta.default_mismatch", "info", "npu_swiglu_group_quant", kMeta);
  const auto f = opa_test::with_rule(r, "meta.default_mismatch").front();
  CHECK(f.expected == "291");
  CHECK(f.found == "296");
  CHECK(f.message.find("never reads") != std::string::npos);
}

TEST_CASE("verify kind meta.default_mismatch: warning when the Meta body computes with it") {
  FixtureCopy fx;
  // `dim` is read by the body: a call that leaves it at the schema's -1 makes the Meta halve
  // another axis.
  fx.replace(kMeta, "group_index=None, dim=-1, alpha", "group_index=None, dim=0, alpha");
  const auto r = fx.verify({"npu_clipped_swiglu"});
  expect(r, "meta.default_mismatch", "warning", "npu_clipped_swiglu", kMeta);
  const auto f = opa_test::with_rule(r, "meta.default_mismatch").front();
  CHECK(f.expected == "-1");
  CHECK(f.found == "0");
}

TEST_CASE("verify: equal defaults written differently are not a mismatch") {
  FixtureCopy fx;
  // 1e-06 in the schema, 1e-6 in the fixture's meta already; quotes differ for rotary_mode.
  fx.replace(kMeta, "def npu_rotary_mul_meta(self, r1, r2, rotary_mode='half')",
             "def npu_rotary_mul_meta(self, r1, r2, rotary_mode=\"half\")");
  CHECK(fx.verify({"npu_rotary_mul", "npu_rms_norm"}).findings.empty());
}

TEST_CASE("verify kind meta.kwarg_missing: a keyword-only argument the Meta function lacks") {
  FixtureCopy fx;
  fx.replace(kMeta, "group_index=None, scale=None, dst_type=291", "group_index=None, dst_type=291");
  const auto r = fx.verify({"npu_swiglu_group_quant"});
  expect(r, "meta.kwarg_missing", "error", "npu_swiglu_group_quant", kMeta);
  const auto f = opa_test::with_rule(r, "meta.kwarg_missing").front();
  CHECK(f.message.find("'scale'") != std::string::npos);
  CHECK(f.message.find("sets 'scale'") != std::string::npos);  // only calls that pass it
  CHECK(opa_test::with_rule(r, "meta.param_count").empty());   // the counts still bind
}

TEST_CASE("verify: a renamed keyword-only parameter is an error, the stray name a note") {
  FixtureCopy fx;
  fx.replace(kMeta, "limit=7.0", "limits=7.0");
  const auto r = fx.verify({"npu_clipped_swiglu"});
  expect(r, "meta.kwarg_missing", "error", "npu_clipped_swiglu", kMeta);
  expect(r, "meta.param_extra", "info", "npu_clipped_swiglu", kMeta);
}

TEST_CASE("verify kind meta.kwonly_split is info: a keyword-only argument still binds by name") {
  FixtureCopy fx;
  fx.replace(kMeta, "npu_clipped_swiglu_meta(x, *, group_index=None, dim=-1,",
             "npu_clipped_swiglu_meta(x, group_index=None, *, dim=-1,");
  const auto r = fx.verify({"npu_clipped_swiglu"});
  expect(r, "meta.kwonly_split", "info", "npu_clipped_swiglu", kMeta);
  CHECK(r.severity_counts[0] == 0);
}

TEST_CASE("verify kind meta.param_order is a warning: arguments bind by position") {
  FixtureCopy fx;
  fx.replace(kMeta, "(dy, self, gamma, rstd)", "(dy, self, rstd, gamma)");
  expect(fx.verify({"npu_rms_norm_backward"}), "meta.param_order", "warning",
         "npu_rms_norm_backward", kMeta);
}

TEST_CASE("verify kind meta.default_missing: the schema default the Meta function lacks") {
  FixtureCopy fx;
  fx.replace(kMeta, "limit=7.0", "limit");
  const auto r = fx.verify({"npu_clipped_swiglu"});
  expect(r, "meta.default_missing", "error", "npu_clipped_swiglu", kMeta);
  CHECK(opa_test::with_rule(r, "meta.default_missing").front().message.find("without 'limit'") !=
        std::string::npos);
}

TEST_CASE("verify kind meta.param_extra: a required Meta parameter no argument fills") {
  FixtureCopy fx;
  fx.replace(kMeta, "(dy, self, gamma, rstd)", "(dy, self, gamma, rstd, eps)");
  expect(fx.verify({"npu_rms_norm_backward"}), "meta.param_extra", "error", "npu_rms_norm_backward",
         kMeta);
}

TEST_CASE("verify kind meta.return_count") {
  FixtureCopy fx;
  fx.replace(kMeta, "torch.empty_like(r1), torch.empty_like(r2))", "torch.empty_like(r1))");
  const auto r = fx.verify({"npu_rotary_mul_backward"});
  expect(r, "meta.return_count", "error", "npu_rotary_mul_backward", kMeta);
  CHECK(opa_test::with_rule(r, "meta.return_count").front().found == "2");
}

TEST_CASE("verify kind meta.return_none") {
  FixtureCopy fx;
  fx.replace(kMeta, "    return x.new_empty(shape)\n", "    return None\n");
  expect(fx.verify({"npu_clipped_swiglu"}), "meta.return_none", "error", "npu_clipped_swiglu",
         kMeta);
}

TEST_CASE("verify kind meta.missing (custom op without Meta registration)") {
  FixtureCopy fx;
  fx.replace(kMeta, "@impl(m, \"npu_rotary_mul\")\n", "");
  expect(fx.verify({"npu_rotary_mul"}), "meta.missing", "warning", "npu_rotary_mul", kMeta);
}

TEST_CASE("verify kind meta.orphan (registration for an op the YAML lacks)") {
  FixtureCopy fx;
  fx.replace(kMeta, "@impl(m, \"npu_rotary_mul_backward\")", "@impl(m, \"npu_rotary_mul_bwd\")");
  const auto r = fx.verify({});
  // torch accepts an impl for an op defined elsewhere, and torch_npu defines some npu ops: without
  // a torch_npu checkout this is a note, with one a dead registration.
  expect(r, "meta.orphan", "info", "npu_rotary_mul_bwd", kMeta);
  expect(r, "meta.missing", "warning", "npu_rotary_mul_backward", kMeta);
  skillrt::opa::VerifyOptions o;
  o.all = true;
  o.torch_npu = opa_test::kData + "/torch_npu-mini";
  expect(skillrt::opa::verify_tree(skillrt::opa::Tree(fx.root()), o), "meta.orphan", "warning",
         "npu_rotary_mul_bwd", kMeta);
}

TEST_CASE("verify kind deriv.output_diff_len") {
  FixtureCopy fx;
  fx.replace(kDeriv, "[true, false]", "[true]");
  expect(fx.verify({"npu_rms_norm"}), "deriv.output_diff_len", "error", "npu_rms_norm", kDeriv);
}

TEST_CASE("verify kind deriv.unknown_input") {
  FixtureCopy fx;
  fx.replace(kDeriv, "  self, gamma: npu_rms_norm_backward", "  self, gama: npu_rms_norm_backward");
  const auto r = fx.verify({"npu_rms_norm"});
  expect(r, "deriv.unknown_input", "error", "npu_rms_norm", kDeriv);
  CHECK(opa_test::with_rule(r, "deriv.unknown_input").front().where.line == 5);
}

TEST_CASE("verify kind deriv.backward_missing (formula calls an op the YAML lacks)") {
  FixtureCopy fx;
  fx.replace(kDeriv, "npu_rotary_mul_backward(grad,", "npu_rotary_mul_bwd(grad,");
  expect(fx.verify({"npu_rotary_mul"}), "deriv.backward_missing", "error", "npu_rotary_mul", kYaml);
}

TEST_CASE("verify kind deriv.schema_mismatch") {
  FixtureCopy fx;
  fx.replace(kDeriv, "- name: npu_rms_norm(Tensor self, Tensor gamma, float epsilon=1e-06)",
             "- name: npu_rms_norm(Tensor self, Tensor gamma, float epsilon=1e-05)");
  expect(fx.verify({"npu_rms_norm"}), "deriv.schema_mismatch", "error", "npu_rms_norm", kDeriv);
}

TEST_CASE("verify kind deriv.result_index") {
  FixtureCopy fx;
  fx.replace(kDeriv, "gamma, result1)", "gamma, result2)");
  expect(fx.verify({"npu_rms_norm"}), "deriv.result_index", "error", "npu_rms_norm", kDeriv);
}

TEST_CASE("verify kind deriv.version_not_covered") {
  FixtureCopy fx;
  fx.replace(kYaml, "rotary_mode='half') -> Tensor\n    op_api: all_version",
             "rotary_mode='half') -> Tensor\n    op_api: [v2.3, newest]");
  expect(fx.verify({"npu_rotary_mul"}), "deriv.version_not_covered", "warning", "npu_rotary_mul",
         kDeriv);
}

TEST_CASE("verify kind baseline.new: test_compatibility fails at the newest version") {
  FixtureCopy fx;
  fx.replace(kBaseline, "\"func: npu_rotary_mul(", "\"func: npu_rotary_mul_v0(");
  const auto r = fx.verify({"npu_rotary_mul"});
  expect(r, "baseline.new", "error", "npu_rotary_mul", kBaseline);
  // v2.2 is skipped by the test.
  CHECK(opa_test::with_rule(r, "baseline.new").front().message.find("v2.2") == std::string::npos);
}

TEST_CASE("verify kind baseline.deleted: only older CI runs fail, a warning") {
  FixtureCopy fx;
  // The baseline says the op exists from v2.1; the YAML starts it at v2.4.
  fx.replace(kYaml, "rotary_mode='half') -> Tensor\n    op_api: all_version",
             "rotary_mode='half') -> Tensor\n    op_api: [v2.4, newest]");
  const auto r = fx.verify({"npu_rotary_mul"});
  expect(r, "baseline.deleted", "warning", "npu_rotary_mul", kBaseline);
  CHECK(opa_test::with_rule(r, "baseline.deleted").front().message.find("v2.1, v2.3") !=
        std::string::npos);
}

TEST_CASE("verify kind baseline.incompatible (renamed parameter); a compatible change passes") {
  FixtureCopy fx;
  fx.replace(kBaseline, "npu_rms_norm(Tensor self, Tensor gamma, float epsilon=1e-06)",
             "npu_rms_norm(Tensor self, Tensor gamma, float eps=1e-06)");
  expect(fx.verify({"npu_rms_norm"}), "baseline.incompatible", "error", "npu_rms_norm", kYaml);
  FixtureCopy fx2;
  // The YAML gained a defaulted parameter: compatible, the test passes, nothing to report.
  fx2.replace(kBaseline,
              "npu_rotary_mul(Tensor self, Tensor r1, Tensor r2, str rotary_mode='half')",
              "npu_rotary_mul(Tensor self, Tensor r1, Tensor r2)");
  const auto r2 = fx2.verify({"npu_rotary_mul"});
  INFO(opa_test::describe(r2));
  CHECK(r2.findings.empty());
}

TEST_CASE("verify kind allowlist.missing") {
  FixtureCopy fx;
  fx.replace(kAllow, "    \"all_version\": [\n      \"npu_rms_norm\"\n    ]",
             "    \"all_version\": []");
  // Without torch_npu, torch_npu.__all__ may still list it: a warning that says so.
  expect(fx.verify({"npu_rms_norm"}), "allowlist.missing", "warning", "npu_rms_norm", kAllow);
  skillrt::opa::VerifyOptions o;
  o.ops = {"npu_rms_norm", "npu_rotary_mul"};
  o.torch_npu = opa_test::kData + "/torch_npu-mini";
  // torch_npu.__all__ lists npu_rms_norm: nothing to report.
  auto r = skillrt::opa::verify_tree(skillrt::opa::Tree(fx.root()), o);
  CHECK(opa_test::with_rule(r, "allowlist.missing").empty());
  CHECK(r.torch_npu_note.find("__all__: 5 names") != std::string::npos);
  // Exposed, and in neither list: an error.
  fx.replace(kYaml, "rotary_mode='half') -> Tensor\n    op_api: all_version",
             "rotary_mode='half') -> Tensor\n    op_api: all_version\n    exposed: all_version");
  r = skillrt::opa::verify_tree(skillrt::opa::Tree(fx.root()), o);
  expect(r, "allowlist.missing", "error", "npu_rotary_mul", kAllow);
}

TEST_CASE("verify kind deriv.name_unknown (a torch_npu op is not unknown)") {
  FixtureCopy fx;
  fx.write(kDeriv, fx.read(kDeriv) +
                       "\n- name: _npu_format_cast(Tensor self, int acl_format) -> Tensor\n"
                       "  self: grad\n  version: all_version\n"
                       "\n- name: npu_nowhere(Tensor self) -> Tensor\n"
                       "  self: grad\n  version: all_version\n");
  const auto without = fx.verify({});
  CHECK(opa_test::with_rule(without, "deriv.name_unknown").size() == 2);
  expect(without, "deriv.name_unknown", "warning", "npu_nowhere", kDeriv);
  skillrt::opa::VerifyOptions o;
  o.all = true;
  o.torch_npu = opa_test::kData + "/torch_npu-mini";
  const auto with = skillrt::opa::verify_tree(skillrt::opa::Tree(fx.root()), o);
  REQUIRE(opa_test::with_rule(with, "deriv.name_unknown").size() == 1);
  expect(with, "deriv.name_unknown", "error", "npu_nowhere", kDeriv);
}

TEST_CASE("verify kind allowlist.not_exposed") {
  FixtureCopy fx;
  fx.replace(kAllow, "    \"v2.5\": []", "    \"v2.5\": [\"npu_rotary_mul\"]");
  expect(fx.verify({"npu_rotary_mul"}), "allowlist.not_exposed", "warning", "npu_rotary_mul",
         kAllow);
}

TEST_CASE("verify kind test.missing") {
  FixtureCopy fx;
  fx.remove("test/test_custom_ops/test_npu_rotary_mul.py");
  expect(fx.verify({"npu_rotary_mul"}), "test.missing", "warning", "npu_rotary_mul",
         "test/test_custom_ops/test_npu_rotary_mul.py");
}

TEST_CASE("verify kind doc.missing") {
  FixtureCopy fx;
  fx.remove(kRmsDoc);
  expect(fx.verify({"npu_rms_norm"}), "doc.missing", "warning", "npu_rms_norm", kRmsDoc);
}

TEST_CASE("verify: API pages are compared by the op-apidoc skill") {
  FixtureCopy fx;
  fx.replace(kRmsDoc, "npu_rms_norm(self, gamma,", "npu_rms_norm(x, gamma,");
  expect(fx.verify({"npu_rms_norm"}), "doc.misnamed-parameter", "warning", "npu_rms_norm", kRmsDoc);
  // `input` for the schema's `self` is how the binding shows it: not a finding.
  fx.replace(kRmsDoc, "npu_rms_norm(x, gamma,", "npu_rms_norm(input, gamma,");
  CHECK(opa_test::with_rule(fx.verify({"npu_rms_norm"}), "doc.misnamed-parameter").empty());
}

TEST_CASE("verify kind doc.wrong-default (by value: 1e-6 is 1e-06, 1e-5 is not)") {
  FixtureCopy fx;
  fx.replace(kRmsDoc, "gamma, epsilon=1e-06)", "gamma, epsilon=1e-6)");
  CHECK(opa_test::with_rule(fx.verify({"npu_rms_norm"}), "doc.wrong-default").empty());
  fx.replace(kRmsDoc, "gamma, epsilon=1e-6)", "gamma, epsilon=1e-05)");
  expect(fx.verify({"npu_rms_norm"}), "doc.wrong-default", "warning", "npu_rms_norm", kRmsDoc);
}

TEST_CASE("verify: without op-apidoc the page comparison is reported as skipped") {
  FixtureCopy fx;
  skillrt::opa::VerifyOptions o;
  o.ops = {"npu_rms_norm"};
  const auto r = skillrt::opa::verify_tree(skillrt::opa::Tree(fx.root()), o);
  bool skipped = false;
  for (const auto& [check, reason] : r.checks_skipped) {
    skipped =
        skipped || (check.rfind("docs", 0) == 0 && reason.find("op-apidoc") != std::string::npos);
  }
  CHECK(skipped);
}

TEST_CASE("verify: every op of the real op_plugin_functions.yaml, YAML checks only") {
  skillrt::opa::VerifyOptions o;
  o.all = true;
  o.yaml_file = opa_test::kData + "/op_plugin_functions.yaml";
  const auto r = skillrt::opa::verify_tree(skillrt::opa::Tree(opa_test::kData), o);
  // 1514 func entries; version-split duplicates share a name.
  CHECK(r.ops_checked.size() > 1400);
  const auto json = skillrt::opa::to_json(r);
  CHECK(json["summary"]["by_rule"].is_object());
  CHECK(r.checks_run == std::vector<std::string>{"yaml"});
  // A real defect of that file: internal_format_opapi without an op_api kernel.
  bool mla = false;
  for (const auto& f : opa_test::with_rule(r, "yaml.version_not_covered")) {
    mla = mla || f.op == "npu_mla_prolog";
  }
  CHECK(mla);
}

TEST_CASE("verify: a sized-list default written as a list in the Meta function is equal") {
  FixtureCopy fx;
  fx.replace(
      kYaml,
      "npu_rotary_mul(Tensor self, Tensor r1, Tensor r2, str rotary_mode='half') -> Tensor\n",
      "npu_rotary_mul(Tensor self, Tensor r1, Tensor r2, str rotary_mode='half', int[2] "
      "pad=0) -> Tensor\n");
  fx.replace(kMeta, "def npu_rotary_mul_meta(self, r1, r2, rotary_mode='half')",
             "def npu_rotary_mul_meta(self, r1, r2, rotary_mode='half', pad=[0, 0])");
  const auto r = fx.verify({"npu_rotary_mul"});
  CHECK(opa_test::with_rule(r, "meta.default_mismatch").empty());
  CHECK(opa_test::with_rule(r, "meta.param_count").empty());
  // The kernel was not updated: that side disagrees now.
  CHECK(opa_test::with_rule(r, "cpp.param_count").size() == 1);
}

namespace {

int meta_runtime(const FixtureCopy& fx, const std::string& ops) {
  const std::string cmd = "/usr/bin/python3 " + opa_test::kData + "/meta_runtime_check.py " +
                          fx.root().string() + " " + ops + " > /dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("verify severities agree with torch's dispatcher on Meta parameter names") {
  // The fixture's Meta kernels run; a renamed positional parameter still runs (warning); a
  // renamed keyword-only parameter raises TypeError (error).
  FixtureCopy fx;
  CHECK(meta_runtime(fx,
                     "npu_rms_norm npu_rms_norm_backward npu_swiglu_group_quant "
                     "npu_grouped_matmul_demo npu_rotary_mul npu_rotary_mul_backward "
                     "npu_clipped_swiglu") == 0);
  fx.replace(kMeta, "def npu_rotary_mul_meta(self,", "def npu_rotary_mul_meta(input_,");
  fx.replace(kMeta,
             "def npu_rotary_mul_meta(input_, r1, r2, rotary_mode='half'):\n    return "
             "torch.empty_like(self)",
             "def npu_rotary_mul_meta(input_, r1, r2, rotary_mode='half'):\n    return "
             "torch.empty_like(input_)");
  CHECK(meta_runtime(fx, "npu_rotary_mul") == 0);
  CHECK(opa_test::with_rule(fx.verify({"npu_rotary_mul"}), "meta.param_renamed").front().severity ==
        "warning");
  fx.replace(kMeta, "limit=7.0", "limits=7.0");
  CHECK(meta_runtime(fx, "npu_clipped_swiglu") == 1);
  CHECK(opa_test::with_rule(fx.verify({"npu_clipped_swiglu"}), "meta.kwarg_missing")
            .front()
            .severity == "error");
}

TEST_CASE("verify: a missing Meta default fails at run time when the call omits the argument") {
  // torch's dispatcher drops an argument left at its schema default; the Meta function must
  // supply its own. With every argument passed the call binds; omitting them raises TypeError,
  // which verify reports as meta.default_missing (error).
  FixtureCopy fx;
  const std::string omit = "--omit-defaults " + fx.root().string();
  auto run = [&](const std::string& args) {
    const std::string cmd = "/usr/bin/python3 " + opa_test::kData + "/meta_runtime_check.py " +
                            args + " npu_clipped_swiglu > /dev/null 2>&1";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  CHECK(run(omit) == 0);
  fx.replace(kMeta, "limit=7.0", "limit");
  CHECK(run(fx.root().string()) == 0);  // every argument passed: binds
  CHECK(run(omit) == 1);                // `limit` omitted: TypeError
  CHECK(opa_test::with_rule(fx.verify({"npu_clipped_swiglu"}), "meta.default_missing")
            .front()
            .severity == "error");
}
