// Resolves the operator a skill's input names: a schema string (`schema`), or an op name
// looked up in a YAML source (`op` + `source`). Used by op-test and op-apidoc, whose inputs
// share these fields.
#ifndef SKILLRT_OPTOOLKIT_OP_REQUEST_HPP_
#define SKILLRT_OPTOOLKIT_OP_REQUEST_HPP_

#include <skillrt/sdk.hpp>

#include <string>
#include <vector>

#include "optoolkit/schema.hpp"

namespace skillrt::ops {

struct ResolvedOp {
  FunctionSchema schema;
  std::string text;  // the schema as written
  std::string file;  // empty for a schema given inline
  size_t line = 0;
  std::string section;  // op-plugin section ("official", "custom", ...) when known
};

// The primary op and, when `with_variants` and a source is given, its in-place and out siblings
// (same base name) from the same source. Throws the SDK's invalid_argument error naming the
// input field to fix. The source file is read on every call; callers resolve once per request.
std::vector<ResolvedOp> resolve_ops(const Json& input, bool with_variants);

}  // namespace skillrt::ops

#endif  // SKILLRT_OPTOOLKIT_OP_REQUEST_HPP_
