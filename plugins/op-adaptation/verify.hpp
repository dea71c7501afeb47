// verify: checks every pair of files of an operator adaptation that must agree.
#ifndef SKILLRT_OP_ADAPTATION_VERIFY_HPP_
#define SKILLRT_OP_ADAPTATION_VERIFY_HPP_

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tree.hpp"

namespace skillrt::opa {

using Json = nlohmann::json;

struct Location {
  std::string file;  // relative to the checkout
  size_t line = 0;   // 0 when the thing is absent
};

struct Finding {
  std::string severity;  // error | warning | info
  std::string rule;
  std::string op;
  std::string message;
  std::string expected;
  std::string found;
  std::string change;  // the file to change
  Location where;      // the side that is wrong (or absent)
  Location other;      // the side it was compared with
};

struct VerifyOptions {
  std::vector<std::string> ops;  // names: "npu_x", "add.Tensor"; all overloads of "add"
  bool all = false;
  bool yaml_only = false;  // only op_plugin_functions.yaml (and derivatives.yaml when present)
  // A YAML file given directly instead of a checkout (absolute path); implies yaml_only.
  std::string yaml_file;
  // A torch_npu checkout (optional): torch_npu/__init__.py's __all__ counts as public-API
  // listing, torch_npu/csrc/aten/npu_native_functions.yaml as ops defined outside op-plugin.
  std::string torch_npu;
  size_t max_findings = 5000;
  // Findings below this severity are counted in the summary but not returned.
  std::string min_severity = "info";
  std::function<void(double, double, const std::string&)> progress;
  std::function<bool()> cancelled;
  // Calls another skill through the host (op-apidoc compares the API pages); without it, or
  // when the call fails, the page comparison is reported as skipped.
  std::function<Json(const std::string&, const Json&)> call_skill;
};

struct VerifyResult {
  std::vector<Finding> findings;
  size_t findings_total = 0;              // before max_findings
  size_t severity_counts[3] = {0, 0, 0};  // error, warning, info over all findings
  Json by_rule = Json::object();          // rule -> {severity, count} over all findings
  std::vector<std::string> ops_checked;
  std::vector<std::string> checks_run;
  std::vector<std::pair<std::string, std::string>> checks_skipped;  // check, reason
  std::vector<std::string> unknown_ops;
  std::string torch_npu_note;  // what was read from the torch_npu checkout
};

// `tree` is the checkout (with any overlay). Throws std::invalid_argument naming the missing
// file when op_plugin_functions.yaml cannot be read.
VerifyResult verify_tree(const Tree& tree, const VerifyOptions& options);

Json to_json(const VerifyResult& result);

}  // namespace skillrt::opa

#endif  // SKILLRT_OP_ADAPTATION_VERIFY_HPP_
