// npu-graph-capture: NPU graph capture, replay and update failures from their logs.
#ifndef SKILLRT_NPU_GRAPH_CAPTURE_HPP_
#define SKILLRT_NPU_GRAPH_CAPTURE_HPP_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "rules.hpp"

namespace skillrt::npu_graph {

extern const std::set<std::string> kCaptureKinds;

RuleSet load_capture_rules(const std::vector<std::string>& extra_rule_files);
nlohmann::json analyze_capture(std::string_view text, const std::string& source,
                               const RuleSet& rules);
nlohmann::json run_capture(const nlohmann::json& input);

}  // namespace skillrt::npu_graph

#endif  // SKILLRT_NPU_GRAPH_CAPTURE_HPP_
