// Where a log line was read: file, rank, line, timestamp and the (clipped) line itself. Shared by
// the plog/torch_npu reader and the dynamo reader, whose findings cite the same kind of place.
#ifndef SKILLRT_NPU_GRAPH_DETAIL_LOG_PLACE_HPP_
#define SKILLRT_NPU_GRAPH_DETAIL_LOG_PLACE_HPP_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace skillrt::npu_graph::detail {

struct LogPlace {
  std::string path;
  int rank = -1;  // -1 when the line names no rank
  size_t line = 0;
  std::string timestamp;
  std::string text;

  nlohmann::json to_json() const {
    nlohmann::json j{{"path", path}, {"line", line}, {"timestamp", timestamp}};
    j["rank"] = rank < 0 ? nlohmann::json(nullptr) : nlohmann::json(rank);
    if (!text.empty()) j["text"] = text;
    return j;
  }
};

}  // namespace skillrt::npu_graph::detail

#endif  // SKILLRT_NPU_GRAPH_DETAIL_LOG_PLACE_HPP_
