// The optional NPU side: which operators op-plugin and torch_npu register, and which upstream
// files torch_npu imports, includes or patches, each with the file and line that says so.
#ifndef SKILLRT_PR_ANALYSIS_NPU_SIDE_HPP_
#define SKILLRT_PR_ANALYSIS_NPU_SIDE_HPP_

#include <map>
#include <string>
#include <vector>

namespace skillrt::pr_analysis {

struct NpuEntry {
  std::string file;  // relative to its checkout, prefixed with the checkout's role
  size_t line = 0;
  std::string text;
  std::string how;  // "op-plugin entry", "torch_npu entry", "imports", "includes", "patches"
};

class NpuIndex {
 public:
  // Empty paths are skipped. Throws InputError naming a path that does not exist or holds none
  // of the expected files.
  void load(const std::string& torch_npu, const std::string& op_plugin);

  bool empty() const { return ops_.empty() && users_.empty(); }
  // Registrations of an operator ("add.Tensor") in op-plugin and torch_npu.
  std::vector<NpuEntry> op_entries(const std::string& op) const;
  // torch_npu lines that import, include or patch an upstream path.
  std::vector<NpuEntry> path_users(const std::string& upstream_path) const;

  size_t op_count() const { return ops_.size(); }
  size_t user_count() const { return users_.size(); }
  const std::vector<std::string>& loaded() const { return loaded_; }

 private:
  void load_op_plugin(const std::string& root);
  void load_torch_npu(const std::string& root);
  void scan_file(const std::string& root, const std::string& rel);

  std::map<std::string, std::vector<NpuEntry>> ops_;
  std::map<std::string, std::vector<NpuEntry>>
      users_;  // key: module ("torch._inductor.ir") or path
  std::vector<std::string> loaded_;
};

// "torch/_inductor/codegen/common.py" -> "torch._inductor.codegen.common"; "" for non-Python.
std::string python_module_of(const std::string& path);

}  // namespace skillrt::pr_analysis

#endif  // SKILLRT_PR_ANALYSIS_NPU_SIDE_HPP_
