// InferenceX benchmark rows into BenchPoints. The accepted row is the one InferenceX's
// utils/process_result.py writes (agg_*.json: hw, model / infmax_model_prefix, framework,
// precision, spec_decoding, disagg, isl, osl, conc, tp or prefill/decode GPU counts, and metrics
// such as tput_per_gpu, median_ttft in seconds), flat or with the metrics under `metrics` as the
// dashboard's API returns them, in a JSON array (or an object holding one under results, rows or
// data) or a CSV with those column names. Any malformed row fails the whole source with the row
// number and field, so a half-read source never reaches the history.
#ifndef SKILLRT_DAILY_TRACKERS_BENCH_SOURCE_HPP_
#define SKILLRT_DAILY_TRACKERS_BENCH_SOURCE_HPP_

#include <stdexcept>
#include <string>
#include <vector>

#include "model.hpp"

namespace skillrt::daily_trackers {

class BenchFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `format` is json, csv or auto (by the first non-blank character). `where` names the source in
// errors. `as_of` dates rows that carry no date of their own.
std::vector<BenchPoint> parse_bench_rows(const std::string& text, const std::string& format,
                                         const std::string& where, const std::string& as_of);

}  // namespace skillrt::daily_trackers

#endif  // SKILLRT_DAILY_TRACKERS_BENCH_SOURCE_HPP_
