// Prints the score of a question set and every miss; run by hand on the held-out set.
#include <cstdio>
#include <exception>

#include "helper.hpp"
#include "scoring.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <questions.jsonl> [cache_dir]\n", argv[0]);
    return 2;
  }
  try {
    const std::string cache = argc > 2 ? argv[2] : skillrt::torchnpu_helper::default_cache_dir();
    const auto score = torchnpu_helper_test::score_file(argv[1], cache);
    std::printf("answerable: %zu/%zu right (%.1f%%)\n", score.answered_right, score.answerable,
                score.answerable ? 100.0 * score.answered_right / score.answerable : 0.0);
    std::printf("unanswerable: %zu/%zu declined (%.1f%%)\n", score.declined_right,
                score.unanswerable,
                score.unanswerable ? 100.0 * score.declined_right / score.unanswerable : 0.0);
    std::printf("slowest answer: %.1f ms\n", score.worst_ms);
    for (const auto& miss : score.misses) std::printf("MISS %s\n", miss.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "torchnpu_helper_score: %s\n", e.what());
    return 1;
  }
  return 0;
}
