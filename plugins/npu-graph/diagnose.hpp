// npu-graph-diagnose: from an error log or traceback to one conclusion class with evidence.
#ifndef SKILLRT_NPU_GRAPH_DIAGNOSE_HPP_
#define SKILLRT_NPU_GRAPH_DIAGNOSE_HPP_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "rules.hpp"

namespace skillrt::npu_graph {

extern const std::set<std::string> kDiagnoseClasses;

// The embedded rule pack plus the user's rule files (later files override earlier ids).
RuleSet load_diagnose_rules(const std::vector<std::string>& extra_rule_files);

// Diagnoses `text`; `source` names it in evidence ("<input>" or a path).
nlohmann::json diagnose_text(std::string_view text, const std::string& source,
                             const RuleSet& rules);

// The skill handler: input and output as in schemas/skills/npu-graph-diagnose.*.json.
nlohmann::json run_diagnose(const nlohmann::json& input);

// Reads `log` as a file when it names one, else takes it as the text; sets `source`.
std::string resolve_log_text(const std::string& log, std::string* source);

}  // namespace skillrt::npu_graph

#endif  // SKILLRT_NPU_GRAPH_DIAGNOSE_HPP_
