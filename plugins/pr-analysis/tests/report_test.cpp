// The written reports: Excel read back with openpyxl (Debian python3-openpyxl), Markdown grouped
// by impact, HTML self-contained with its SVG chart, JSON complete; dry runs write nothing.
#include <catch2/catch.hpp>

#include "run.hpp"
#include "test_support.hpp"

namespace pra = skillrt::pr_analysis;
using pra_test::json;

TEST_CASE("reports: the Excel workbook has the rows, hyperlinks, colours and sheets") {
  pra_test::TempDir dir("xlsx");
  const json planted = pra_test::make_planted(dir);
  const json out = pra::run_pr_analysis({{"repo", dir.str("pytorch")},
                                         {"since", planted["since"]},
                                         {"until", planted["until"]},
                                         {"output_dir", dir.str("out")},
                                         {"include_prs", true}},
                                        {});
  REQUIRE(out["dry_run"] == false);
  const std::string xlsx = out["reports"]["xlsx"];
  // The expectation file the checker reads: one row per PR, in report order.
  json expect{{"rows", json::array()}, {"summary", out["summary"]}};
  for (const json& p : out["prs"]) {
    expect["rows"].push_back({{"url", p["url"]},
                              {"impact", p["impact"]},
                              {"title", p["title"]},
                              {"commit_url", p["commits"].back()["url"]}});
  }
  std::ofstream(dir.str("expect.json")) << expect.dump();
  const std::string cmd = std::string(pra_test::kPython) + " '" + pra_test::kData +
                          "/check_xlsx.py' '" + xlsx + "' '" + dir.str("expect.json") + "' > '" +
                          dir.str("check.log") + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  INFO(pra_test::read_file(dir.path() / "check.log"));
  CHECK(rc == 0);
}

TEST_CASE("reports: Markdown, HTML and JSON carry the same analysis") {
  pra_test::TempDir dir("md");
  const json planted = pra_test::make_planted(dir);
  const json out = pra::run_pr_analysis({{"repo", dir.str("pytorch")},
                                         {"since", planted["since"]},
                                         {"until", planted["until"]},
                                         {"output_dir", dir.str("out")},
                                         {"formats", {"json", "md", "html"}}},
                                        {});
  CHECK_FALSE(out.contains("prs"));
  CHECK_FALSE(out["reports"].contains("xlsx"));
  const json full = json::parse(pra_test::read_file(out["reports"]["json"].get<std::string>()));
  CHECK(full["prs"].size() == out["summary"]["prs"]);
  const std::string md = pra_test::read_file(out["reports"]["md"].get<std::string>());
  const size_t high = md.find("\n## high\n");
  const size_t medium = md.find("\n## medium\n");
  const size_t review = md.find("\n## needs-review\n");
  CHECK(high != std::string::npos);
  CHECK(medium > high);
  CHECK(review > medium);
  CHECK(md.find("caffe2/perfkernels/embedding_lookup.cc", review) != std::string::npos);
  const std::string html = pra_test::read_file(out["reports"]["html"].get<std::string>());
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("<rect") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("src=\"http") == std::string::npos);
  CHECK(html.find("https://github.com/pytorch/pytorch/pull/90001") != std::string::npos);
  // No temporary file is left behind.
  for (const auto& e : pra_test::fs::directory_iterator(dir.path() / "out")) {
    CHECK(e.path().filename().string().rfind(".", 0) != 0);
  }
}

TEST_CASE("reports: without output_dir nothing is written") {
  pra_test::TempDir dir("dry");
  pra_test::make_planted(dir);
  const auto before = std::distance(pra_test::fs::directory_iterator(dir.path()),
                                    pra_test::fs::directory_iterator());
  const json out = pra::run_pr_analysis({{"repo", dir.str("pytorch")}, {"prs", {90011}}}, {});
  CHECK(out["dry_run"] == true);
  CHECK(out["reports"].empty());
  CHECK(out["prs"].size() == 1);
  CHECK(std::distance(pra_test::fs::directory_iterator(dir.path()),
                      pra_test::fs::directory_iterator()) == before);
}

TEST_CASE("report: the files keep every evidence item, only the tool result is trimmed") {
  using skillrt::pr_analysis::kListedInResult;
  json prs = json::array();
  json p{{"evidence", json::array()}, {"npu_hits", json::array()}};
  for (int i = 0; i < 75; ++i) p["evidence"].push_back({{"rule", "r"}, {"n", i}});
  for (int i = 0; i < 3; ++i) p["npu_hits"].push_back({{"n", i}});
  prs.push_back(p);
  prs.push_back(json{{"evidence", json::array({json{{"n", 0}}})}});
  json trimmed = prs;
  CHECK(skillrt::pr_analysis::trim_for_result(trimmed) == 1);
  CHECK(trimmed[0]["evidence"].size() == kListedInResult);
  CHECK(trimmed[0]["evidence_total"] == 75);
  CHECK(trimmed[0]["evidence"].back()["n"] == kListedInResult - 1);
  CHECK_FALSE(trimmed[0].contains("npu_hits_total"));
  CHECK(trimmed[1] == prs[1]);
}
