// The development sets keep the skill from sliding: the first two held-out sets (each scored
// once, now development data), the dev set the ranking was first tuned on, and dev2. Each floor is
// the level reached when it was set; a change that answers fewer questions right, or declines fewer
// of the unanswerable ones, fails here and must say why in its commit.
#include <catch2/catch.hpp>

#include <string>

#include "scoring.hpp"

namespace {

void check_floor(const std::string& set, size_t answered, size_t declined) {
  const auto score = torchnpu_helper_test::score_file(
      std::string(SKILLRT_TORCHNPU_HELPER_DIR) + "/data/" + set, SKILLRT_TORCHNPU_HELPER_CACHE);
  for (const auto& miss : score.misses) UNSCOPED_INFO(miss);
  REQUIRE(score.answerable > 0);
  REQUIRE(score.unanswerable > 0);
  CHECK(score.answered_right >= answered);
  CHECK(score.declined_right >= declined);
}

}  // namespace

TEST_CASE("the first held-out set, now development data, stays at its level", "[score]") {
  // 49 and 8 since the unseen-word boost went (heldout2: eight English questions declined on
  // one function word for one "how much does it cost" decline kept here, h49).
  check_floor("heldout/questions.jsonl", 49, 8);  // of 55 and 10
}

TEST_CASE("the second held-out set, now development data, stays at its level", "[score]") {
  check_floor("heldout/heldout2.jsonl", 40, 13);  // of 62 and 13
}

TEST_CASE("the dev set stays at its level", "[score]") {
  check_floor("dev/questions.jsonl", 27, 3);  // of 27 and 3
}

TEST_CASE("dev2 stays at its level", "[score]") {
  // 26 since the round that added heldout2's floor: e03 finds the API's own page but quotes
  // lines without its prerequisite.
  check_floor("dev/dev2.jsonl", 26, 8);  // of 30 and 8
}
