#include <unistd.h>

#include <catch2/catch.hpp>
#include <skillrt/sdk.hpp>

#include "gpu_migration.hpp"
#include "test_support.hpp"

using nlohmann::json;
using skillrt::gpu_migration::analyze;
using skillrt::gpu_migration::apply;

namespace {

bool has_note(const json& result, const std::string& id) {
  for (const json& n : result.at("equivalence_notes")) {
    if (n.at("id") == id) return true;
  }
  return false;
}

void check_compiles(const gm_test::fs::path& root) {
  for (auto& e : gm_test::fs::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".py") continue;
    INFO(e.path());
    CHECK(gm_test::run("/usr/bin/python3 -m py_compile '" + e.path().string() + "' 2>&1") == 0);
  }
}

// After apply, a cuda usage may stay only on a line marked as data, in a notebook (analysed, not
// rewritten), in a non-Python file, or as a finding apply listed for manual work.
void check_no_cuda_left(const gm_test::fs::path& root, const json& applied) {
  const json after = analyze({{"repo", root.string()}});
  for (const json& f : after.at("findings")) {
    if (f.at("matched").get<std::string>().find("cuda") == std::string::npos) continue;
    if (f.value("marked_data", false) || f.contains("cell") || f.at("context") == "text") continue;
    bool listed = false;
    for (const json& m : applied.at("manual")) {
      listed |= m.at("file") == f.at("file") && m.at("rule") == f.at("rule");
    }
    INFO(f.dump());
    CHECK(listed);
  }
}

void check_comments(const gm_test::fs::path& root, const json& applied) {
  REQUIRE_FALSE(applied.at("changes").empty());
  for (const json& c : applied.at("changes")) {
    const std::string text = gm_test::read_file(root / c.at("file").get<std::string>());
    const std::string comment = "# gpu-migration " + c.at("rule").get<std::string>() + ": was `" +
                                c.at("original").get<std::string>() + "`; " +
                                c.at("reason").get<std::string>();
    INFO(comment);
    CHECK(text.find(comment) != std::string::npos);
    CHECK(text.find(c.at("replacement").get<std::string>()) != std::string::npos);
  }
}

std::string error_of(const json& input) {
  try {
    apply(input);
  } catch (const skillrt::SkillError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("apply: the default is a dry run returning the patch", "[apply]") {
  gm_test::TempRepo repo("ddp_amp");
  const auto before = gm_test::snapshot(repo.path());
  const json r = apply({{"repo", repo.str()}, {"scope", {"train.py"}}});
  CHECK(r.at("applied") == false);
  CHECK(r.at("written").empty());
  CHECK(gm_test::snapshot(repo.path()) == before);
  const std::string patch = r.at("patch");
  CHECK(patch.rfind("--- a/train.py\n+++ b/train.py\n@@ ", 0) == 0);
  CHECK_THAT(patch, Catch::Contains("-    dist.init_process_group(backend=\"nccl\")"));
  CHECK_THAT(patch, Catch::Contains("+    dist.init_process_group(backend=\"hccl\")"));
  CHECK_THAT(patch, Catch::Contains("+import torch_npu\n"));
  CHECK(has_note(r, "EQ-DEVICE"));
  CHECK(has_note(r, "EQ-AMP"));
  CHECK(has_note(r, "EQ-HCCL"));
  CHECK(has_note(r, "EQ-RUNTIME"));
  for (const json& n : r.at("equivalence_notes")) {
    CHECK_FALSE(n.at("numeric_check").get<std::string>().empty());
    CHECK_FALSE(n.at("agree_when").get<std::string>().empty());
  }
  // Suggestions are offered, never applied.
  REQUIRE(r.at("suggestions").size() == 2);
  CHECK(patch.find("NpuFused") == std::string::npos);
  // The marked line stays.
  bool kept = false;
  for (const json& m : r.at("manual")) kept |= m.at("line") == 13 && m.value("marked_data", false);
  CHECK(kept);
}

TEST_CASE("apply: DDP + amp script: compiles, no cuda left, commented, second run no-op",
          "[apply]") {
  gm_test::TempRepo repo("ddp_amp");
  const std::string vendored = gm_test::read_file(repo.path() / "third_party/apexcopy/fused.py");
  const json r = apply({{"repo", repo.str()}, {"scope", {"."}}, {"apply", true}});
  CHECK(r.at("applied") == true);
  CHECK(r.at("written") == json::array({"train.py"}));
  CHECK(r.at("remaining").empty());
  check_compiles(repo.path());
  check_no_cuda_left(repo.path(), r);
  check_comments(repo.path(), r);
  CHECK(gm_test::read_file(repo.path() / "third_party/apexcopy/fused.py") == vendored);
  const std::string text = gm_test::read_file(repo.path() / "train.py");
  CHECK_THAT(text, Catch::Contains("import torch\n# gpu-migration DEV-IMPORT-TORCH-NPU: added"));
  CHECK_THAT(text, Catch::Contains("device = torch.device(f\"npu:{local_rank}\")"));
  CHECK_THAT(text, Catch::Contains("from torch.npu.amp import GradScaler, autocast"));
  CHECK_THAT(text, Catch::Contains("LOG_TAG = \"cuda\"  # gpu-migration: keep"));

  const auto once = gm_test::snapshot(repo.path());
  const json again = apply({{"repo", repo.str()}, {"scope", {"."}}, {"apply", true}});
  CHECK(again.at("changes").empty());
  CHECK(again.at("patch") == "");
  CHECK(again.at("written").empty());
  CHECK(gm_test::snapshot(repo.path()) == once);
}

TEST_CASE("apply: DataParallel and capability checks get follow-ups", "[apply]") {
  gm_test::TempRepo repo("dp_caps");
  const json r = apply({{"repo", repo.str()}, {"scope", {"run.py"}}, {"apply", true}});
  check_compiles(repo.path());
  check_no_cuda_left(repo.path(), r);
  check_comments(repo.path(), r);
  const std::string text = gm_test::read_file(repo.path() / "run.py");
  CHECK_THAT(text, Catch::Contains("model = torch.nn.parallel.DistributedDataParallel(model"));
  CHECK_THAT(text, Catch::Contains("major, minor = torch.npu.get_device_capability()"));
  CHECK_THAT(text, Catch::Contains("name = f\"{'npu' if ref.is_npu else 'cpu'}\""));
  CHECK_THAT(text, Catch::Contains("    # gpu-migration DEV-TENSOR-CUDA: was `.cuda()"));
  std::set<std::string> followups;
  for (const json& f : r.at("followups")) followups.insert(f.at("rule").get<std::string>());
  CHECK(followups == std::set<std::string>{"DEV-CAPABILITY", "DEV-PROPERTIES", "DIST-DATAPARALLEL",
                                           "PREC-BF16-CHECK"});
  CHECK(has_note(r, "EQ-DDP"));
  CHECK(has_note(r, "EQ-CAPABILITY"));
  std::set<std::string> manual;
  for (const json& m : r.at("manual")) manual.insert(m.at("rule").get<std::string>());
  CHECK(manual.count("DEV-UNSUPPORTED") == 1);
  CHECK(manual.count("PREC-TF32") == 1);
  const json again = apply({{"repo", repo.str()}, {"scope", {"run.py"}}});
  CHECK(again.at("patch") == "");
}

TEST_CASE("apply: module-by-module scope", "[apply]") {
  gm_test::TempRepo repo("flash_ext");
  const auto before = gm_test::snapshot(repo.path());
  const json r = apply({{"repo", repo.str()}, {"scope", {"kernels.tri"}}, {"apply", true}});
  CHECK(r.at("files_in_scope") == 1);
  CHECK(r.at("changes").empty());
  REQUIRE(r.at("manual").size() == 1);
  CHECK(r.at("manual")[0].at("rule") == "OPS-TRITON");
  CHECK(gm_test::snapshot(repo.path()) == before);

  const json m = apply({{"repo", repo.str()}, {"scope", {"model.py"}}, {"apply", true}});
  CHECK(m.at("written") == json::array({"model.py"}));
  auto after = gm_test::snapshot(repo.path());
  for (const auto& [file, text] : before) {
    if (file != "model.py") CHECK(after.at(file) == text);
  }
  CHECK_THAT(after.at("model.py"), Catch::Contains("torch.npu.NPUGraph()"));
  CHECK_THAT(after.at("model.py"), Catch::Contains(".to(\"npu\")"));
  check_compiles(repo.path());
}

TEST_CASE("apply: transfer_to_npu mode adds the one-line route only", "[apply]") {
  gm_test::TempRepo repo("ddp_amp");
  const json r = apply({{"repo", repo.str()},
                        {"scope", {"train.py"}},
                        {"mode", "transfer_to_npu"},
                        {"apply", true}});
  CHECK(r.at("changes").empty());
  const std::string text = gm_test::read_file(repo.path() / "train.py");
  CHECK_THAT(text, Catch::Contains("import torch\n"));
  CHECK_THAT(text, Catch::Contains("\nimport torch_npu\n"));
  CHECK_THAT(text,
             Catch::Contains("\nfrom torch_npu.contrib import transfer_to_npu  # noqa: F401\n"));
  CHECK_THAT(text, Catch::Contains("backend=\"nccl\""));
  for (const json& m : r.at("manual")) CHECK(m.at("effort") != "automatic");
  check_compiles(repo.path());
  const json again =
      apply({{"repo", repo.str()}, {"scope", {"train.py"}}, {"mode", "transfer_to_npu"}});
  CHECK(again.at("patch") == "");
}

TEST_CASE("apply: bad inputs give clear messages and change nothing", "[apply][errors]") {
  gm_test::TempRepo repo("ddp_amp");
  gm_test::write_file(repo.path() / "broken.py", "x = 'never closed\ny = x.cuda()\n");
  gm_test::write_file(repo.path() / "blob.py", std::string("a\0b", 3));
  const auto before = gm_test::snapshot(repo.path());
  auto with_scope = [&](const json& scope) {
    return error_of({{"repo", repo.str()}, {"scope", scope}, {"apply", true}});
  };
  CHECK_THAT(with_scope({"nothing_here.py"}),
             Catch::Contains("matches nothing to migrate: no such file"));
  CHECK_THAT(with_scope({"third_party"}), Catch::Contains("vendored or third-party folder"));
  CHECK_THAT(with_scope({"../etc"}), Catch::Contains("climbs out of the repository"));
  CHECK_THAT(with_scope({"/etc"}), Catch::Contains("is outside the repository"));
  CHECK_THAT(with_scope({"requirements.txt"}), Catch::Contains("holds no Python file"));
  CHECK_THAT(with_scope({"blob.py"}), Catch::Contains("binary file"));
  CHECK_THAT(with_scope({"broken.py"}), Catch::Contains("line 1: unterminated string literal"));
  CHECK_THAT(with_scope(json::array({"train.py", "broken.py"})),
             Catch::Contains("Nothing was changed"));
  CHECK_THAT(error_of({{"repo", (repo.path() / "train.py").string()}, {"scope", {"."}}}),
             Catch::Contains("is not a directory"));
  if (::geteuid() != 0) {
    gm_test::fs::permissions(repo.path() / "train.py", gm_test::fs::perms::none);
    CHECK_THAT(with_scope({"train.py"}), Catch::Contains("cannot be read"));
    gm_test::fs::permissions(repo.path() / "train.py",
                             gm_test::fs::perms::owner_read | gm_test::fs::perms::owner_write);
  }
  CHECK(gm_test::snapshot(repo.path()) == before);
  // include_vendored opts in.
  const json v =
      apply({{"repo", repo.str()}, {"scope", {"third_party"}}, {"include_vendored", true}});
  CHECK(v.at("changes").size() == 1);
}

TEST_CASE("apply: notebooks are analysed, not rewritten", "[apply]") {
  gm_test::TempRepo repo("notebook");
  const auto before = gm_test::snapshot(repo.path());
  const json r = apply({{"repo", repo.str()}, {"scope", {"finetune.ipynb"}}, {"apply", true}});
  REQUIRE(r.at("skipped").size() == 1);
  CHECK_THAT(r.at("skipped")[0].at("reason").get<std::string>(), Catch::Contains("not rewritten"));
  CHECK(gm_test::snapshot(repo.path()) == before);
}

TEST_CASE("apply: comments stay next to their line, CRLF endings are kept", "[apply]") {
  gm_test::TempRepo repo;
  gm_test::write_file(repo.path() / "m.py",
                      "import torch\r\nfrom torch.cuda.amp import autocast\r\nx = torch.zeros(1)"
                      ".cuda()\r\n");
  const json r = apply({{"repo", repo.str()}, {"scope", {"m.py"}}, {"apply", true}});
  CHECK(gm_test::read_file(repo.path() / "m.py") ==
        "import torch\r\n"
        "# gpu-migration DEV-IMPORT-TORCH-NPU: added; importing torch_npu registers the NPU "
        "device, torch.npu and hccl\r\n"
        "import torch_npu\r\n"
        "# gpu-migration PREC-CUDA-AMP: was `from torch.cuda.amp import autocast`; mixed "
        "precision: torch.cuda.amp becomes torch.npu.amp\r\n"
        "from torch.npu.amp import autocast\r\n"
        "# gpu-migration DEV-TENSOR-CUDA: was `x = torch.zeros(1).cuda()`; device transfer: "
        ".cuda() becomes .npu()\r\n"
        "x = torch.zeros(1).npu()\r\n");
  CHECK(r.at("patch") ==
        "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,7 @@\n import torch\n"
        "-from torch.cuda.amp import autocast\n"
        "+# gpu-migration DEV-IMPORT-TORCH-NPU: added; importing torch_npu registers the NPU "
        "device, torch.npu and hccl\n"
        "+import torch_npu\n"
        "+# gpu-migration PREC-CUDA-AMP: was `from torch.cuda.amp import autocast`; mixed "
        "precision: torch.cuda.amp becomes torch.npu.amp\n"
        "+from torch.npu.amp import autocast\n"
        "-x = torch.zeros(1).cuda()\n"
        "+# gpu-migration DEV-TENSOR-CUDA: was `x = torch.zeros(1).cuda()`; device transfer: "
        ".cuda() becomes .npu()\n"
        "+x = torch.zeros(1).npu()\n");
  check_compiles(repo.path());
}
