// The op-schema skill's logic, apart from the plugin entry point so tests can call it directly.
#ifndef SKILLRT_OP_TOOLS_OP_SCHEMA_SKILL_HPP_
#define SKILLRT_OP_TOOLS_OP_SCHEMA_SKILL_HPP_

#include <skillrt/sdk.hpp>

namespace skillrt::op_tools {

// Runs one op-schema request (see schemas/skills/op-schema.input.json). Throws
// skillrt::SkillError (SKILLRT_INVALID_ARGUMENT) for a malformed schema, an unknown op or an
// unreadable source, with a message that names the column, the op or the file.
Json run_op_schema(const Json& input);

}  // namespace skillrt::op_tools

#endif  // SKILLRT_OP_TOOLS_OP_SCHEMA_SKILL_HPP_
