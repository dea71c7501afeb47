// Report renderers: 分析结论.md, 复现记录.md, the per-case HTML page and the Excel summary.
#ifndef SKILLRT_API_CONSISTENCY_REPORTS_HPP_
#define SKILLRT_API_CONSISTENCY_REPORTS_HPP_

#include <nlohmann/json.hpp>
#include <string>

namespace skillrt::apic {

using Json = nlohmann::json;

std::string render_conclusion_md(const Json& case_result);
std::string render_reproduction_md(const Json& case_result);
std::string render_case_html(const Json& case_result);
// Writes the summary workbook (one row per case) atomically to root/relative; returns the path.
std::string write_summary_xlsx(const std::string& root, const std::string& relative,
                               const Json& cases);

}  // namespace skillrt::apic

#endif  // SKILLRT_API_CONSISTENCY_REPORTS_HPP_
