// Batch runs: per-case isolation (malformed files fail their case only), the summary, and the
// report files (Markdown, JSON, HTML with SVG, Excel read back with openpyxl); end to end through
// the skillrt binary.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis.hpp"
#include "test_support.hpp"

using apic_test::TempDir;
using apic_test::write_npy;
using nlohmann::json;

namespace {

json run(const json& input) {
  return skillrt::apic::run_request(input, skillrt::apic::embedded_knowledge(), {});
}

// A manifest with two good cases around four malformed ones.
json make_manifest(const TempDir& d) {
  std::vector<float> v(64);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) / 3.0f;
  write_npy(d / "good.npy", "<f4", {8, 8}, v);
  std::vector<float> w = v;
  w[9] += 0.5f;
  write_npy(d / "off.npy", "<f4", {8, 8}, w);
  std::ofstream(d / "badheader.npy") << "\x93NUMPX garbage";
  const std::string full = apic_test::read_file(d / "good.npy");
  std::ofstream(d / "truncated.npy", std::ios::binary) << full.substr(0, full.size() - 17);
  write_npy(d / "f64.npy", "<f8", {8, 8}, std::vector<double>(64, 0.0));
  write_npy(d / "wide.npy", "<f4", {4, 16}, v);
  return json{
      {"standard", "torch"},
      {"cases",
       json::array({
           json{{"id", "good"},
                {"api", "torch.relu"},
                {"expected", "good.npy"},
                {"actual", "good.npy"}},
           json{{"id", "bad_header"}, {"expected", "good.npy"}, {"actual", "badheader.npy"}},
           json{{"id", "truncated"}, {"expected", "good.npy"}, {"actual", "truncated.npy"}},
           json{{"id", "dtype_mismatch"}, {"expected", "good.npy"}, {"actual", "f64.npy"}},
           json{{"id", "shape_mismatch"}, {"expected", "good.npy"}, {"actual", "wide.npy"}},
           json{{"id", "missing"}, {"expected", "good.npy"}, {"actual", "nope.npy"}},
           json{{"id", "off"},
                {"api", "torch.nn.functional.gelu"},
                {"expected", "good.npy"},
                {"actual", "off.npy"}},
       })}};
}

}  // namespace

TEST_CASE("batch: each malformed case gets a clear error and the batch continues") {
  TempDir d("batch");
  std::ofstream(d / "manifest.json") << make_manifest(d).dump();
  const json out = run({{"manifest", d / "manifest.json"}, {"output_dir", d / "reports"}});
  const json& cases = out["cases"];
  REQUIRE(cases.size() == 7);
  std::map<std::string, json> by;
  for (const auto& c : cases) by[c["id"].get<std::string>()] = c;
  CHECK(by["good"]["status"] == "ok");
  CHECK(by["good"]["verdict"] == "pass");
  CHECK(by["bad_header"]["status"] == "error");
  CHECK(by["bad_header"]["error"].get<std::string>().find("badheader.npy") != std::string::npos);
  CHECK(by["bad_header"]["error"].get<std::string>().find("magic") != std::string::npos);
  CHECK(by["truncated"]["status"] == "error");
  CHECK(by["truncated"]["error"].get<std::string>().find("truncated") != std::string::npos);
  // Dtype and shape mismatches are verdicts with a message, triaged as framework problems.
  CHECK(by["dtype_mismatch"]["tensors"][0]["message"].get<std::string>().find(
            "dtype mismatch: expected float32") != std::string::npos);
  CHECK(by["dtype_mismatch"]["triage"]["exit"] == "framework");
  CHECK(by["shape_mismatch"]["tensors"][0]["message"].get<std::string>().find("(8, 8)") !=
        std::string::npos);
  CHECK(by["shape_mismatch"]["triage"]["decided_by"] == "R05-shape-adaptation");
  CHECK(by["missing"]["status"] == "error");
  CHECK(by["missing"]["error"].get<std::string>().find("nope.npy") != std::string::npos);
  CHECK(by["off"]["status"] == "ok");
  CHECK(by["off"]["verdict"] == "fail");
  CHECK(by["off"]["tensors"][0]["worst"][0]["index"] == json::array({1, 1}));
  CHECK(out["summary"]["status"]["ok"] == 4);
  CHECK(out["summary"]["status"]["error"] == 3);

  // Reports: per-case Markdown, HTML with SVG, JSON; summary workbook and JSON.
  const std::string off = d / "reports/off";
  const std::string md = apic_test::read_file(off + "/分析结论.md");
  CHECK(md.find("# 分析结论") != std::string::npos);
  CHECK(md.find("R45-precision-operator") != std::string::npos);
  CHECK(md.find("aclnnGelu") != std::string::npos);
  CHECK(apic_test::read_file(off + "/复现记录.md").find("max_abs_error") != std::string::npos);
  const std::string html = apic_test::read_file(off + "/report.html");
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("<rect") != std::string::npos);
  CHECK(html.find("<circle") != std::string::npos);
  CHECK(json::parse(apic_test::read_file(off + "/result.json"))["id"] == "off");
  CHECK(apic_test::read_file(d / "reports/bad_header/分析结论.md").find("magic") !=
        std::string::npos);
  const json summary = json::parse(apic_test::read_file(d / "reports/summary.json"));
  CHECK(summary["cases"].size() == 7);

  const int rc = apic_test::python(
      apic_test::test_dir() + "/data/read_xlsx.py",
      "'" + (d / "reports/summary.xlsx") + "' '" + (d / "rows.json") + "'", d / "py.log");
  INFO(apic_test::read_file(d / "py.log"));
  REQUIRE(rc == 0);
  const json rows = json::parse(apic_test::read_file(d / "rows.json"));
  REQUIRE(rows.size() == 8);
  CHECK(rows[0][0] == "case");
  CHECK(rows[0][5] == "exit");
  CHECK(rows[7][0] == "off");
  CHECK(rows[7][3] == "fail");
  CHECK(rows[7][5] == "operator");
  CHECK(rows[7][9].get<double>() == Approx(0.5));
  CHECK(rows[2][2] == "error");
  CHECK(rows[2][14].get<std::string>().find("badheader.npy") != std::string::npos);
  // No temporary files are left behind by the atomic writes.
  for (const auto& e : std::filesystem::recursive_directory_iterator(d / "reports")) {
    CHECK(e.path().string().find(".tmp.") == std::string::npos);
  }
}

TEST_CASE("batch: reports never leave output_dir") {
  TempDir d("confine");
  write_npy(d / "x.npy", "<f4", {2}, std::vector<float>{1, 2});
  const json out = run({{"id", "../../escape"},
                        {"expected", d / "x.npy"},
                        {"actual", d / "x.npy"},
                        {"output_dir", d / "reports"}});
  for (const auto& f : out["files"]) {
    CHECK(f.get<std::string>().rfind(d / "reports", 0) == 0);
  }
}

TEST_CASE("request errors: nothing to do, unknown options") {
  CHECK_THROWS_AS(run(json::object()), std::invalid_argument);
  TempDir d("opts");
  write_npy(d / "x.npy", "<f4", {2}, std::vector<float>{1, 2});
  const json out = run({{"expected", d / "x.npy"}, {"actual", d / "x.npy"}, {"rtol", 0.1}});
  CHECK(out["cases"][0]["status"] == "error");
  CHECK(out["cases"][0]["error"].get<std::string>().find("rtol") != std::string::npos);
}

TEST_CASE(
    "e2e: the skill through the skillrt binary, and the SKILL.md example passes --check-only") {
  TempDir d("e2e");
  std::vector<float> v{1, 2, 3};
  write_npy(d / "cpu.npy", "<f4", {3}, v);
  v[1] = 2.5f;
  write_npy(d / "npu.npy", "<f4", {3}, v);
  const std::string bin = std::string(SKILLRT_BINARY_DIR) + "/bin/skillrt";
  const json input{{"api", "torch.nn.functional.gelu"},
                   {"expected", d / "cpu.npy"},
                   {"actual", d / "npu.npy"},
                   {"standard", "msprobe"}};
  std::ofstream(d / "in.json") << input.dump();
  const std::string cmd = bin + " run api-consistency -q --input '" + (d / "in.json") +
                          "' --output '" + (d / "out.json") + "' > '" + (d / "stdout") + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  INFO(apic_test::read_file(d / "stdout"));
  REQUIRE(WIFEXITED(rc));
  REQUIRE(WEXITSTATUS(rc) == 0);
  const json out = json::parse(apic_test::read_file(d / "out.json"));
  CHECK(out["cases"][0]["verdict"] == "error");
  CHECK(out["cases"][0]["tensors"][0]["standard"] == "msprobe");
  CHECK(out["cases"][0]["triage"]["exit"] == "operator");
  // The contract's example must satisfy the input schema.
  const std::string skill_md =
      apic_test::read_file(std::string(SKILLRT_SOURCE_DIR) + "/skills/api-consistency/SKILL.md");
  const auto at = skill_md.find("input_example: '");
  REQUIRE(at != std::string::npos);
  const auto start = at + 16;
  const std::string example = skill_md.substr(start, skill_md.find("'\n", start) - start);
  const std::string check = bin + " run api-consistency --check-only --input '" + example +
                            "' > '" + (d / "check") + "' 2>&1";
  const int rc2 = std::system(check.c_str());
  INFO(apic_test::read_file(d / "check"));
  CHECK(WEXITSTATUS(rc2) == 0);
}

TEST_CASE("batch: progress is reported per case and a cancelled batch stops between cases") {
  TempDir d("cancel");
  write_npy(d / "x.npy", "<f4", {2}, std::vector<float>{1, 2});
  const json cases = json::array({json{{"expected", d / "x.npy"}, {"actual", d / "x.npy"}},
                                  json{{"expected", d / "x.npy"}, {"actual", d / "x.npy"}},
                                  json{{"expected", d / "x.npy"}, {"actual", d / "x.npy"}}});
  int calls = 0;
  skillrt::apic::RunHooks hooks;
  hooks.progress = [&](double done, double total, const std::string&) {
    CHECK(total == 3);
    CHECK(done == calls);
    return ++calls < 2;  // cancel before the second case
  };
  CHECK_THROWS_AS(
      skillrt::apic::run_request({{"cases", cases}}, skillrt::apic::embedded_knowledge(), hooks),
      skillrt::apic::Cancelled);
  CHECK(calls == 2);
}
