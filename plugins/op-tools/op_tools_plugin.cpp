// The op-tools plugin: skills over PyTorch operator schemas, built on skillrt_optoolkit.
#include <skillrt/sdk.hpp>

#include "op_schema_skill.hpp"
#include "skillrt_embedded_schemas.h"

namespace {

void register_skills(skillrt::Registrar& r) {
  r.skill("op-schema")
      .title("PyTorch operator schema")
      .description(
          "Parses and looks up PyTorch operator schemas (native_functions.yaml, "
          "op_plugin_functions.yaml) and diffs two versions of them. "
          "Parses a PyTorch operator function schema (native_functions.yaml / "
          "op_plugin_functions.yaml 'func:' line) into name, overload, kind (functional, "
          "inplace, out, mutable, scratch), arguments (type, default, kwarg-only, out, alias "
          "annotation, write flag) and returns; looks up ops such as add.Tensor in PyTorch 2.11 "
          "(embedded) or a given YAML file or checkout, with file and line; diffs two versions "
          "of such a YAML file operator by operator.")
      .input_schema(skillrt_embedded::schema("op-schema.input"))
      .output_schema(skillrt_embedded::schema("op-schema.output"))
      .read_only()
      .idempotent()
      .timeout_ms(60000)
      .handler([](const skillrt::Json& input, skillrt::Context&) {
        return skillrt::op_tools::run_op_schema(input);
      });
}

}  // namespace

SKILLRT_PLUGIN("op-tools", "1.0.0", register_skills)
