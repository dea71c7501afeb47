// The planted repository: every planted change gets its planted impact, categories, evidence
// (rule, file, line, operator and operator-diff kind) and NPU entries.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "run.hpp"
#include "test_support.hpp"

namespace pra = skillrt::pr_analysis;
using pra_test::json;

namespace {

std::string key_of(const json& c) {
  if (c["pr"].is_null()) return "commit:" + c["sha"].get<std::string>();
  return std::string(c["revert"].get<bool>() ? "revert:" : "pr:") +
         std::to_string(c["pr"].get<int64_t>());
}

bool has_evidence(const json& pr, const json& want) {
  for (const json& e : pr["evidence"]) {
    bool all = true;
    for (const auto& [k, v] : want.items()) {
      if (!e.contains(k) || e[k] != v) all = false;
    }
    if (all) return true;
  }
  return false;
}

json run_planted(const pra_test::TempDir& dir, const json& planted, json extra = json::object()) {
  json in{{"repo", dir.str("pytorch")},
          {"since", planted["since"]},
          {"until", planted["until"]},
          {"torch_npu", dir.str("torch_npu")},
          {"op_plugin", dir.str("op-plugin")}};
  in.update(extra);
  return pra::run_pr_analysis(in, {});
}

}  // namespace

TEST_CASE("planted: each PR gets the planted impact, categories, evidence and NPU entries") {
  pra_test::TempDir dir("planted");
  const json planted = pra_test::make_planted(dir);
  REQUIRE(planted["changes"].size() >= 40);
  const json out = run_planted(dir, planted);
  REQUIRE(out["dry_run"] == true);
  std::map<std::string, json> by_key;
  for (const json& p : out["prs"]) by_key[p["key"]] = p;

  std::set<std::string> categories_seen;
  std::set<std::string> op_kinds_seen;
  for (const json& c : planted["changes"]) {
    const std::string key = key_of(c);
    INFO(key << " " << c["title"]);
    REQUIRE(by_key.count(key) == 1);
    const json& pr = by_key[key];
    CHECK(pr["impact"] == c["impact"]);
    std::set<std::string> got(pr["categories"].begin(), pr["categories"].end());
    std::set<std::string> want(c["categories"].begin(), c["categories"].end());
    CHECK(got == want);
    for (const json& e : c["evidence"]) {
      INFO("evidence " << e.dump());
      CHECK(has_evidence(pr, e));
      if (e.contains("op_change")) op_kinds_seen.insert(e["op_change"]);
    }
    for (const json& h : c["npu_hits"]) {
      INFO("npu hit " << h.dump());
      bool found = false;
      for (const json& x : pr["npu_hits"])
        found = found || (x["npu_file"] == h["npu_file"] && x["npu_line"] == h["npu_line"]);
      CHECK(found);
    }
    if (c["impact"] == "needs-review") {
      CHECK(pr["evidence"].empty());
      CHECK_FALSE(pr["unmatched_files"].empty());
      CHECK(pr["suggestion"].get<std::string>().find("No rule") != std::string::npos);
    } else {
      CHECK_FALSE(pr["suggestion"].get<std::string>().empty());
    }
    for (const json& cat : c["categories"]) categories_seen.insert(cat);
  }
  // The plan covers every category the issue names and every operator-diff kind.
  for (const char* cat :
       {"operator-schema", "autograd", "dispatcher", "device-generic", "distributed",
        "dynamo-inductor", "testing", "serialization", "build", "docs-ci"}) {
    INFO(cat);
    CHECK(categories_seen.count(cat) == 1);
  }
  for (const char* k : {"op_added", "op_removed", "signature_changed", "default_changed",
                        "dispatch_changed", "derivative_changed"}) {
    INFO(k);
    CHECK(op_kinds_seen.count(k) == 1);
  }
  // A PR landed twice keeps both commits; its revert is a record of its own.
  CHECK(by_key["pr:90001"]["commits"].size() == 2);
  CHECK(by_key["revert:90001"]["revert"] == true);
  CHECK(by_key["pr:90005"]["pr_source"] == "title");
  CHECK(by_key["pr:90006"]["pr_source"] == "trailer");
  CHECK(out["summary"]["reverts"] == 1);
  CHECK(out["summary"]["commits_without_pr"] == 1);
  CHECK(out["summary"]["change_sets"] == planted["changes"].size());
}

TEST_CASE("planted: the operator evidence carries both schema texts") {
  pra_test::TempDir dir("schema");
  const json planted = pra_test::make_planted(dir);
  const json out = run_planted(dir, planted, {{"prs", {90003}}});
  REQUIRE(out["prs"].size() == 1);
  const json& e = out["prs"][0]["evidence"][0];
  CHECK(e["op"] == "argmax");
  CHECK(e["subject"] == "keepdim");
  CHECK(e["old_value"] == "False");
  CHECK(e["new_value"] == "True");
  CHECK(e["old_schema"] == "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor");
  CHECK(e["new_schema"] == "argmax(Tensor self, int? dim=None, bool keepdim=True) -> Tensor");
  CHECK(e["rule_origin"].get<std::string>().find("rules.yaml") == 0);
}

TEST_CASE("planted: a revision range and a PR list select exactly their commits") {
  pra_test::TempDir dir("range");
  const json planted = pra_test::make_planted(dir);
  const auto& ch = planted["changes"];
  const std::string from = ch[2]["sha"];
  const std::string to = ch[5]["sha"];
  json out =
      pra::run_pr_analysis({{"repo", dir.str("pytorch")}, {"rev_range", from + ".." + to}}, {});
  REQUIRE(out["prs"].size() == 3);
  CHECK(out["prs"][0]["pr"] == ch[3]["pr"]);
  CHECK(out["prs"][2]["pr"] == ch[5]["pr"]);

  out = pra::run_pr_analysis({{"repo", dir.str("pytorch")}, {"prs", {90001, 90024, 123}}}, {});
  std::set<std::string> keys;
  for (const json& p : out["prs"]) keys.insert(p["key"]);
  CHECK(keys == std::set<std::string>{"pr:90001", "revert:90001", "pr:90024"});
  REQUIRE(out["notes"].size() >= 1);
  CHECK(out["notes"][0].get<std::string>().find("#123") != std::string::npos);
}

TEST_CASE("planted: a user rule pack turns needs-review into a labelled PR") {
  pra_test::TempDir dir("extend");
  const json planted = pra_test::make_planted(dir);
  std::ofstream(dir.str("extra.yaml"))
      << "categories:\n  - {id: perfkernels, title: CPU perf kernels}\n"
         "rules:\n  - id: perfkernels\n    category: perfkernels\n    impact: low\n"
         "    when: {paths: [\"caffe2/perfkernels/**\"]}\n    suggestion: CPU only.\n";
  const json out = run_planted(dir, planted, {{"prs", {90040}}, {"rules", dir.str("extra.yaml")}});
  REQUIRE(out["prs"].size() == 1);
  CHECK(out["prs"][0]["impact"] == "low");
  CHECK(out["prs"][0]["categories"] == json::array({"perfkernels"}));
  CHECK(out["prs"][0]["evidence"][0]["rule_origin"].get<std::string>().find("extra.yaml:") !=
        std::string::npos);
}

TEST_CASE(
    "planted: a rule firing on many operators is listed whole in the reports, trimmed in the "
    "result") {
  pra_test::TempDir dir("caps");
  const std::string repo = dir.str("repo");
  const std::string yaml = repo + "/aten/src/ATen/native/native_functions.yaml";
  pra_test::fs::create_directories(repo + "/aten/src/ATen/native");
  pra_test::fs::copy_file(pra_test::kData + "/native_functions.yaml", yaml);
  const std::string git = "git -C '" + repo + "' -c user.name=t -c user.email=t@example.com ";
  REQUIRE(std::system(("git init -q -b main '" + repo + "' && " + git + "add . && " + git +
                       "commit -qm base")
                          .c_str()) == 0);
  {
    std::ofstream out(yaml, std::ios::app);
    for (int i = 0; i < 60; ++i) {
      out << "\n- func: planted_op_" << i << "(Tensor self) -> Tensor\n  variants: function\n";
    }
  }
  REQUIRE(std::system((git + "commit -qam 'Add 60 ops (#7)'").c_str()) == 0);
  const auto count_added = [](const json& pr) {
    size_t added = 0;
    for (const json& e : pr["evidence"]) added += e["rule"] == "op-added" ? 1 : 0;
    return added;
  };
  // The tool result an agent reads is trimmed, says by how much, and where the rest is.
  const json out = pra::run_pr_analysis({{"repo", repo}, {"prs", {7}}}, {});
  REQUIRE(out["prs"].size() == 1);
  const json& pr = out["prs"][0];
  CHECK(pr["impact"] == "medium");
  CHECK(pr["evidence"].size() == pra::kListedInResult);
  CHECK(pr["evidence_total"].get<size_t>() >= 60);
  bool says_where = false;
  for (const json& note : out["notes"]) {
    says_where |= note.get<std::string>().find("pass output_dir") != std::string::npos;
  }
  CHECK(says_where);
  // The JSON report lists every finding: all 60 added operators.
  const std::string reports = dir.str("reports");
  const json written = pra::run_pr_analysis(
      {{"repo", repo}, {"prs", {7}}, {"output_dir", reports}, {"include_prs", true}}, {});
  std::ifstream in(written["reports"]["json"].get<std::string>());
  REQUIRE(in);
  const json report = json::parse(in);
  REQUIRE(report["prs"].size() == 1);
  CHECK(count_added(report["prs"][0]) == 60);
  CHECK(report["prs"][0]["problems"].empty());
}
