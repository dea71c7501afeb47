// Walks the schema objects of a draft-07 document and prepares the copy valijson parses.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::schema::detail {

// Maps the marker each schema object carries through valijson back to the original object, so
// messages can quote what the schema allows (enum and const values, the schema under "not").
class SchemaIndex {
 public:
  // The title the valijson copy of `node` carries.
  std::string add(const nlohmann::json* node);
  // The original object for a title that add() produced; nullptr for any other title.
  const nlohmann::json* find(std::string_view title) const;

 private:
  std::vector<const nlohmann::json*> nodes_;
};

// A place in the schema that holds a regular expression or a reference.
struct SchemaSite {
  std::string pointer;  // JSON Pointer of the value inside the schema document
  std::string text;     // the pattern or the "$ref" value
};

struct PreparedSchema {
  // What valijson parses: every schema object titled with its index marker, "format" moved to
  // kFormatKeyword, and "$id" spelled "id" (valijson reads only the draft-4 spelling).
  nlohmann::json for_valijson;
  std::vector<SchemaSite> patterns;  // "pattern" values and "patternProperties" keys
  std::vector<SchemaSite> refs;      // every "$ref"
  bool has_nested_id = false;        // an "$id" below the root changes how refs resolve
};

// `original` must outlive `index`: the index points into it.
PreparedSchema prepare_schema(const nlohmann::json& original, SchemaIndex& index);

}  // namespace skillrt::schema::detail
