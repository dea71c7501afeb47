#include <catch2/catch.hpp>

#include "pr_map.hpp"

using skillrt::pr_analysis::map_commit_to_pr;

TEST_CASE("pr_map: the merge-bot trailer wins over the title suffix") {
  const auto l = map_commit_to_pr(
      "Fix thing (#111)\n\nBody.\n\nPull Request resolved: "
      "https://github.com/pytorch/pytorch/pull/222\nApproved by: https://github.com/x\n");
  REQUIRE(l.pr);
  CHECK(*l.pr == 222);
  CHECK(l.source == "trailer");
  CHECK_FALSE(l.revert);
}

TEST_CASE("pr_map: title suffix, the dashed trailer spelling, and no PR at all") {
  auto l = map_commit_to_pr("Fix thing (#123)\n\nno trailer\n");
  REQUIRE(l.pr);
  CHECK(*l.pr == 123);
  CHECK(l.source == "title");
  l = map_commit_to_pr("x\n\nPull-Request-resolved: https://github.com/pytorch/pytorch/pull/9\n");
  REQUIRE(l.pr);
  CHECK(*l.pr == 9);
  CHECK_FALSE(map_commit_to_pr("Fix thing (#12a)\n").pr);
  CHECK_FALSE(map_commit_to_pr("Fix thing (see #12) more\n").pr);
  CHECK_FALSE(map_commit_to_pr("Pull Request resolved: https://example.com/pull/3\n").pr);
}

TEST_CASE("pr_map: a bot revert maps to the reverted PR and keeps the reverted sha") {
  const auto l = map_commit_to_pr(
      "Revert \"Add x (#77)\"\n\nThis reverts commit abc123def.\n\nReverted "
      "https://github.com/pytorch/pytorch/pull/77 on behalf of https://github.com/y due to z\n");
  REQUIRE(l.pr);
  CHECK(*l.pr == 77);
  CHECK(l.source == "revert");
  CHECK(l.revert);
  CHECK(l.reverted_sha == "abc123def");
}
