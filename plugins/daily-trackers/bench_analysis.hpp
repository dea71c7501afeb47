// What the InferenceX report says, computed without judgement calls hidden in prose: points
// new, gone or moved beyond the threshold since the last finished run; hardware and models seen
// for the first time; the chosen sequence setting (8k input / 1k output by default) compared
// across hardware; and the trend of each hardware over the dates in the history.
#ifndef SKILLRT_DAILY_TRACKERS_BENCH_ANALYSIS_HPP_
#define SKILLRT_DAILY_TRACKERS_BENCH_ANALYSIS_HPP_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model.hpp"

namespace skillrt::daily_trackers {

struct PointChange {
  std::string kind;  // "new", "removed", "moved"
  BenchPoint point;
  std::string metric;  // for "moved"
  double before = 0;
  double after = 0;
  double pct = 0;  // (after - before) / before * 100
  bool better = false;

  Json to_json() const;
};

// The best configuration of one model on one hardware in the chosen setting.
struct SettingRow {
  std::string model;
  std::string hardware;
  BenchPoint best;             // the point with the highest tput_per_gpu
  double ratio_to_leader = 0;  // best tput_per_gpu / the model's leader's

  Json to_json() const;
};

struct Trend {
  std::string model;
  std::vector<std::string> dates;
  // hardware -> one value per date (nullopt: no data that day)
  std::map<std::string, std::vector<std::optional<double>>> throughput;  // best tput_per_gpu
  std::map<std::string, std::vector<std::optional<double>>> latency;     // lowest median_e2el
};

struct BenchOptions {
  double threshold_pct = 5.0;
  int64_t isl = 8192;
  int64_t osl = 1024;
};

struct BenchAnalysis {
  bool has_previous = false;
  std::vector<PointChange> changes;
  std::vector<std::string> new_hardware;
  std::vector<std::string> new_models;
  std::vector<SettingRow> setting;
  std::vector<Trend> trends;
  size_t setting_points = 0;
};

// `history` is every point of earlier finished runs and of this run, with its run id.
BenchAnalysis analyze_bench(const std::vector<BenchPoint>& current,
                            const std::vector<std::pair<int64_t, BenchPoint>>& history, int64_t run,
                            std::optional<int64_t> previous, const BenchOptions& o);

// The metrics compared between runs, and whether higher is better.
const std::vector<std::pair<std::string, bool>>& compared_metrics();

}  // namespace skillrt::daily_trackers

#endif  // SKILLRT_DAILY_TRACKERS_BENCH_ANALYSIS_HPP_
