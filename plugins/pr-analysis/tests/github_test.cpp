// The GitHub source against a local fake API (data/fake_github.py on 127.0.0.1, port chosen by
// the OS): paging, rate-limit waits, a 500 then success, a timeout, bad JSON. Waits are
// recorded through the sleep hook instead of slept, so nothing here depends on timing.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "errors.hpp"
#include "github_source.hpp"
#include "run.hpp"
#include "test_support.hpp"

namespace pra = skillrt::pr_analysis;
using pra_test::json;

namespace {

json input_for(const pra_test::FakeGithub& gh, const std::string& scenario) {
  return {{"source", "github"},
          {"since", "2026-11-01"},
          {"until", "2026-11-30"},
          {"github",
           {{"api_url", gh.url(scenario)},
            {"per_page", 2},
            {"timeout_ms", 5000},
            {"max_retries", 2},
            {"retry_base_ms", 10}}}};
}

struct Recorder {
  std::vector<double> sleeps;
  pra::RunHooks hooks() {
    pra::RunHooks h;
    h.sleep = [this](double s) { sleeps.push_back(s); };
    return h;
  }
};

std::set<int64_t> numbers(const json& out) {
  std::set<int64_t> s;
  for (const json& p : out["prs"]) s.insert(p["pr"].get<int64_t>());
  return s;
}

}  // namespace

TEST_CASE("github: pages through PRs and files, keeps merged PRs of the window, labels count") {
  pra_test::FakeGithub gh;
  Recorder rec;
  const json out = pra::run_pr_analysis(input_for(gh, "ok"), rec.hooks());
  CHECK(numbers(out) == std::set<int64_t>{501, 502, 507});
  CHECK(rec.sleeps.empty());
  // 3 list pages (stops at the PR updated before the window) + 1 + 2 + 1 file pages.
  CHECK(out["source"]["github"]["requests"] == 7);
  // Merge order: 507 (Nov 2), 502 (Nov 3), 501 (Nov 4). The patch of 507 shows a dispatch line
  // but not its operator's `- func:` line: labelled by path, and the report says why.
  const json& p507 = out["prs"][0];
  REQUIRE(p507["pr"] == 507);
  CHECK(p507["impact"] == "low");
  CHECK(p507["rules"] == json::array({"op-yaml-other"}));
  REQUIRE(p507["problems"].size() == 1);
  CHECK(p507["problems"][0].get<std::string>().find("native_functions.yaml:1547: the patch does "
                                                    "not show the operator entry") !=
        std::string::npos);
  const json& p502 = out["prs"][1];
  REQUIRE(p502["pr"] == 502);
  CHECK(p502["impact"] == "high");
  CHECK(p502["categories"] == json::array({"operator-schema", "autograd", "bc-breaking"}));
  CHECK(p502["files"].size() == 3);
  CHECK(p502["unmatched_files"] == json::array({"torch/_C/libtorch.so"}));
  bool op = false;
  for (const json& e : p502["evidence"]) {
    if (e.value("op", "") == "abs" && e["op_change"] == "signature_changed") {
      op = true;
      CHECK(e["line"] == 340);
      CHECK(e["new_schema"] == "abs(Tensor self, *, bool fast=False) -> Tensor");
    }
  }
  CHECK(op);
  const json& p501 = out["prs"][2];
  CHECK(p501["impact"] == "medium");
  CHECK(p501["evidence"][0]["line"] == 22);
  CHECK(p501["commits"][0]["url"] ==
        "https://github.com/pytorch/pytorch/commit/00000000000000000000000000000000000001f5");
}

TEST_CASE("github: PRs by number") {
  pra_test::FakeGithub gh;
  json in = input_for(gh, "ok");
  in.erase("since");
  in.erase("until");
  in["prs"] = {501};
  const json out = pra::run_pr_analysis(in, {});
  CHECK(numbers(out) == std::set<int64_t>{501});
  in["prs"] = {999};
  CHECK_THROWS_WITH(pra::run_pr_analysis(in, {}), Catch::Contains("HTTP 404"));
}

TEST_CASE("github: Retry-After on 429 is waited out, then the run succeeds") {
  pra_test::FakeGithub gh;
  Recorder rec;
  const json out = pra::run_pr_analysis(input_for(gh, "ratelimit"), rec.hooks());
  CHECK(numbers(out) == std::set<int64_t>{501, 502, 507});
  CHECK(rec.sleeps == std::vector<double>{1.0});
  CHECK(out["source"]["github"]["rate_limit_waits_s"] == json::array({1.0}));
}

TEST_CASE("github: an exhausted X-RateLimit-Remaining waits until X-RateLimit-Reset") {
  pra_test::FakeGithub gh;
  Recorder rec;
  const json out = pra::run_pr_analysis(input_for(gh, "reset"), rec.hooks());
  CHECK(numbers(out) == std::set<int64_t>{501, 502, 507});
  REQUIRE(rec.sleeps.size() == 1);
  CHECK(rec.sleeps[0] >= 1.0);
  CHECK(rec.sleeps[0] <= 4.0);
  json in = input_for(gh, "reset");
  in["github"]["max_wait_s"] = 0;
  pra_test::FakeGithub gh2;
  in["github"]["api_url"] = gh2.url("reset");
  CHECK_THROWS_WITH(pra::run_pr_analysis(in, rec.hooks()), Catch::Contains("max_wait_s"));
}

TEST_CASE("github: a 500 is retried with backoff and the run succeeds") {
  pra_test::FakeGithub gh;
  Recorder rec;
  const json out = pra::run_pr_analysis(input_for(gh, "flaky"), rec.hooks());
  CHECK(numbers(out) == std::set<int64_t>{501, 502, 507});
  // Every distinct path fails once: 3 list pages and 4 file pages.
  CHECK(out["source"]["github"]["retries"] == 7);
  REQUIRE_FALSE(rec.sleeps.empty());
  CHECK(rec.sleeps[0] == Approx(0.01));
}

TEST_CASE("github: a timeout fails after the retries with a clear error and no report") {
  pra_test::FakeGithub gh;
  pra_test::TempDir dir("timeout");
  json in = input_for(gh, "slow");
  in["github"]["timeout_ms"] = 200;
  in["github"]["max_retries"] = 1;
  in["output_dir"] = dir.str("out");
  Recorder rec;
  try {
    pra::run_pr_analysis(in, rec.hooks());
    FAIL("no error");
  } catch (const pra::SourceFailure& e) {
    const std::string m = e.what();
    CHECK(m.find("timed out after 200 ms") != std::string::npos);
    CHECK(m.find("2 attempts") != std::string::npos);
    CHECK(m.find("/slow/repos/pytorch/pytorch/pulls") != std::string::npos);
  }
  CHECK_FALSE(pra_test::fs::exists(dir.path() / "out"));
}

TEST_CASE("github: bad JSON is a clear error and no partial report is written") {
  pra_test::FakeGithub gh;
  pra_test::TempDir dir("badjson");
  json in = input_for(gh, "badjson");
  in["output_dir"] = dir.str("out");
  try {
    pra::run_pr_analysis(in, {});
    FAIL("no error");
  } catch (const pra::SourceFailure& e) {
    const std::string m = e.what();
    CHECK(m.find("not JSON") != std::string::npos);
    CHECK(m.find("/pulls/502/files") != std::string::npos);
    CHECK(m.find("no report was written") != std::string::npos);
  }
  CHECK_FALSE(pra_test::fs::exists(dir.path() / "out"));
}

TEST_CASE("github: a unified patch becomes hunks with line numbers on both sides") {
  const auto hunks =
      pra::parse_patch("@@ -3,2 +3,3 @@ ctx\n a\n-b\n+c\n+d\n\\ No newline at end of file\n", "f");
  REQUIRE(hunks.size() == 1);
  REQUIRE(hunks[0].lines.size() == 4);
  CHECK(hunks[0].lines[1].origin == '-');
  CHECK(hunks[0].lines[1].old_line == 4);
  CHECK(hunks[0].lines[3].new_line == 5);
  CHECK_THROWS_WITH(pra::parse_patch("@@ bad @@\n", "x.py"), Catch::Contains("x.py"));
}
