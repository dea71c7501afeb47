// generate and modify: the file changes of an operator adaptation, computed in memory (so the
// dry run can return a patch and verify the would-be tree), then written atomically on apply.
#ifndef SKILLRT_OP_ADAPTATION_GENERATE_HPP_
#define SKILLRT_OP_ADAPTATION_GENERATE_HPP_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tree.hpp"

namespace skillrt::opa {

using Json = nlohmann::json;

struct Change {
  std::string path;  // relative to the checkout
  std::string before;
  std::string after;
  bool is_new = false;
  std::vector<std::string> what;
};

struct ChangeSet {
  std::vector<Change> changes;
  std::vector<std::pair<std::string, std::string>> not_produced;  // part, reason
  std::vector<std::string> notes;
  std::vector<std::string> ops;  // ops to verify afterwards

  // The change for `path`, created from the tree's current content on first use.
  Change& edit(const Tree& tree, const std::string& path);
};

using CallSkill = std::function<Json(const std::string&, const Json&)>;

// Throws std::invalid_argument naming the field when the spec cannot be generated.
ChangeSet generate_op(const Tree& tree, const Json& spec, const CallSkill& call_skill);
ChangeSet modify_op(const Tree& tree, const std::string& op, const Json& changes);

// Writes every change under `root` (temp file + rename per file). Throws std::runtime_error
// naming the file on failure, and std::invalid_argument when a path would leave the root.
void apply_changes(const std::string& root, const ChangeSet& set);

// The C++ spelling of a canonical type ("const optional<Tensor>&" ->
// "const c10::optional<at::Tensor>&").
std::string spell_cpp_type(const std::string& canonical);

}  // namespace skillrt::opa

#endif  // SKILLRT_OP_ADAPTATION_GENERATE_HPP_
