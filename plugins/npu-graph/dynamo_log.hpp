// Reads dynamo, inductor and torchair/GE messages out of a log stream for npu-graph-logs: graph
// breaks (user file and line, reason, gb id and link, hints), recompilations and cache-limit
// hits (function, first failing guard), inductor fallbacks and perf hints, torchair converter
// and GE messages. Formats of PyTorch 2.0 to 2.11 (and torchdynamo before it) are read; the
// lines are fed one at a time and only bounded counters are kept, never the lines.
#ifndef SKILLRT_NPU_GRAPH_DYNAMO_LOG_HPP_
#define SKILLRT_NPU_GRAPH_DYNAMO_LOG_HPP_

#include <cstddef>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::npu_graph {

// What to change in user code per graph-break category and guard kind (data/dynamo_advice.yaml).
class DynamoAdvice {
 public:
  struct Entry {
    std::string id;
    std::string title;
    std::vector<std::string> match;  // lower-case substrings
    std::string suggestion;
  };
  DynamoAdvice(std::string_view yaml, const std::string& source);
  static const DynamoAdvice& builtin();

  // First entry whose substrings occur in `lower_text` (the last entry catches the rest).
  const Entry& graph_break(std::string_view lower_text) const;
  const Entry& guard(std::string_view lower_text) const;
  const std::string& cache_limit() const { return cache_limit_; }

 private:
  std::vector<Entry> graph_breaks_;
  std::vector<Entry> guards_;
  std::string cache_limit_;
};

struct DynamoLimits {
  size_t max_sites = 10000;  // distinct graph-break sites, recompiled functions, ops ...
  size_t max_events = 200;   // recompile events kept verbatim, in log order
  size_t max_guards_per_function = 8;
};

class DynamoLogReader {
 public:
  explicit DynamoLogReader(const DynamoLimits& limits = {},
                           const DynamoAdvice& advice = DynamoAdvice::builtin());
  ~DynamoLogReader();
  DynamoLogReader(const DynamoLogReader&) = delete;
  DynamoLogReader& operator=(const DynamoLogReader&) = delete;

  // `file_rank` is the rank known from the path (-1 if none); a `[rankN]:` prefix overrides it.
  void begin_file(const std::string& path, int file_rank);
  // One line without its '\n'. `timestamp` is the last normalised timestamp seen in the file.
  // True when the line belongs to a dynamo message that reports a handled event (a graph
  // break's stack and internal traceback, a recompilation): not an error of the run.
  bool on_line(std::string_view line, size_t line_no, const std::string& timestamp);
  // Closes messages still open at the end of the file.
  void end_file();

  // Dynamo, inductor and torchair messages read in the current file so far.
  size_t file_messages() const;

  // The summary: graph breaks ranked by count with suggestions, recompilations per function
  // and as events, fallbacks, perf hints, skipped frames, torchair/GE messages, actions.
  nlohmann::json result(size_t top) const;
  // Limits hit while reading, as sentences for the result's notes.
  std::vector<std::string> notes() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace skillrt::npu_graph

#endif  // SKILLRT_NPU_GRAPH_DYNAMO_LOG_HPP_
