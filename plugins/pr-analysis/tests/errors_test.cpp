// Bad input gives one clear error; a selection with nothing in it gives an empty report that
// says why.
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "errors.hpp"
#include "run.hpp"
#include "test_support.hpp"

namespace pra = skillrt::pr_analysis;
using pra_test::json;

TEST_CASE("errors: a path that is not a repository names the path and what to pass") {
  pra_test::TempDir dir("notrepo");
  try {
    pra::run_pr_analysis({{"repo", dir.str("nowhere")}, {"since", "2026-11-01"}}, {});
    FAIL("no error");
  } catch (const pra::InputError& e) {
    const std::string m = e.what();
    CHECK(m.find(dir.str("nowhere")) != std::string::npos);
    CHECK(m.find("not a git repository") != std::string::npos);
  }
}

TEST_CASE("errors: a window without commits is an empty report that says why") {
  pra_test::TempDir dir("window");
  pra_test::make_planted(dir);
  const json out = pra::run_pr_analysis({{"repo", dir.str("pytorch")},
                                         {"since", "2025-01-01"},
                                         {"until", "2025-01-31"},
                                         {"output_dir", dir.str("out")}},
                                        {});
  CHECK(out["summary"]["prs"] == 0);
  const std::string why = out["empty_reason"];
  CHECK(why.find("no commits") != std::string::npos);
  CHECK(why.find("2025-01-01") != std::string::npos);
  CHECK(why.find("newest commit is from 2026-11-") != std::string::npos);
  // The written report carries the reason too.
  const std::string md = pra_test::read_file(dir.path() / "out" / "pr-analysis.md");
  CHECK(md.find(why) != std::string::npos);
}

TEST_CASE("errors: a revision range that does not exist names the range") {
  pra_test::TempDir dir("range");
  pra_test::make_planted(dir);
  CHECK_THROWS_WITH(
      pra::run_pr_analysis({{"repo", dir.str("pytorch")}, {"rev_range", "v9.9.9..HEAD"}}, {}),
      Catch::Contains("rev_range 'v9.9.9..HEAD' does not exist"));
  CHECK_THROWS_AS(pra::run_pr_analysis({{"repo", dir.str("pytorch")}, {"rev_range", "HEAD"}}, {}),
                  pra::InputError);
  const json out =
      pra::run_pr_analysis({{"repo", dir.str("pytorch")}, {"rev_range", "HEAD..HEAD~3"}}, {});
  CHECK(out["prs"].empty());
  CHECK(out["empty_reason"].get<std::string>().find("swap them") != std::string::npos);
}

TEST_CASE("errors: bad dates, reversed windows and missing selections") {
  pra_test::TempDir dir("dates");
  pra_test::make_planted(dir);
  const std::string repo = dir.str("pytorch");
  CHECK_THROWS_WITH(pra::run_pr_analysis({{"repo", repo}, {"since", "last week"}}, {}),
                    Catch::Contains("YYYY-MM-DD"));
  CHECK_THROWS_WITH(
      pra::run_pr_analysis({{"repo", repo}, {"since", "2026-11-09"}, {"until", "2026-11-01"}}, {}),
      Catch::Contains("swap them"));
  CHECK_THROWS_WITH(pra::run_pr_analysis({{"repo", repo}}, {}), Catch::Contains("rev_range"));
  CHECK_THROWS_WITH(pra::run_pr_analysis({{"since", "2026-11-01"}}, {}),
                    Catch::Contains("`repo` is required"));
  CHECK_THROWS_WITH(
      pra::run_pr_analysis(
          {{"repo", repo}, {"since", "2026-11-01"}, {"op_plugin", dir.str("no-op-plugin")}}, {}),
      Catch::Contains("no-op-plugin"));
  const json out = pra::run_pr_analysis({{"repo", repo}, {"prs", {5}}}, {});
  CHECK(out["empty_reason"].get<std::string>().find("#5") != std::string::npos);
}

TEST_CASE("errors: progress counts commits, and a cancelled run stops and writes nothing") {
  pra_test::TempDir dir("cancel");
  const json planted = pra_test::make_planted(dir);
  const size_t commits = planted["changes"].size();
  std::vector<std::pair<double, double>> seen;
  pra::RunHooks hooks;
  hooks.progress = [&](double done, double total, const std::string&) {
    seen.emplace_back(done, total);
  };
  pra::run_pr_analysis({{"repo", dir.str("pytorch")}, {"since", "2026-11-01"}}, hooks);
  REQUIRE_FALSE(seen.empty());
  CHECK(seen.front().first == 0);
  CHECK(seen.back().first == static_cast<double>(commits - 1));
  for (const auto& [done, total] : seen) CHECK(total == static_cast<double>(commits));

  int polls = 0;
  hooks.cancelled = [&] { return ++polls > 3; };
  CHECK_THROWS_WITH(
      pra::run_pr_analysis(
          {{"repo", dir.str("pytorch")}, {"since", "2026-11-01"}, {"output_dir", dir.str("out")}},
          hooks),
      Catch::Contains("cancelled after 3 of"));
  CHECK_FALSE(pra_test::fs::exists(dir.path() / "out"));
}
