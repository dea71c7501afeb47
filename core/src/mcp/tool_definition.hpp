// The tools/list entry of a skill: the form of its schemas and description that an MCP client
// is shown, as opposed to the full schemas the host enforces.
//
// Why a separate form: clients carry every tool definition in the model's context on every turn,
// and some reject what the full schemas legitimately use. The Anthropic API (and Bedrock, Vertex,
// Azure OpenAI) answers 400 to a tool whose input schema has oneOf/anyOf/allOf at the root, and
// some SDK clients drop a whole tools/list whose output schema is not a root object. So the
// published form is derived mechanically from the full one:
//   - a relaxation: everything valid under the full schema is valid under the published one
//     (keywords are only removed, never added), so a client that validates arguments or
//     structuredContent against it never refuses what the host accepts;
//   - root combinators become a sentence of the description ("Give at least one of: ...");
//   - each property keeps its type, enum, default and the first sentence of its description;
//     nested objects keep their type only; properties marked "x-skillrt-advanced": true are left
//     out (the skill's SKILL.md documents them and the host still accepts them);
//   - the description is cut at a sentence boundary.
// Thread-safe: pure functions of their arguments.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "registry/registry.hpp"

namespace skillrt::mcp {

// Context budgets the tests and `skillrt plugins` hold tools to, in characters of name,
// description and serialized input schema.
inline constexpr size_t kToolContextBudget = 3000;
inline constexpr size_t kAllToolsContextBudget = 30000;

struct ToolDefinition {
  nlohmann::json tool;  // name, title, description, inputSchema, outputSchema, annotations
  // What a plugin author should fix: a root rule that could not be said in a sentence, a
  // definition over budget. Empty for a well-behaved skill.
  std::vector<std::string> warnings;
};

// `has_guide`: the skill's SKILL.md is served (skill://<name>/SKILL.md), so the description may
// point there for the options left out.
ToolDefinition tool_definition(const Skill& skill, bool has_guide);

// The published form of one schema. `input`: root rules are turned into `rules` sentences and
// advanced properties left out; otherwise (output) the root is typed "object" when every branch
// is an object, and no published form exists (null) when not.
struct PublishedSchema {
  nlohmann::json schema;            // null when the schema cannot be published as an object
  std::vector<std::string> rules;   // sentences for the description
  std::vector<std::string> hidden;  // advanced properties left out
  std::vector<std::string> warnings;
};
PublishedSchema publish_schema(const nlohmann::json& full, bool input);

// Characters of name + description + serialized inputSchema: what a tool costs an agent's
// context before it is called.
size_t tool_context_size(const nlohmann::json& tool);

// Rules every published tool must meet (no combinator, `not` or `if` at the root of the input
// schema; root "type": "object" on input and output schemas); one message per breach.
std::vector<std::string> tool_rule_breaches(const nlohmann::json& tool);

}  // namespace skillrt::mcp
