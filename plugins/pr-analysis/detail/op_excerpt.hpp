// Operator-level diff of the entries a change touches. Loading and diffing a whole
// native_functions.yaml (16k lines) twice per commit would cost more than reading the commit's
// diff; the entries that contain a changed line (and the same ops on the other side) are all
// the toolkit needs to name what changed, so only those are cut out and handed to it.
#ifndef SKILLRT_PR_ANALYSIS_DETAIL_OP_EXCERPT_HPP_
#define SKILLRT_PR_ANALYSIS_DETAIL_OP_EXCERPT_HPP_

#include <string>
#include <vector>

#include "model.hpp"
#include "optoolkit/diff.hpp"

namespace skillrt::pr_analysis::detail {

// The operator file format for a repository path, kUnknown when it carries no operators.
ops::SourceFormat operator_file_format(const std::string& path);

// One classified operator change: kind is one of op_change_kinds().
struct OpFinding {
  std::string kind;
  std::string op;
  std::string change;  // the toolkit's change name ("argument_default", "key_changed", ...)
  std::string subject;
  std::string old_value;
  std::string new_value;
  std::string old_schema;
  std::string new_schema;
  size_t old_line = 0;  // line of the entry in the old / new file version, 0 when absent
  size_t new_line = 0;
};

struct OpDiffResult {
  std::vector<OpFinding> findings;
  std::string problem;  // why the diff could not be made; empty when fine
};

OpDiffResult diff_touched_ops(const FileDiff& file, ops::SourceFormat format);

}  // namespace skillrt::pr_analysis::detail

#endif  // SKILLRT_PR_ANALYSIS_DETAIL_OP_EXCERPT_HPP_
