// Walks valijson's compiled constraints over an instance and phrases every violation.
//
// valijson parses the schema into its constraint tree; this visitor walks that tree over the
// nlohmann value itself. valijson's own visitor copies the instance path and strings at every
// step, and its error texts carry neither what the schema expected nor what was found and
// repeat each failure at every parent. This one decides validity without allocating on the
// common path (conforms) and, for a rejected instance, reports each failure once, where it
// happened, with the expected and the found value (explain).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "schema/compiled_schema.hpp"
#include "schema/detail/schema_walk.hpp"

#include "schema/detail/regex.hpp"

namespace valijson {
class Subschema;
}

namespace skillrt::schema::detail {

using RegexTable = std::unordered_map<std::string, Regex>;

struct ExplainContext {
  const SchemaIndex& index;   // marker title -> original schema object
  const RegexTable& regexes;  // every pattern of the schema, compiled at compile()
};

// Whether `instance` satisfies `root`; stops at the first failure.
bool conforms(const ExplainContext& context, const valijson::Subschema& root,
              const nlohmann::json& instance);

// Every violation of `instance` against `root`, in schema order, without duplicates.
std::vector<Violation> explain(const ExplainContext& context, const valijson::Subschema& root,
                               const nlohmann::json& instance);

}  // namespace skillrt::schema::detail
