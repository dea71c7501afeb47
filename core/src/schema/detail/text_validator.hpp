// Validates JSON text against a compiled schema without building a DOM.
//
// The program is compiled from the same valijson constraint tree the host's walker (conforms()
// in explainer.cpp) visits, and each step mirrors that walker: the same constraints in the same
// order, the same early exits, the same depth bound, the same comparisons. What it cannot
// decide exactly (a regex that throws inside an alternative, where the walker's evaluation
// order would matter; comparisons nested past 512 levels; constraints other than the host's)
// makes the check give up with kUnsupported when it is reached, and the caller falls back on
// the DOM.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "schema/compiled_schema.hpp"
#include "schema/detail/explainer.hpp"

namespace valijson {
class Subschema;
}

namespace skillrt::schema::detail {

struct TextProgramData;

class TextProgram {
 public:
  // Never fails: a constraint it cannot run becomes a step that gives up when reached.
  TextProgram(const ExplainContext& context, const valijson::Subschema& root);
  ~TextProgram();
  TextProgram(const TextProgram&) = delete;
  TextProgram& operator=(const TextProgram&) = delete;

  // The verdict on `text`, which must be well-formed; `root` is where its value starts
  // (well_formed_root()). Thread-safe.
  TextVerdict check(std::string_view text, std::size_t root) const;
  // The verdict on `text` not checked for well-formedness yet, in one walk that checks it too,
  // where the schema and the text allow (an object of named scalars: see FlatPlan); nothing
  // otherwise, and then well_formed_root() and check() decide. Thread-safe.
  std::optional<TextVerdict> check_whole(std::string_view text) const;

 private:
  std::unique_ptr<TextProgramData> data_;
};

}  // namespace skillrt::schema::detail
