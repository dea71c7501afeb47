// npu-graph-profile: findings from Chrome trace JSON and Ascend profiler CSVs.
#ifndef SKILLRT_NPU_GRAPH_PROFILE_HPP_
#define SKILLRT_NPU_GRAPH_PROFILE_HPP_

#include <nlohmann/json.hpp>
#include <string>

namespace skillrt::npu_graph {

struct ProfileOptions {
  double gap_threshold_us = 50.0;  // device idle longer than this is a gap
  double small_kernel_us = 10.0;   // kernels shorter than this are "small"
  size_t top_k = 10;
};

// Analyses a parsed Chrome trace (object with traceEvents, or a bare event array).
nlohmann::json analyze_chrome_trace(const nlohmann::json& trace, const std::string& source,
                                    const ProfileOptions& options);

// Analyses one Ascend profiler CSV; the kind is taken from the file name (kernel_details,
// op_statistic, operator_details) or, failing that, from its header.
nlohmann::json analyze_ascend_csv(std::string_view text, const std::string& source,
                                  const ProfileOptions& options);

nlohmann::json run_profile(const nlohmann::json& input);

}  // namespace skillrt::npu_graph

#endif  // SKILLRT_NPU_GRAPH_PROFILE_HPP_
