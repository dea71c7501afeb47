// The InferenceX report as Markdown, self-contained HTML (inline SVG trend and comparison
// charts), JSON and Excel (the benchmark table, the setting comparison, the changes).
#ifndef SKILLRT_DAILY_TRACKERS_BENCH_REPORT_HPP_
#define SKILLRT_DAILY_TRACKERS_BENCH_REPORT_HPP_

#include <string>
#include <vector>

#include "bench_analysis.hpp"
#include "model.hpp"

namespace skillrt::daily_trackers {

struct BenchReportData {
  std::string as_of;
  BenchOptions options;
  std::vector<SourceStatus> sources;
  std::vector<BenchPoint> points;
  BenchAnalysis analysis;
  Json notes;
};

std::string bench_markdown(const BenchReportData& d);
std::string bench_html(const BenchReportData& d);
Json bench_json(const BenchReportData& d);
Json bench_summary(const BenchReportData& d);
// Throws InputError naming the file when it cannot be written.
void write_bench_xlsx(const BenchReportData& d, const std::string& path);

}  // namespace skillrt::daily_trackers

#endif  // SKILLRT_DAILY_TRACKERS_BENCH_REPORT_HPP_
