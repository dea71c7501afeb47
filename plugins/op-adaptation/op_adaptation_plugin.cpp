// The op-adaptation plugin: one skill with the modes verify, generate and modify.
#include <skillrt/sdk.hpp>

#include "skill.hpp"
#include "skillrt_embedded_schemas.h"

namespace {

void register_skills(skillrt::Registrar& r) {
  r.skill("op-adaptation")
      .title("Operator adaptation (op-plugin / torch_npu)")
      .description(
          "Adapts a PyTorch operator to Ascend NPU in op-plugin and checks that its files agree "
          "(yaml entry, kernel, Meta registration, backward, baseline, docs). "
          "Adapts a PyTorch operator to Ascend NPU in op-plugin and checks that its files agree: "
          "op_plugin_functions.yaml entry, C++ kernel (aclnn EXEC_NPU_CMD or aclop), Meta/fake "
          "registration, derivatives.yaml backward, schema baseline JSON, public-API allowlist, "
          "tests and API doc. verify reports each disagreement with rule, severity, file and "
          "line on both sides; generate writes every file of a new op as a patch (tests and doc "
          "through op-test and op-apidoc); modify moves an op to other versions or backends.")
      .input_schema(skillrt_embedded::schema("op-adaptation.input"))
      .output_schema(skillrt_embedded::schema("op-adaptation.output"))
      .timeout_ms(300000)
      .handler([](const skillrt::Json& input, skillrt::Context& ctx) {
        skillrt::opa::Services services;
        services.progress = [&ctx](double done, double total, const std::string& msg) {
          ctx.progress(done, total, msg);
        };
        services.cancelled = [&ctx] { return ctx.cancelled(); };
        services.call_skill = [&ctx](const std::string& skill, const skillrt::Json& in) {
          return ctx.call(skill, in);
        };
        return skillrt::opa::run_op_adaptation(input, services);
      });
}

}  // namespace

SKILLRT_PLUGIN("op-adaptation", "1.0.0", register_skills)
