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

namespace {

using skillrt::router::Weights;

// Three skills whose words overlap the way real ones do: a doc review mentions precision, a
// precision comparison mentions docs.
std::vector<SkillCard> task_cards() {
  return {
      {"doc-checker",
       "Reviews documentation pages and tutorials for broken links and outdated steps.",
       {"review docs", "documentation", "tutorial", "broken link", "文档审查", "教程"},
       {"review the tutorial pages", "审一下这篇文档"}},
      {"precision-compare",
       "Compares NPU and CPU outputs and finds the cause of precision errors.",
       {"precision", "accuracy", "compare outputs", "tuning", "精度", "对比", "调优", "误差",
        "精度调优"},
       {"compare the precision of these outputs", "精度对比一下，误差多大", "精度调优",
        "这篇精度调优怎么做"}},
      {"test-writer",
       "Writes unit tests for an operator.",
       {"unit test", "test case", "单元测试"},
       {"write unit tests for my op", "生成单元测试"}},
  };
}

// Every role weighs 1: the bag of words the router was before it read the request.
Weights without_roles() {
  Weights w;
  w.action = w.object = w.negated = w.context = 1.0;
  return w;
}

std::vector<std::string> skills_of(const std::vector<Candidate>& candidates) {
  std::vector<std::string> out;
  for (const auto& c : candidates) out.push_back(c.skill);
  return out;
}

}  // namespace

TEST_CASE("the task a request asks for outranks the vocabulary it mentions", "[router]") {
  using skillrt::router::Calibration;
  Router reading(task_cards(), 0.0);
  Router bag(task_cards(), 0.0, Calibration::fitted(), without_roles());
  auto best = [](const Router& r, std::string_view text) {
    auto ranked = r.rank_all(text, 1);
    return ranked.empty() ? std::string() : ranked[0].skill;
  };
  // Read as a bag of words, the precision vocabulary wins; read as a task, the review does.
  const std::string review = "review this doc about precision tuning and accuracy";
  CHECK(best(bag, review) == "precision-compare");
  CHECK(best(reading, review) == "doc-checker");
  // A declined task does not decide the route either.
  const std::string declined = "不用对比精度，审一下这篇教程";
  CHECK(best(bag, declined) == "precision-compare");
  CHECK(best(reading, declined) == "doc-checker");
  // The same words asked the other way round go to the other skill.
  CHECK(best(reading, "对比一下这篇文档里的精度误差") == "precision-compare");
  CHECK(best(reading, "帮我审一下精度调优文档") == "doc-checker");
}

TEST_CASE("a request with several tasks gets one skill per task, in its order", "[router]") {
  Router router(task_cards(), 0.0);
  auto forward = router.rank("write unit tests for my op, then review the tutorial pages");
  CHECK(skills_of(forward) == std::vector<std::string>{"test-writer", "doc-checker"});
  REQUIRE(forward.size() == 2);
  CHECK(forward[0].task == 1);
  CHECK(forward[1].task == 2);
  CHECK_FALSE(forward[1].matched.empty());
  auto backward = router.rank("先审一下这篇教程，然后生成单元测试");
  CHECK(skills_of(backward) == std::vector<std::string>{"doc-checker", "test-writer"});
  // top_k cuts the list; rank_all adds the nearest others after the tasks.
  CHECK(skills_of(router.rank("write unit tests for my op, then review the tutorial pages", 1)) ==
        std::vector<std::string>{"test-writer"});
  auto all = router.rank_all("write unit tests for my op, then review the tutorial pages", 3);
  REQUIRE(all.size() >= 2);
  CHECK(skills_of(all)[0] == "test-writer");
  CHECK(skills_of(all)[1] == "doc-checker");
}

TEST_CASE("a request to make something no skill knows is answered none", "[router]") {
  Router router(task_cards());
  // The field's words are there, but what is to be written is no skill's work.
  CHECK(router.rank("write a limerick about unit tests and precision").empty());
  CHECK(router.rank("写一首关于单元测试的诗").empty());
  // What a skill makes is still routed.
  CHECK(skills_of(router.rank("write unit tests for my op")) ==
        std::vector<std::string>{"test-writer"});
}

TEST_CASE("a single task is not split, and its candidates carry no task number", "[router]") {
  Router router(task_cards(), 0.0);
  // Both parts name the same skill's work: one task.
  auto same = router.rank("write unit tests for my op, then also generate a test case");
  REQUIRE_FALSE(same.empty());
  CHECK(same[0].skill == "test-writer");
  CHECK(same[0].task == 0);
  // A part that is only a verb is no task of its own.
  auto verb = router.rank("compare the precision of these outputs and fix");
  REQUIRE_FALSE(verb.empty());
  CHECK(verb[0].skill == "precision-compare");
  CHECK(verb[0].task == 0);
}
