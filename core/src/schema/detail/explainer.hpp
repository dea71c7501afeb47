// Walks valijson's compiled constraints over an instance and phrases every violation.
//
// valijson decides whether an instance is valid; its own error texts carry neither what the
// schema expected nor what was found, and report each failure again at every parent. This
// visitor runs only for instances valijson rejected and reports each failure once, where it
// happened, with the expected and the found value.
#pragma once

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

#include "schema/compiled_schema.hpp"
#include "schema/detail/schema_walk.hpp"

namespace valijson {
class Subschema;
}

namespace skillrt::schema::detail {

using RegexTable = std::unordered_map<std::string, std::regex>;

struct ExplainContext {
  const SchemaIndex& index;    // marker title -> original schema object
  const RegexTable& regexes;  // every pattern of the schema, compiled at compile()
};

// Every violation of `instance` against `root`, in schema order, without duplicates.
std::vector<Violation> explain(const ExplainContext& context, const valijson::Subschema& root,
                               const nlohmann::json& instance);

}  // namespace skillrt::schema::detail
