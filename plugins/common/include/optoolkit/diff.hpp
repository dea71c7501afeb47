// Operator-level diff of two versions of one schema-carrying YAML file: which operators were
// added, removed, and how each changed one (argument, return, default, annotation, kind, key).
#ifndef SKILLRT_OPTOOLKIT_DIFF_HPP_
#define SKILLRT_OPTOOLKIT_DIFF_HPP_

#include <optional>
#include <string>
#include <vector>

#include "optoolkit/sources.hpp"

namespace skillrt::ops {

struct OpChange {
  // What changed: "argument_added", "argument_removed", "argument_type", "argument_default",
  // "argument_annotation", "argument_kwarg_only", "argument_moved", "return_added",
  // "return_removed", "return_type", "return_name", "return_annotation", "kind", "name",
  // "schema_text" (one side does not parse), "key_added", "key_removed", "key_changed".
  std::string what;
  std::string subject;  // the argument name, "return N", or the YAML key
  std::optional<std::string> old_value;
  std::optional<std::string> new_value;
};

struct OpRef {
  std::string op;  // "add.Tensor"; a duplicate keeps "#2", "#3" for its later occurrences
  std::string section;
  std::string schema;
  SourceLocation where;
};

struct ChangedOp {
  OpRef old_op;
  OpRef new_op;
  std::vector<OpChange> changes;
};

struct SourceDiff {
  std::vector<OpRef> added;
  std::vector<OpRef> removed;
  std::vector<ChangedOp> changed;
  size_t unchanged = 0;
};

SourceDiff diff_sources(const OpSource& old_source, const OpSource& new_source);

}  // namespace skillrt::ops

#endif  // SKILLRT_OPTOOLKIT_DIFF_HPP_
