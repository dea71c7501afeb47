// Prints the score of a question set and every miss; run by hand on a held-out set.
// `--show` also prints each answer (status, answer line, cited quotes): for development sets
// only, never for a held-out set before its one scoring.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "helper.hpp"
#include "scoring.hpp"

int main(int argc, char** argv) {
  std::string set;
  std::string cache;
  bool show = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--show") == 0) {
      show = true;
    } else if (set.empty()) {
      set = argv[i];
    } else {
      cache = argv[i];
    }
  }
  if (set.empty()) {
    std::fprintf(stderr, "usage: %s <questions.jsonl> [cache_dir] [--show]\n", argv[0]);
    return 2;
  }
  try {
    if (cache.empty()) cache = skillrt::torchnpu_helper::default_cache_dir();
    const auto score = torchnpu_helper_test::score_file(set, cache, show);
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
