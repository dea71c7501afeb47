// Reads the table `npu-smi info` prints (Atlas A2 910B, A3 two-chip boards, 310P).
#ifndef SKILLRT_NPU_REMOTE_TEST_NPU_SMI_HPP_
#define SKILLRT_NPU_REMOTE_TEST_NPU_SMI_HPP_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::npu_remote {

struct NpuChip {
  int npu = -1;
  int chip = -1;
  // The N of /dev/davinciN: the Phy-ID column where npu-smi prints one (A3), else the NPU id
  // (A2 prints one chip per NPU and numbers them like the device files).
  int device = -1;
  bool device_from_phy_id = false;
  std::string name;
  std::string health;
  std::string bus_id;
  std::optional<double> power_w;
  std::optional<double> temp_c;
  std::optional<double> aicore_pct;
  std::optional<double> memory_used_mb;
  std::optional<double> memory_total_mb;
  std::optional<double> hbm_used_mb;
  std::optional<double> hbm_total_mb;
};

struct NpuProcess {
  int npu = -1;
  int chip = -1;
  long long pid = 0;
  std::string name;
  std::optional<double> memory_mb;
};

struct NpuSmiInfo {
  std::string version;  // "25.3.rc1", empty when the banner is absent
  std::vector<NpuChip> chips;
  std::vector<NpuProcess> processes;
};

// Parses the output of `npu-smi info`. Rows it cannot read are skipped; a text without any
// device row gives an empty `chips`.
NpuSmiInfo parse_npu_smi(std::string_view text);

}  // namespace skillrt::npu_remote

#endif  // SKILLRT_NPU_REMOTE_TEST_NPU_SMI_HPP_
