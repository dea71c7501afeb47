#include "skill.hpp"

#include <filesystem>
#include <stdexcept>

#include <skillrt/sdk.hpp>

#include "detail/text.hpp"
#include "generate.hpp"
#include "verify.hpp"

namespace skillrt::opa {
namespace {

namespace fs = std::filesystem;

Json changes_json(const ChangeSet& set, std::string* patch) {
  Json files = Json::array();
  for (const Change& c : set.changes) {
    *patch += detail::unified_diff(c.path, c.before, c.after, c.is_new);
    files.push_back({{"path", c.path},
                     {"status", c.is_new ? "new" : "modified"},
                     {"what", detail::join(c.what, "; ")}});
  }
  return files;
}

Json run_change(const Json& input, const Services& services, const std::string& root) {
  const std::string mode = input["mode"].get<std::string>();
  Tree tree(root);
  ChangeSet set;
  if (mode == "generate") {
    if (!input.contains("spec")) {
      throw std::invalid_argument(
          "generate needs 'spec' (schema, aclnn, versions, ...); see "
          "skillrt describe op-adaptation");
    }
    set = generate_op(tree, input["spec"], services.call_skill);
  } else {
    if (!input.contains("op") || !input.contains("changes") || input["changes"].empty()) {
      throw std::invalid_argument(
          "modify needs 'op' and a non-empty 'changes' object (op_api, "
          "acl_op, exposed, aclnn)");
    }
    set = modify_op(tree, input["op"].get<std::string>(), input["changes"]);
  }
  const bool apply = input.value("apply", false);
  Json out = {{"mode", mode}, {"root", root}, {"applied", false}};
  std::string patch;
  out["files"] = changes_json(set, &patch);
  out["patch"] = patch;
  Json np = Json::array();
  for (const auto& [part, reason] : set.not_produced)
    np.push_back({{"part", part}, {"reason", reason}});
  out["not_produced"] = np;
  out["notes"] = set.notes;
  // Verify the tree as it will be (dry run: the changes as an overlay; apply: the disk).
  Tree after(root);
  if (apply) {
    apply_changes(root, set);
    out["applied"] = true;
  } else {
    for (const Change& c : set.changes) after.put(c.path, c.after);
  }
  VerifyOptions vo;
  vo.ops = set.ops;
  vo.cancelled = services.cancelled;
  vo.call_skill = services.call_skill;
  out["verify"] = to_json(verify_tree(after, vo));
  return out;
}

}  // namespace

Json run_op_adaptation(const Json& input, const Services& services) {
  const std::string mode = input.at("mode").get<std::string>();
  const std::string root = input.at("op_plugin").get<std::string>();
  std::error_code ec;
  const bool is_file = fs::is_regular_file(root, ec);
  if (!is_file && !fs::is_directory(root, ec)) {
    throw invalid_argument("op_plugin: '" + root +
                           "' does not exist; pass an op-plugin checkout directory (or, for "
                           "verify, an op_plugin_functions.yaml file)");
  }
  try {
    if (mode != "verify") {
      if (is_file) {
        throw std::invalid_argument("op_plugin: " + mode +
                                    " needs the checkout directory, not a file");
      }
      return run_change(input, services, root);
    }
    VerifyOptions vo;
    if (input.contains("ops")) vo.ops = input["ops"].get<std::vector<std::string>>();
    vo.all = input.value("all", false);
    if (!vo.all && vo.ops.empty()) {
      throw std::invalid_argument("verify needs 'ops' (names) or 'all': true");
    }
    vo.max_findings = input.value("max_findings", 2000);
    vo.min_severity = input.value("min_severity", "info");
    vo.progress = services.progress;
    vo.cancelled = services.cancelled;
    vo.call_skill = services.call_skill;
    if (is_file) vo.yaml_file = root;
    vo.torch_npu = input.value("torch_npu", "");
    Tree tree(is_file ? fs::path(root).parent_path() : fs::path(root));
    VerifyResult r = verify_tree(tree, vo);
    if (is_file) {
      r.checks_skipped.emplace_back("sources",
                                    "op_plugin is a YAML file: only the YAML checks ran");
    }
    Json out = to_json(r);
    out["mode"] = "verify";
    out["root"] = root;
    if (input.contains("torch_npu")) out["torch_npu"] = r.torch_npu_note;
    return out;
  } catch (const std::invalid_argument& e) {
    throw invalid_argument(e.what());
  }
}

}  // namespace skillrt::opa
