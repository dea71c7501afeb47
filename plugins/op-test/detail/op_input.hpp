// Resolves the operator a request names: a schema string, or an op name looked up in a YAML
// source. Shared by op-test's modes.
#ifndef SKILLRT_OP_TEST_DETAIL_OP_INPUT_HPP_
#define SKILLRT_OP_TEST_DETAIL_OP_INPUT_HPP_

#include <skillrt/sdk.hpp>

#include <string>
#include <vector>

#include "optoolkit/schema.hpp"

namespace skillrt::op_test::detail {

struct ResolvedOp {
  ops::FunctionSchema schema;
  std::string text;  // the schema as written
  std::string file;  // empty for a schema given inline
  size_t line = 0;
  std::string section;  // op-plugin section ("official", "custom", ...) when known
};

// The primary op and, when `with_variants` and a source is given, its in-place and out siblings
// (same base name) from the same source. Throws invalid_argument naming the field to fix.
std::vector<ResolvedOp> resolve_ops(const Json& input, bool with_variants);

}  // namespace skillrt::op_test::detail

#endif  // SKILLRT_OP_TEST_DETAIL_OP_INPUT_HPP_
