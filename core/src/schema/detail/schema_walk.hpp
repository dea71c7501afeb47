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
  // What valijson parses. Every schema object is titled with its index marker; "format" and
  // "multipleOf" are moved to the host's own keywords; every "$ref" is rewritten either to a
  // pointer from the document root or to an absolute URI, and the only identifier left is the
  // root's, because valijson resolves neither relative URIs nor nested "$id"s correctly.
  nlohmann::json for_valijson;
  std::string base_uri;                // absolute URI of the document ("" when it has none)
  std::vector<SchemaSite> patterns;    // "pattern" values and "patternProperties" keys
  std::vector<SchemaSite> unresolved;  // references into this document that point at nothing
  std::size_t remote_refs = 0;         // references to other documents, fetched when built
  // Schema objects that lead back to themselves through "$ref", allOf, anyOf, oneOf, not,
  // if/then/else or dependencies without descending into the value (the first one again at
  // the end): validating would never end, and valijson's parser overflows the stack on a
  // "$ref" loop.
  std::vector<std::string> cycle;
};

// `original` must outlive `index`: the index points into it. `retrieval_uri` is where the
// document came from ("" for a schema handed over directly).
PreparedSchema prepare_schema(const nlohmann::json& original, SchemaIndex& index,
                              const std::string& retrieval_uri);

}  // namespace skillrt::schema::detail
