// The files of one op-plugin checkout as the checker sees them: the disk, with an overlay of
// changed or new files on top, so that a dry run can be verified before anything is written.
#ifndef SKILLRT_OP_ADAPTATION_TREE_HPP_
#define SKILLRT_OP_ADAPTATION_TREE_HPP_

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::opa {

// Paths inside an op-plugin checkout (op-adaptation.md section 1).
inline constexpr const char* kFunctionsYaml = "op_plugin/config/op_plugin_functions.yaml";
inline constexpr const char* kDerivativesYaml = "op_plugin/config/derivatives.yaml";
inline constexpr const char* kOpApiDir = "op_plugin/ops/opapi";
inline constexpr const char* kAclOpsDir = "op_plugin/ops/aclops";
inline constexpr const char* kMetaPy = "op_plugin/python/meta/_meta_registrations.py";
inline constexpr const char* kFakePy = "op_plugin/python/meta/_fake_registrations.py";
inline constexpr const char* kBaselineJson = "test/core_tests/torch_npu_OpApi_schema_all.json";
inline constexpr const char* kAllowlistJson = "test/allowlist_for_publicAPI.json";
inline constexpr const char* kDocDir = "docs/zh/custom_APIs/torch_npu";
inline constexpr const char* kTestDir = "test";

class Tree {
 public:
  explicit Tree(std::filesystem::path root) : root_(std::move(root)) {}

  const std::filesystem::path& root() const { return root_; }
  std::optional<std::string> read(const std::string& rel) const;
  bool exists(const std::string& rel) const;
  bool is_dir(const std::string& rel) const;
  // Relative paths of the files under `rel_dir` whose names end with `ext`, sorted.
  std::vector<std::string> list(const std::string& rel_dir, std::string_view ext,
                                bool recursive) const;
  void put(const std::string& rel, std::string content) { overlay_[rel] = std::move(content); }
  const std::map<std::string, std::string>& overlay() const { return overlay_; }

 private:
  std::filesystem::path root_;
  std::map<std::string, std::string> overlay_;
};

// Reads a whole file; nullopt when it cannot be opened.
std::optional<std::string> read_file(const std::filesystem::path& path);

}  // namespace skillrt::opa

#endif  // SKILLRT_OP_ADAPTATION_TREE_HPP_
