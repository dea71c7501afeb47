// The op-apidoc plugin: API pages of NPU operators, generated and checked against the schema.
#include <skillrt/sdk.hpp>

#include "apidoc.hpp"
#include "skillrt_embedded_schemas.h"

namespace {

void register_skills(skillrt::Registrar& r) {
  r.skill("op-apidoc")
      .title("Operator API page: generate and check")
      .description(
          "Writes or checks the API page of a torch_npu operator in the house template from its "
          "schema. "
          "generate: the API page of a torch_npu.npu_* operator in the house template "
          "(产品支持情况, 功能说明, 函数原型, 参数说明, 返回值说明, 约束说明, 调用示例 with "
          "single-operator and graph mode) from its schema, Chinese by default or English, "
          "marking every fact the engineer must still fill in. check: compares an existing page "
          "with the schema: missing, extra or misnamed parameters, wrong defaults or types, "
          "missing sections, example calls that do not match, each with its line.")
      .input_schema(skillrt_embedded::schema("op-apidoc.input"))
      .output_schema(skillrt_embedded::schema("op-apidoc.output"))
      .read_only()
      .idempotent()
      .timeout_ms(60000)
      .handler([](const skillrt::Json& input, skillrt::Context&) {
        if (input.at("mode") == "check") return skillrt::op_apidoc::run_check(input);
        return skillrt::op_apidoc::run_generate(input);
      });
}

}  // namespace

SKILLRT_PLUGIN("op-apidoc", "1.0.0", register_skills)
