// The values the daily trackers pass between sources, the history store, the analysis and the
// reports. Plain data; every field a report shows comes from a source, never from a default.
#ifndef SKILLRT_DAILY_TRACKERS_MODEL_HPP_
#define SKILLRT_DAILY_TRACKERS_MODEL_HPP_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace skillrt::daily_trackers {

using Json = nlohmann::json;

// The request cannot work as given (bad path, date, rule file): maps to invalid argument.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One PR, issue or (local mode) commit of a tracked repository.
struct TrackedItem {
  std::string repo;  // "vllm-project/vllm-ascend"
  std::string key;   // "#123", or "commit:<sha12>" for a commit that names no PR
  std::optional<int64_t> number;
  std::string kind;   // "pr", "issue" or "commit"
  std::string state;  // "open", "closed" or "merged"
  std::string title;
  std::string body;
  std::string author;
  std::string url;
  std::vector<std::string> labels;
  std::vector<std::string> files;  // local mode: paths the commit changed
  std::vector<int64_t> linked;     // "#N" references in the body ("Fixes #N", ...)
  int64_t comments = 0;
  std::string created_at;
  std::string updated_at;
  std::string closed_at;
  std::string merged_at;
  std::string sha;  // local mode

  Json to_json() const;
  static TrackedItem from_json(const Json& j);
};

// What happened to one source during a run; a failed source keeps the others going.
struct SourceStatus {
  std::string name;
  std::string mode;  // "github", "local", "http", "file"
  bool ok = false;
  bool resumed = false;  // its fetch was finished by an earlier, interrupted attempt
  size_t items = 0;
  std::string error;
  Json stats = Json::object();

  Json to_json() const;
};

// One InferenceX measurement: a configuration (the key fields) and its metrics.
struct BenchPoint {
  std::string model;  // infmax_model_prefix when present, else the model id
  std::string hardware;
  std::string framework;
  std::string precision;
  std::string spec_decoding;
  bool disagg = false;
  int64_t isl = 0;
  int64_t osl = 0;
  int64_t conc = 0;
  int64_t gpus = 0;    // tp, or prefill + decode GPUs for disaggregated runs
  std::string date;    // the row's own date when it has one, else the run's as-of date
  std::string source;  // which configured source it came from
  std::map<std::string, double> metrics;  // tput_per_gpu, median_ttft (s), ...

  std::string key() const;
  std::optional<double> metric(const std::string& name) const;
  Json to_json() const;
  static BenchPoint from_json(const Json& j);
};

}  // namespace skillrt::daily_trackers

#endif  // SKILLRT_DAILY_TRACKERS_MODEL_HPP_
