// The dev set (tests/data/dev) is the one the ranking was tuned on; this keeps it from sliding.
#include <catch2/catch.hpp>

#include "scoring.hpp"

TEST_CASE("the dev set scores above its floor", "[score]") {
  const auto score = torchnpu_helper_test::score_file(
      std::string(SKILLRT_TORCHNPU_HELPER_DIR) + "/data/dev/questions.jsonl",
      SKILLRT_TORCHNPU_HELPER_CACHE);
  for (const auto& miss : score.misses) UNSCOPED_INFO(miss);
  REQUIRE(score.answerable > 0);
  REQUIRE(score.unanswerable > 0);
  CHECK(static_cast<double>(score.answered_right) / score.answerable >= 0.8);
  CHECK(static_cast<double>(score.declined_right) / score.unanswerable >= 0.66);
}
