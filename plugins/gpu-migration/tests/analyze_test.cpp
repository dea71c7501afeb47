#include <catch2/catch.hpp>
#include <skillrt/sdk.hpp>

#include "detail/analysis.hpp"
#include "gpu_migration.hpp"
#include "test_support.hpp"

using nlohmann::json;
using skillrt::gpu_migration::analyze;

namespace {

const json& finding(const json& result, const std::string& file, int line,
                    const std::string& rule) {
  for (const char* key : {"findings", "suggestions"}) {
    for (const json& f : result.at(key)) {
      if (f.at("file") == file && f.at("line") == line && f.at("rule") == rule) return f;
    }
  }
  FAIL("no finding " << file << ":" << line << " " << rule);
  static json none;
  return none;
}

const json& domain(const json& result, const std::string& id) {
  for (const json& d : result.at("domains")) {
    if (d.at("domain") == id) return d;
  }
  FAIL("no domain " << id);
  static json none;
  return none;
}

void check_exact(const std::string& name) {
  const auto root = gm_test::fixture(name);
  const json r = analyze({{"repo", root.string()}});
  const auto want = gm_test::planted(root);
  const auto got = gm_test::reported(r);
  REQUIRE_FALSE(want.empty());
  std::set<gm_test::Expected> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::inserter(missing, missing.end()));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(),
                      std::inserter(extra, extra.end()));
  INFO("missing:\n" << gm_test::describe(missing) << "unexpected:\n" << gm_test::describe(extra));
  CHECK(missing.empty());
  CHECK(extra.empty());
  // Every finding gives its domain and effort, and its rule's alternative and source once in
  // `rules`; every listed rule fired.
  std::set<std::string> fired;
  for (const char* key : {"findings", "suggestions"}) {
    for (const json& f : r.at(key)) {
      const json& rule = r.at("rules").at(f.at("rule").get<std::string>());
      CHECK(rule.at("domain") == f.at("domain"));
      CHECK_FALSE(rule.at("alternative").get<std::string>().empty());
      CHECK_FALSE(rule.at("source").get<std::string>().empty());
      CHECK_FALSE(f.at("effort").get<std::string>().empty());
      CHECK(rule.at("suggestion") == (std::string(key) == "suggestions"));
      fired.insert(f.at("rule").get<std::string>());
    }
  }
  CHECK(fired.size() == r.at("rules").size());
}

}  // namespace

TEST_CASE("analyze: DDP + amp + GradScaler script: every planted usage, nothing else",
          "[analyze]") {
  check_exact("ddp_amp");
}

TEST_CASE("analyze: flash-attn + custom CUDA extension: every planted usage, nothing else",
          "[analyze]") {
  check_exact("flash_ext");
}

TEST_CASE("analyze: DataParallel + capability checks: every planted usage, nothing else",
          "[analyze]") {
  check_exact("dp_caps");
}

TEST_CASE("analyze: notebook code cells only: every planted usage, nothing else", "[analyze]") {
  check_exact("notebook");
}

TEST_CASE("analyze: domains and effort classes of the DDP script", "[analyze]") {
  const json r = analyze({{"repo", gm_test::fixture("ddp_amp").string()}});
  CHECK(finding(r, "train.py", 34, "DIST-NCCL-BACKEND").at("domain") == "distributed");
  CHECK(finding(r, "train.py", 34, "DIST-NCCL-BACKEND").at("effort") == "automatic");
  CHECK(finding(r, "train.py", 43, "PREC-CUDA-AMP").at("domain") == "precision");
  CHECK(finding(r, "train.py", 33, "DIST-NCCL-ENV").at("effort") == "small_manual");
  CHECK(finding(r, "train.py", 13, "DEV-DEVICE-STRING").at("marked_data") == true);
  CHECK(finding(r, "train.py", 13, "DEV-DEVICE-STRING").at("rewritable") == false);
  const json& pin = finding(r, "requirements.txt", 3, "THIRD-VERSIONED");
  CHECK(pin.at("effort") == "small_manual");
  CHECK_THAT(pin.at("note").get<std::string>(), Catch::Contains("below 4.32.0"));
  CHECK(finding(r, "requirements.txt", 4, "THIRD-VERSIONED").at("effort") == "automatic");
  // Vendored code is listed as excluded, not scanned.
  CHECK(r.at("excluded") == json::array({"third_party"}));
  CHECK(domain(r, "distributed").at("verdict") == "needs_change");
  CHECK(domain(r, "attention").at("verdict") == "works");
  CHECK(domain(r, "custom_ops").at("findings") == 0);
  CHECK(r.at("overall").at("verdict") == "needs_change");
  CHECK(r.at("overall").at("estimate_days").is_number());
}

TEST_CASE("analyze: flash-attn project is large manual, grouped_gemm blocks", "[analyze]") {
  const json r = analyze({{"repo", gm_test::fixture("flash_ext").string()}});
  CHECK(finding(r, "model.py", 4, "ATTN-FLASH-ATTN").at("effort") == "large_manual");
  CHECK(finding(r, "csrc/fused.cu", 4, "OPS-CUDA-KERNEL").at("domain") == "custom_ops");
  CHECK(finding(r, "moe.py", 1, "THIRD-GROUPED-GEMM").at("effort") == "blocker");
  CHECK(finding(r, "model.py", 24, "AFF-CONFUSION-TRANSPOSE").at("domain") == "device");
  CHECK(domain(r, "attention").at("effort") == "large_manual");
  CHECK(domain(r, "third_party").at("verdict") == "blocked");
  CHECK(domain(r, "third_party").at("estimate_days").is_null());
  CHECK(domain(r, "compile").at("verdict") == "needs_change");
  CHECK(r.at("overall").at("verdict") == "blocked");
  CHECK(r.at("overall").at("blockers") == 1);
  CHECK(r.at("overall").at("estimate_days").is_null());
}

TEST_CASE("analyze: DataParallel and capability checks", "[analyze]") {
  const json r = analyze({{"repo", gm_test::fixture("dp_caps").string()}});
  const json& dp = finding(r, "run.py", 19, "DIST-DATAPARALLEL");
  CHECK(dp.at("domain") == "distributed");
  CHECK(dp.at("effort") == "small_manual");
  // The alternative is listed once per rule, under the finding's rule id.
  CHECK_THAT(r.at("rules").at("DIST-DATAPARALLEL").at("alternative").get<std::string>(),
             Catch::Contains("DistributedDataParallel"));
  CHECK(r.at("rules").at("DIST-DATAPARALLEL").at("domain") == "distributed");
  CHECK(finding(r, "run.py", 8, "DEV-CAPABILITY").at("effort") == "small_manual");
  CHECK(finding(r, "run.py", 23, "DEV-UNSUPPORTED").at("effort") == "blocker");
  CHECK(finding(r, "run.py", 21, "DEV-TENSOR-CUDA").at("code") ==
        ".cuda()  # expect: DEV-TENSOR-CUDA");
  CHECK(domain(r, "device").at("verdict") == "blocked");
}

TEST_CASE("analyze: reports in Markdown, JSON and Excel", "[analyze][reports]") {
  gm_test::TempRepo out;
  const json r = analyze({{"repo", gm_test::fixture("flash_ext").string()},
                          {"report_dir", (out.path() / "reports").string()}});
  REQUIRE(r.at("reports").size() == 3);
  const std::string md = gm_test::read_file(out.path() / "reports" / "gpu-migration-report.md");
  CHECK_THAT(md, Catch::Contains("**Overall: blocked**"));
  CHECK_THAT(md, Catch::Contains("| moe.py:1 | `import grouped_gemm"));
  // The Markdown rows carry each finding's alternative, looked up from `rules`.
  CHECK_THAT(md, Catch::Contains(
                     r.at("rules").at("THIRD-GROUPED-GEMM").at("alternative").get<std::string>()));
  const json back =
      json::parse(gm_test::read_file(out.path() / "reports" / "gpu-migration-report.json"));
  CHECK(back.at("findings") == r.at("findings"));
  std::string text;
  const std::string cmd =
      "/usr/bin/python3 -c \"import openpyxl,sys; wb=openpyxl.load_workbook(sys.argv[1]); "
      "print(wb.sheetnames, wb['Findings'].max_row - 1, wb['Summary']['B9'].value)\" " +
      (out.path() / "reports" / "gpu-migration-report.xlsx").string();
  REQUIRE(gm_test::run(cmd, &text) == 0);
  CHECK(text == "['Summary', 'Findings', 'Suggestions'] " +
                    std::to_string(r.at("findings").size()) + " blocked\n");
}

TEST_CASE("analyze: bad inputs give clear messages", "[analyze][errors]") {
  auto message = [](const json& input) {
    try {
      analyze(input);
    } catch (const skillrt::SkillError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message({{"repo", "/nonexistent/gpu-migration"}}), Catch::Contains("does not exist"));
  CHECK_THAT(message({{"repo", (gm_test::fixture("dp_caps") / "run.py").string()}}),
             Catch::Contains("is not a directory"));
  gm_test::TempRepo dir;
  gm_test::write_file(dir.path() / "blob.py", std::string("import torch\0\x01\x02", 15));
  gm_test::write_file(dir.path() / "latin1.py", "s = '\xe9t\xe9'\n");
  gm_test::write_file(dir.path() / "ok.py", "x = 1\n");
  const json r = analyze({{"repo", dir.str()}});
  REQUIRE(r.at("skipped").size() == 2);
  CHECK(r.at("skipped")[0].at("path") == "blob.py");
  CHECK_THAT(r.at("skipped")[0].at("reason").get<std::string>(), Catch::Contains("binary"));
  CHECK_THAT(r.at("skipped")[1].at("reason").get<std::string>(), Catch::Contains("UTF-8"));
  CHECK(r.at("overall").at("verdict") == "works");
  gm_test::TempRepo empty;
  const json e = analyze({{"repo", empty.str()}});
  REQUIRE(e.at("notes").size() == 1);
  CHECK_THAT(e.at("notes")[0].get<std::string>(), Catch::Contains("nothing to judge"));
}

TEST_CASE("analyze: device usage inside nested f-string format specifications", "[analyze]") {
  gm_test::TempRepo repo;
  gm_test::write_file(repo.path() / "fmt.py",
                      "import torch\n"
                      "w = 8\n"
                      "print(f\"{w:>{torch.cuda.device_count()}}\")\n"
                      "print(f\"{w:{x.cuda().numel()}.{'cuda:0'!r:{w}}}\")\n"
                      "print(f\"{w:>{w}} torch.cuda.synchronize() is prose here\")\n");
  const json r = analyze({{"repo", repo.str()}});
  const json& runtime = finding(r, "fmt.py", 3, "DEV-CUDA-RUNTIME");
  CHECK(runtime.at("matched") == "torch.cuda.device_count");
  CHECK(runtime.at("column") == 14);
  CHECK(runtime.at("rewritable") == true);
  CHECK(finding(r, "fmt.py", 4, "DEV-TENSOR-CUDA").at("matched") == ".cuda(");
  CHECK(finding(r, "fmt.py", 4, "DEV-DEVICE-STRING").at("context") == "string");
  // The literal text of an f-string stays prose: three findings, none on line 5.
  CHECK(r.at("findings").size() == 3);
}

TEST_CASE("analyze: a file that cannot be read is a reason, even for root", "[analyze][errors]") {
  // Permissions do not stop root, so the read error is provoked with a path that opens but does
  // not read (a folder) and one that vanished after the walk listed it.
  namespace d = skillrt::gpu_migration::detail;
  gm_test::TempRepo dir;
  gm_test::fs::create_directories(dir.path() / "pkg.py");
  std::string text, reason;
  CHECK_FALSE(d::read_source(dir.path() / "pkg.py", &text, &reason));
  CHECK_THAT(reason, Catch::Contains("cannot be read"));
  reason.clear();
  CHECK_FALSE(d::read_source(dir.path() / "gone.py", &text, &reason));
  CHECK_THAT(reason, Catch::Contains("cannot be read: No such file"));
  gm_test::write_file(dir.path() / "ok.py", "x = y.cuda()\n");
  std::vector<d::RepoFile> files = {{"gone.py", dir.path() / "gone.py", d::FileType::kPython},
                                    {"ok.py", dir.path() / "ok.py", d::FileType::kPython}};
  const d::Scanner scanner(d::builtin_rule_table());
  d::RepoScan scan = d::scan_files(dir.path(), files, scanner, {});
  REQUIRE(scan.skipped.size() == 1);
  CHECK(scan.skipped[0].path == "gone.py");
  REQUIRE(scan.files.size() == 1);
  CHECK(scan.files[0].python.matches.size() == 1);
}

TEST_CASE("analyze: real projects, every hand-read CUDA usage found, nothing in prose",
          "[analyze][real]") {
  // data/real_projects: usages read by hand before the analyzer learned aliases, argument
  // resolution and wrappers (see its README); a finding counts for a usage in the same file and
  // domain within 3 lines (a call spread over lines is read on its CUDA-specific line).
  for (const char* project : {"nanoGPT", "Wan2.1"}) {
    INFO(project);
    const auto root = gm_test::fixture(std::string("real_projects/") + project);
    const json truth = json::parse(gm_test::read_file(root / "usages.json"));
    const json r = analyze({{"repo", root.string()}});
    std::map<std::string, std::pair<int, int>> by_domain;  // found, total
    size_t found = 0;
    for (const json& u : truth.at("usages")) {
      bool hit = false;
      for (const json& f : r.at("findings")) {
        hit = hit || (f.at("file") == u.at("file") && f.at("domain") == u.at("domain") &&
                      std::abs(f.at("line").get<int>() - u.at("line").get<int>()) <= 3);
      }
      auto& d = by_domain[u.at("domain").get<std::string>()];
      d.first += hit;
      ++d.second;
      found += hit;
      if (!hit) UNSCOPED_INFO("missed " << u.dump());
    }
    CHECK(static_cast<double>(found) >= 0.95 * static_cast<double>(truth.at("usages").size()));
    // Comments, docstrings and help strings that mention CUDA are not code.
    for (const json& n : truth.at("not_code")) {
      for (const char* key : {"findings", "suggestions"}) {
        for (const json& f : r.at(key)) {
          INFO(f.dump());
          CHECK_FALSE((f.at("file") == n.at("file") && f.at("line") == n.at("line")));
        }
      }
    }
  }
}

TEST_CASE("analyze: a wrapper around flash-attn lists its call sites, with the definition",
          "[analyze]") {
  gm_test::TempRepo repo;
  gm_test::write_file(repo.path() / "attn.py",
                      "import flash_attn\n"
                      "\n"
                      "\n"
                      "def fast_attention(q, k, v):\n"
                      "    def half(x):\n"
                      "        return x.half()\n"
                      "\n"
                      "    return flash_attn.flash_attn_func(half(q), half(k), half(v))\n");
  gm_test::write_file(repo.path() / "model.py",
                      "from attn import fast_attention\n"
                      "\n"
                      "\n"
                      "def forward(q, k, v):\n"
                      "    # fast_attention(q, k, v) in a comment is not a call\n"
                      "    return fast_attention(q, k, v)\n");
  const json r = analyze({{"repo", repo.str()}});
  std::vector<json> calls;
  for (const json& f : r.at("findings")) {
    if (f.at("rule") == "ATTN-WRAPPER-CALL") calls.push_back(f);
  }
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].at("file") == "model.py");
  CHECK(calls[0].at("line") == 6);
  CHECK_THAT(calls[0].at("note").get<std::string>(), Catch::Contains("attn.py:4"));
  // The nested helper is not a wrapper: its calls inside the wrapper are not findings.
  for (const json& f : r.at("findings")) CHECK_FALSE(f.at("matched") == "half(");
}

TEST_CASE("analyze: every declared dependency with its NPU status, unknown ones included",
          "[analyze]") {
  gm_test::TempRepo repo;
  gm_test::write_file(repo.path() / "requirements.txt",
                      "flash-attn>=2.5  # attention\n"
                      "numpy\n"
                      "git+https://github.com/example/kernels.git#egg=fancy_kernels\n"
                      "-r other.txt\n");
  gm_test::write_file(repo.path() / "pyproject.toml",
                      "[project]\n"
                      "dependencies = [\n"
                      "    \"torch>=2.4\",\n"
                      "    \"decord\",\n"
                      "]\n"
                      "[project.optional-dependencies]\n"
                      "gpu = [\"cupy-cuda12x\", \"nvidia-cudnn-cu12\"]\n"
                      "[tool.poetry.dependencies]\n"
                      "python = \"^3.10\"\n"
                      "xformers = \"^0.0.25\"\n");
  gm_test::write_file(repo.path() / "setup.cfg",
                      "[options]\n"
                      "install_requires =\n"
                      "    bitsandbytes\n"
                      "    requests\n");
  const json r = analyze({{"repo", repo.str()}});
  std::map<std::string, std::string> status;
  for (const json& d : r.at("dependencies")) status[d.at("name")] = d.at("status");
  CHECK(status["flash-attn"] == "cuda_only");
  CHECK(status["numpy"] == "unknown");
  CHECK(status["fancy_kernels"] == "unknown");
  CHECK(status["torch"] == "needs_matching_npu");
  CHECK(status["decord"] == "limited");
  CHECK(status["cupy-cuda12x"] == "cuda_only");
  CHECK(status["nvidia-cudnn-cu12"] == "cuda_only");
  CHECK(status["xformers"] == "cuda_only");
  CHECK(status["bitsandbytes"] == "limited");
  CHECK(status["requests"] == "unknown");
  CHECK(status.count("python") == 0);
  CHECK(status.size() == 10);
  // The git dependency and the GPU-only packages are findings too.
  CHECK(finding(r, "requirements.txt", 3, "THIRD-GIT-DEP").at("domain") == "third_party");
  CHECK(finding(r, "pyproject.toml", 4, "THIRD-REQUIREMENT").at("effort") == "large_manual");
}

TEST_CASE("analyze: a CUDA module re-exported by a repository module is followed", "[analyze]") {
  gm_test::TempRepo repo;
  gm_test::write_file(repo.path() / "pkg/__init__.py", "");
  gm_test::write_file(repo.path() / "pkg/compat.py", "import torch.cuda.amp as amp\n");
  gm_test::write_file(repo.path() / "pkg/train.py",
                      "from .compat import amp\n"
                      "\n"
                      "\n"
                      "@amp.autocast(enabled=False)\n"
                      "def step(x):\n"
                      "    return x\n");
  gm_test::write_file(repo.path() / "main.py",
                      "from pkg.compat import amp as mixed\n"
                      "\n"
                      "with mixed.autocast():\n"
                      "    pass\n");
  const json r = analyze({{"repo", repo.str()}});
  const json& deco = finding(r, "pkg/train.py", 4, "PREC-CUDA-AMP");
  CHECK_THAT(deco.at("note").get<std::string>(), Catch::Contains("re-exported"));
  CHECK(finding(r, "main.py", 3, "PREC-CUDA-AMP").at("domain") == "precision");
}
