// An operator to write: its schema, aclnn, versions and outputs (an OpPlan), and the pieces of
// op-plugin it needs, spelt from it: the op_api kernel, the Meta function, the YAML entry and the
// schema baseline key.
#ifndef SKILLRT_OP_ADAPTATION_DETAIL_OP_PLAN_HPP_
#define SKILLRT_OP_ADAPTATION_DETAIL_OP_PLAN_HPP_

#include <string>
#include <vector>

#include "generate.hpp"
#include "optoolkit/schema.hpp"

namespace skillrt::opa::detail {

using ops::Argument;
using ops::FunctionSchema;

struct OutputSpec {
  std::string size;
  std::string dtype;
  std::string meta_shape;
};

struct OpPlan {
  FunctionSchema schema;
  std::string text;
  std::string section;
  std::string aclnn;
  Json versions;
  Json exposed;  // null when private
  bool structured = false;
  std::vector<OutputSpec> outputs;
};

const Argument* find_arg(const FunctionSchema& s, const std::string& name);

// A plan from a schema and its options; throws std::invalid_argument naming `field` when the
// schema does not parse or an output spec is wrong.
OpPlan make_plan(const Json& spec_schema, const std::string& aclnn, const Json& versions,
                 const Json& exposed, bool structured, const std::string& section,
                 const Json& outputs_spec, const std::string& field);

// Each adds its piece to the change set (or says in set->not_produced why it did not).
void add_kernel(const Tree& tree, ChangeSet* set, const OpPlan& p);
void add_meta(const Tree& tree, ChangeSet* set, const OpPlan& p);
void add_baseline(const Tree& tree, ChangeSet* set, const OpPlan& p,
                  const std::vector<std::string>& all);

// The op's entry for op_plugin_functions.yaml (the symint section's when `symint`).
std::string yaml_entry(const OpPlan& p, bool symint_mirror);

}  // namespace skillrt::opa::detail

#endif  // SKILLRT_OP_ADAPTATION_DETAIL_OP_PLAN_HPP_
