#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "router/router.hpp"

namespace {

using skillrt::router::Candidate;
using skillrt::router::Router;
using skillrt::router::SkillCard;

std::vector<SkillCard> small_cards() {
  return {
      {"weather-report",
       "Tells the weather forecast for a city: temperature, rain, wind.",
       {"weather", "forecast", "rain", "天气", "下雨"},
       {"明天上海会下雨吗", "what is the weather in Paris"}},
      {"fusion-attention-check",
       "Checks npu fusion attention kernels and their arguments.",
       {"fusion attention", "attention kernel", "flash attention"},
       {"check the attention kernel arguments"}},
      {"operator-docs",
       "Writes documentation pages for operators.",
       {"documentation", "operator", "doc page"},
       {"write the doc page of an operator"}},
  };
}

bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST_CASE("the obviously matching skill ranks first, with its matched terms", "[router]") {
  Router router(small_cards());
  auto ranked = router.rank_all("will it rain in Berlin, what's the forecast", 3);
  REQUIRE_FALSE(ranked.empty());
  CHECK(ranked[0].skill == "weather-report");
  CHECK(contains(ranked[0].matched, "rain"));
  CHECK(contains(ranked[0].matched, "forecast"));
  CHECK(ranked[0].score > 0.0);
  CHECK(ranked[0].score <= 1.0);
}

TEST_CASE("code identifiers are split before matching", "[router]") {
  Router router(small_cards());
  auto ranked = router.rank_all("npu_fusion_attention returns wrong shapes", 1);
  REQUIRE(ranked.size() == 1);
  CHECK(ranked[0].skill == "fusion-attention-check");
  CHECK(contains(ranked[0].matched, "fusion"));
  CHECK(contains(ranked[0].matched, "attention"));
}

TEST_CASE("Chinese requests reach English cards through the lexicon", "[router]") {
  Router router(small_cards());
  // 文档 and 算子 are lexicon words whose concepts (doc, operator) are in the English card.
  auto ranked = router.rank_all("给这个算子补一篇文档", 1);
  REQUIRE(ranked.size() == 1);
  CHECK(ranked[0].skill == "operator-docs");
  CHECK(std::any_of(ranked[0].matched.begin(), ranked[0].matched.end(),
                    [](const std::string& m) { return m.starts_with("文档"); }));
}

TEST_CASE("requests no skill serves route to none", "[router]") {
  Router router(small_cards());
  CHECK(router.rank("").empty());
  CHECK(router.rank("   \t\n").empty());
  CHECK(router.rank("qwzx blorp fnord").empty());
  CHECK(router.rank_all("qwzx blorp fnord").empty());
}

TEST_CASE("the threshold separates rank from rank_all", "[router]") {
  Router strict(small_cards(), 1.01);  // nothing can pass
  CHECK(strict.rank("what is the weather forecast, will it rain").empty());
  CHECK_FALSE(strict.rank_all("what is the weather forecast, will it rain").empty());
  Router open(small_cards(), 0.0);  // anything that matched passes
  CHECK(open.rank("weather", 5).size() == open.rank_all("weather", 5).size());
}

TEST_CASE("top_k limits the candidates", "[router]") {
  Router router(small_cards(), 0.0);
  auto all = router.rank_all("operator attention weather doc kernel rain", 10);
  CHECK(all.size() == 3);
  CHECK(router.rank_all("operator attention weather doc kernel rain", 2).size() == 2);
  CHECK(router.rank_all("operator attention weather doc kernel rain", 0).empty());
}

TEST_CASE("a router with no skills answers none", "[router]") {
  Router router({});
  CHECK(router.rank("anything at all").empty());
  CHECK(router.score("anything at all").empty());
}

TEST_CASE("features stay in range", "[router]") {
  Router router(small_cards());
  for (const auto& s : router.score("rain forecast doc operator attention 天气")) {
    CHECK(s.features.coverage >= 0.0);
    CHECK(s.features.coverage <= 1.0);
    CHECK(s.features.margin >= -1.0);
    CHECK(s.features.margin <= 1.0);
    CHECK(s.score >= 0.0);
    CHECK(s.score <= 1.0);
  }
}

TEST_CASE("scores mean the same with few or many skills loaded", "[router]") {
  // One calibration serves installations with 2 skills and with 200: idf is relative to a
  // term unique to one skill, so adding unrelated skills barely moves a clear match.
  auto cards = small_cards();
  Router few(cards);
  for (int i = 0; i < 60; ++i) {
    std::string id = std::to_string(i);
    cards.push_back({"filler-" + id,
                     "Unrelated filler skill number " + id + " about topic" + id,
                     {"topic" + id, "filler"},
                     {"ask about topic" + id}});
  }
  Router many(cards);
  const std::string text = "will it rain tomorrow, what is the forecast";
  auto a = few.rank_all(text, 1);
  auto b = many.rank_all(text, 1);
  REQUIRE(a.size() == 1);
  REQUIRE(b.size() == 1);
  CHECK(a[0].skill == b[0].skill);
  CHECK(a[0].score >= 0.5);
  CHECK(b[0].score >= 0.5);
  CHECK(std::abs(a[0].score - b[0].score) < 0.15);
}

TEST_CASE("rank is safe and deterministic across threads", "[router]") {
  Router router(small_cards());
  const std::vector<std::string> texts = {"rain tomorrow?", "npu_fusion_attention kernel",
                                          "算子文档", "nothing relevant here"};
  std::vector<std::vector<Candidate>> expected;
  for (const auto& t : texts) expected.push_back(router.rank_all(t, 3));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < 200; ++i) {
        size_t k = static_cast<size_t>(i + w) % texts.size();
        auto got = router.rank_all(texts[k], 3);
        bool same = got.size() == expected[k].size();
        for (size_t c = 0; same && c < got.size(); ++c) {
          same = got[c].skill == expected[k][c].skill && got[c].score == expected[k][c].score &&
                 got[c].matched == expected[k][c].matched;
        }
        if (!same) ++mismatches[static_cast<size_t>(w)];
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(mismatches == std::vector<int>(4, 0));
}
