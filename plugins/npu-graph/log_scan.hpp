// npu-graph-logs: one streaming pass over plog / TORCH_NPU_LOGS / dynamo / capture logs.
// Memory stays flat: a fixed read buffer, a capped pattern table and per-code counters.
#ifndef SKILLRT_NPU_GRAPH_LOG_SCAN_HPP_
#define SKILLRT_NPU_GRAPH_LOG_SCAN_HPP_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace skillrt::npu_graph {

struct LogScanOptions {
  size_t top_patterns = 20;
  size_t top_dynamo = 50;       // graph-break sites, recompiled functions, ... returned
  size_t max_patterns = 20000;  // distinct patterns tracked; later new ones are only counted
  size_t max_files = 4096;
  std::function<bool()> cancelled;                          // polled between chunks
  std::function<void(double done, double total)> progress;  // bytes read of all files
};

// Expands directories (recursively, *.log and plog-* files) into a sorted list of files.
std::vector<std::string> expand_log_paths(const std::vector<std::string>& paths, size_t max_files);

// The name a log pasted inline (`text`) has in the result.
inline constexpr const char* kInlineName = "<text>";

// Streams `files` (and `inline_text` first, when given) in one pass each.
nlohmann::json scan_logs(const std::vector<std::string>& files, const LogScanOptions& options,
                         const std::string* inline_text = nullptr);

// Rank from a path: rank_3, rank-3, rank3, device-3, worker_3 (last match wins); -1 if none.
int rank_from_path(const std::string& path);

// "YYYY-MM-DD HH:MM:SS.ffffff" from the first timestamp in a line (plog, torch_npu ERR line,
// Python logging), or empty.
std::string extract_timestamp(std::string_view line);

nlohmann::json run_logs(const nlohmann::json& input, const LogScanOptions& base);

}  // namespace skillrt::npu_graph

#endif  // SKILLRT_NPU_GRAPH_LOG_SCAN_HPP_
