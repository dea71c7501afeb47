// Routing quality on labelled requests: top-1 accuracy, accuracy on out-of-scope requests,
// ordered multi-intent answers, calibration (confidence against accuracy) and the confusion
// matrix. Used by the evaluation tests, the calibration tool and the bench.
#pragma once

#include <array>
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
  std::string skill;  // expected skill (the first one for a multi-intent request), or "none"
  // Every skill the request asks for, in the order it asks for them: {skill} for a
  // single-intent request, empty for "none".
  std::vector<std::string> skills;
  std::string lang;    // zh | en | mixed
  std::string split;   // dev (used while tuning) | test (held out) | heldout (held-out file)
  std::string kind;    // optional: single | cross | multi | offtopic
  std::string source;  // optional: where the wording comes from

  bool multi_intent() const { return skills.size() > 1; }
};

// Reads JSON lines {"id","text","skill","lang","split"} with optional "skills" (the ordered
// list for a multi-intent request; its first item must equal "skill"), "kind" and "source".
// A bad line is an error naming the file and line.
Result<std::vector<LabelledRequest>> load_labelled(const std::filesystem::path& path);

struct Miss {
  LabelledRequest request;
  std::string predicted;  // "none" when nothing passed the threshold; "a > b" for several
  double score = 0.0;
};

// Confidence against accuracy: requests binned by the confidence of the best candidate, and
// how often that candidate was the expected skill (never, for out-of-scope requests).
struct ReliabilityBin {
  size_t count = 0, correct = 0;
  double confidence_sum = 0.0;
};

struct EvalReport {
  size_t in_scope = 0, in_scope_correct = 0;
  size_t out_of_scope = 0, out_of_scope_correct = 0;
  // Multi-intent requests, and those whose answer was exactly the expected ordered list.
  size_t multi_intent = 0, multi_intent_exact = 0;
  // Single-intent in-scope requests answered with more than one skill: as several tasks
  // (a wrong split), or with alternatives after the best.
  size_t single_as_tasks = 0, single_with_alternatives = 0;
  std::array<ReliabilityBin, 10> reliability{};
  // expected -> predicted -> count; "none" on either side for out-of-scope.
  std::map<std::string, std::map<std::string, size_t>> confusion;
  std::vector<Miss> misses;  // top-1 wrong, or a multi-intent answer not exactly as expected

  double top1_accuracy() const;
  double none_accuracy() const;
  double multi_intent_accuracy() const;
  // Expected calibration error: the count-weighted mean gap between confidence and accuracy.
  double calibration_error() const;
};

// How many skills an answer may list: more than any request here asks for.
inline constexpr size_t kAnswerLength = 5;

// Evaluates the requests whose split is in `splits` (all when empty). The answer to a request
// is Router::rank(text, kAnswerLength): its first skill is the top-1 answer, the whole list
// the ordered answer to a multi-intent request.
EvalReport evaluate(const Router& router, const std::vector<LabelledRequest>& requests,
                    const std::vector<std::string>& splits = {});

// Human-readable report: headline numbers, the reliability table, the confusion matrix (rows
// expected, columns predicted, only labels that occur) and every miss.
std::string format_report(const EvalReport& report, std::string_view title);

}  // namespace skillrt::router
