// Routing quality on labelled requests: top-1 accuracy, accuracy on out-of-scope requests
// and the confusion matrix. Used by the evaluation test, the calibration tool and the bench.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "router/router.hpp"

namespace skillrt::router {

inline constexpr std::string_view kNoneLabel = "none";

struct LabelledRequest {
  int id = 0;
  std::string text;
  std::string skill;  // expected skill, or "none"
  std::string lang;   // zh | en | mixed
  std::string split;  // dev (used while tuning) | test (held out)
};

// Reads JSON lines {"id","text","skill","lang","split"}; a bad line is an error naming the
// file and line.
Result<std::vector<LabelledRequest>> load_labelled(const std::filesystem::path& path);

struct Miss {
  LabelledRequest request;
  std::string predicted;  // "none" when nothing passed the threshold
  double score = 0.0;
};

struct EvalReport {
  size_t in_scope = 0, in_scope_correct = 0;
  size_t out_of_scope = 0, out_of_scope_correct = 0;
  // expected -> predicted -> count; "none" on either side for out-of-scope.
  std::map<std::string, std::map<std::string, size_t>> confusion;
  std::vector<Miss> misses;

  double top1_accuracy() const;
  double none_accuracy() const;
};

// Evaluates the requests whose split is in `splits` (all when empty).
EvalReport evaluate(const Router& router, const std::vector<LabelledRequest>& requests,
                    const std::vector<std::string>& splits = {});

// Human-readable report: headline numbers, the confusion matrix (rows expected, columns
// predicted, only labels that occur) and every miss.
std::string format_report(const EvalReport& report, std::string_view title);

}  // namespace skillrt::router
