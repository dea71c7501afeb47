// Report writers: JSON (the full analysis), Excel (one row per PR, hyperlinks, impact colours,
// autofilter, frozen header, summary and evidence sheets), Markdown grouped by impact, and a
// self-contained HTML page with an SVG chart. Every file is written to a temporary name in the
// output directory and renamed into place, so a reader never sees half a report.
#ifndef SKILLRT_PR_ANALYSIS_REPORT_HPP_
#define SKILLRT_PR_ANALYSIS_REPORT_HPP_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace skillrt::pr_analysis {

using Json = nlohmann::json;

// `analysis` is {"meta", "summary", "prs"}; returns {"json": path, "xlsx": ...} for the formats
// written. Throws std::runtime_error naming the file on failure.
Json write_reports(const Json& analysis, const std::string& output_dir,
                   const std::vector<std::string>& formats);

std::string render_markdown(const Json& analysis);
std::string render_html(const Json& analysis);
void write_xlsx(const Json& analysis, const std::string& path);

}  // namespace skillrt::pr_analysis

#endif  // SKILLRT_PR_ANALYSIS_REPORT_HPP_
