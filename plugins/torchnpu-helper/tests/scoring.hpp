// Scores torchnpu-helper on a question set (tests/data/*/questions.jsonl, format in
// tests/data/heldout/README.md).
#ifndef SKILLRT_TORCHNPU_HELPER_TESTS_SCORING_HPP_
#define SKILLRT_TORCHNPU_HELPER_TESTS_SCORING_HPP_

#include <string>
#include <vector>

namespace torchnpu_helper_test {

struct Score {
  size_t answerable = 0;
  size_t answered_right = 0;
  size_t unanswerable = 0;
  size_t declined_right = 0;
  std::vector<std::string> misses;  // "id: why"
  double worst_ms = 0;
};

// `show` prints every answer to stdout as it is scored (development sets only).
Score score_file(const std::string& jsonl, const std::string& cache_dir, bool show = false);

}  // namespace torchnpu_helper_test

#endif  // SKILLRT_TORCHNPU_HELPER_TESTS_SCORING_HPP_
