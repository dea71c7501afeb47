// Free text -> the skills a request asks for, with calibrated scores and the terms that
// explain each one.
//
// Lexical retrieval: every skill card (name, description, keywords, example requests) is
// analysed once into weighted terms (BM25-style saturation and inverse document frequency
// across skills); a request is analysed the same way and scored against an inverted index.
// Chinese text is matched through a domain lexicon and character bigrams, English through
// light stemming, identifiers through splitting. The request's structure decides how much
// each of its words weighs: the task it asks for (an action word and the head of its object)
// outranks the vocabulary it only mentions, declined or already-done work weighs less, and
// "A, then B" is routed part by part. A logistic model over five features turns the raw
// score into a probability-like confidence; below the threshold the answer is none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::router {

struct SkillCard {
  std::string name, description;
  std::vector<std::string> keywords, examples;
};

struct Candidate {
  std::string skill;
  double score = 0.0;                // calibrated confidence in [0, 1]
  std::vector<std::string> matched;  // request terms that hit this skill, strongest first
  // For a request that asks for several tasks one after another: which one this skill serves
  // (1, 2, ...), in the request's order. 0 for a single-task request, whose further
  // candidates are alternatives.
  size_t task = 0;
};

// What the calibration model sees for one candidate; exposed for the calibration tool and
// for `--explain` style diagnostics.
struct Features {
  double raw = 0.0;       // sum over request terms of weight * idf * saturated tf
  double coverage = 0.0;  // share of the request's idf mass this skill matched, [0, 1]
  double margin = 0.0;    // (raw - best other raw) / (raw + 1), clamped to [-1, 1]
  double matched = 0.0;   // request content this skill matched, in units (about words)
  // Share of the request's content that any card knows, [0, 1]: the same for every skill.
  // An off-topic request that mentions a word of the field ("写一首关于 NPU 的诗") is mostly
  // words no skill has.
  double known = 0.0;
};

struct ScoredSkill {
  size_t card = 0;  // index into cards()
  Features features;
  double score = 0.0;
};

// Logistic calibration: score = 1 / (1 + exp(-(bias + w_raw*log1p(raw) + w_cov*coverage +
// w_margin*margin + w_matched*log1p(matched) + w_known*known))). Fitted on the training split
// of tests/data/routing_dev.jsonl by bench/router/router_calibrate (see docs/routing.md).
struct Calibration {
  double bias = 0.0, w_raw = 0.0, w_coverage = 0.0, w_margin = 0.0, w_matched = 0.0, w_known = 0.0;
  static Calibration fitted();
  double apply(const Features& f) const;
};

// Term weighting. The defaults are what the calibration was fitted with; other values are
// for experiments (router_calibrate --grid), not for production use.
struct Weights {
  // Card fields: a name or a keyword its author chose says more than a description word.
  double name = 3.0, keywords = 2.0, description = 1.0, examples = 1.0;
  // BM25 saturation and length normalisation.
  double k1 = 1.2, b = 0.4;
  // Request terms by origin: a Chinese character bigram is weak evidence on its own.
  double word = 1.0, concept_word = 0.7, cjk_word = 1.0, cjk_bigram = 0.3;
  // Request terms by role (detail::Role): the task asked for outranks what is mentioned.
  double action = 1.5, object = 2.0, negated = 0.3, context = 0.5;
};

class Router {
 public:
  static constexpr double kDefaultThreshold = 0.5;

  explicit Router(std::vector<SkillCard> cards, double threshold = kDefaultThreshold);
  Router(std::vector<SkillCard> cards, double threshold, Calibration calibration,
         Weights weights = {});
  ~Router();
  Router(Router&&) noexcept;
  Router& operator=(Router&&) noexcept;
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  // The skills the request asks for, at most top_k. For a request with several tasks one
  // after another ("analyse last week's PRs, then adapt the operators"), one skill per task
  // in the request's order (Candidate::task 1, 2, ...); otherwise the candidates at or above
  // the threshold, best first. Empty means none. Safe to call from many threads at once.
  std::vector<Candidate> rank(std::string_view text, size_t top_k = 5) const;
  // The same, then the best others regardless of threshold up to top_k (for "nearest
  // skills" messages and diagnostics).
  std::vector<Candidate> rank_all(std::string_view text, size_t top_k = 5) const;
  // Every skill with a non-zero raw score for the whole request, highest raw score first,
  // with its features. Only the best 16 get coverage and matched computed; the rest are too
  // far behind to pass.
  std::vector<ScoredSkill> score(std::string_view text) const;

  double threshold() const { return threshold_; }
  const std::vector<SkillCard>& cards() const;

 private:
  struct Index;
  struct Query;
  std::vector<ScoredSkill> score(const Query& query) const;
  std::vector<Candidate> ranked(std::string_view text, size_t top_k, bool apply_threshold) const;

  std::unique_ptr<const Index> index_;
  double threshold_;
  Calibration calibration_;
};

}  // namespace skillrt::router
