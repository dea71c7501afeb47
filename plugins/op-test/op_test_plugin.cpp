// The op-test plugin: unit tests for an NPU operator generated from its schema, and triage of
// failing operator test logs.
#include <skillrt/sdk.hpp>

#include "generate.hpp"
#include "skillrt_embedded_schemas.h"
#include "triage.hpp"

namespace {

void register_skills(skillrt::Registrar& r) {
  r.skill("op-test")
      .title("Operator unit tests: generate and triage")
      .description(
          "Writes torch_npu-style unit tests for an NPU operator from its schema and triages "
          "their failures. "
          "generate: a torch_npu-style unit test file (TestCase, create_common_tensor, "
          "assertRtolEqual with the precision per dtype) for an operator from its schema or "
          "op + op_plugin_functions.yaml: positive cases against a CPU reference over dtypes "
          "and shapes (empty, scalar, non-contiguous, broadcast), negative cases, FakeTensor "
          "and torch.compile cases, in-place and out variants; device is a parameter. "
          "triage: classifies failures in a pytest/unittest log or JUnit XML as test-bug, "
          "adaptation-bug or environment, with the rule, evidence lines and an action.")
      .input_schema(skillrt_embedded::schema("op-test.input"))
      .output_schema(skillrt_embedded::schema("op-test.output"))
      .idempotent()
      .timeout_ms(60000)
      .handler([](const skillrt::Json& input, skillrt::Context& context) {
        if (input.at("mode") == "triage") return skillrt::op_test::run_triage(input);
        return skillrt::op_test::run_generate(input, &context);
      });
}

}  // namespace

SKILLRT_PLUGIN("op-test", "1.0.0", register_skills)
