#include <unistd.h>

#include <catch2/catch.hpp>
#include <skillrt/sdk.hpp>
#include <sstream>

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

// A notebook cell's code as Jupyter joins it.
std::string cell_source(const gm_test::fs::path& notebook, int cell) {
  const json s = json::parse(gm_test::read_file(notebook)).at("cells").at(cell).at("source");
  if (s.is_string()) return s.get<std::string>();
  std::string out;
  for (const json& l : s) out += l.get<std::string>();
  return out;
}

// Every Python file, and every code cell of every notebook extracted to a file of its own (shell
// and magic lines blanked, cell magics left out: they are not Python), compiles.
void check_compiles(const gm_test::fs::path& root) {
  std::vector<gm_test::fs::path> notebooks;
  for (auto& e : gm_test::fs::recursive_directory_iterator(root)) {
    if (e.path().extension() == ".ipynb") notebooks.push_back(e.path());
    if (e.path().extension() != ".py") continue;
    INFO(e.path());
    CHECK(gm_test::run("/usr/bin/python3 -m py_compile '" + e.path().string() + "' 2>&1") == 0);
  }
  gm_test::TempRepo extracted;
  for (const gm_test::fs::path& nb : notebooks) {
    const json cells = json::parse(gm_test::read_file(nb)).at("cells");
    for (size_t i = 0; i < cells.size(); ++i) {
      if (cells[i].at("cell_type") != "code") continue;
      std::string code = cell_source(nb, static_cast<int>(i)), kept;
      if (code.rfind("%%", 0) == 0) continue;
      std::istringstream in(code);
      for (std::string line; std::getline(in, line);) {
        const size_t first = line.find_first_not_of(" \t");
        const bool magic = first != std::string::npos && (line[first] == '!' || line[first] == '%');
        kept += (magic ? "" : line) + "\n";
      }
      const gm_test::fs::path py =
          extracted.path() / (nb.stem().string() + "_cell" + std::to_string(i) + ".py");
      gm_test::write_file(py, kept);
      INFO(nb << " cell " << i << ":\n" << kept);
      CHECK(gm_test::run("/usr/bin/python3 -m py_compile '" + py.string() + "' 2>&1") == 0);
    }
  }
}

// After apply, a cuda usage may stay only on a line marked as data, in a non-Python file or a
// notebook's shell line, or as a finding apply listed for manual work.
void check_no_cuda_left(const gm_test::fs::path& root, const json& applied) {
  const json after = analyze({{"repo", root.string()}});
  for (const json& f : after.at("findings")) {
    if (f.at("matched").get<std::string>().find("cuda") == std::string::npos) continue;
    if (f.value("marked_data", false) || f.at("context") == "text") continue;
    bool listed = false;
    for (const json& m : applied.at("manual")) {
      listed |= m.at("file") == f.at("file") && m.at("rule") == f.at("rule") &&
                m.value("cell", -1) == f.value("cell", -1);
    }
    INFO(f.dump());
    CHECK(listed);
  }
}

void check_comments(const gm_test::fs::path& root, const json& applied) {
  REQUIRE_FALSE(applied.at("changes").empty());
  for (const json& c : applied.at("changes")) {
    const gm_test::fs::path file = root / c.at("file").get<std::string>();
    const std::string text =
        c.contains("cell") ? cell_source(file, c.at("cell")) : gm_test::read_file(file);
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

TEST_CASE("apply: comments stay next to their line, CRLF endings are kept", "[apply]") {
  gm_test::TempRepo repo;
  const std::string original =
      "import torch\r\nfrom torch.cuda.amp import autocast\r\nx = torch.zeros(1).cuda()\r\n";
  gm_test::write_file(repo.path() / "m.py", original);
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
  // The patch's lines keep their CR, as diff -u prints a CRLF file, so patch(1) applies it.
  CHECK(r.at("patch") ==
        "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,7 @@\n import torch\r\n"
        "-from torch.cuda.amp import autocast\r\n"
        "+# gpu-migration DEV-IMPORT-TORCH-NPU: added; importing torch_npu registers the NPU "
        "device, torch.npu and hccl\r\n"
        "+import torch_npu\r\n"
        "+# gpu-migration PREC-CUDA-AMP: was `from torch.cuda.amp import autocast`; mixed "
        "precision: torch.cuda.amp becomes torch.npu.amp\r\n"
        "+from torch.npu.amp import autocast\r\n"
        "-x = torch.zeros(1).cuda()\r\n"
        "+# gpu-migration DEV-TENSOR-CUDA: was `x = torch.zeros(1).cuda()`; device transfer: "
        ".cuda() becomes .npu()\r\n"
        "+x = torch.zeros(1).npu()\r\n");
  gm_test::TempRepo copy;
  gm_test::write_file(copy.path() / "m.py", original);
  gm_test::write_file(copy.path() / "fix.patch", r.at("patch").get<std::string>());
  REQUIRE(gm_test::run("cd '" + copy.str() + "' && patch -s -p1 < fix.patch 2>&1") == 0);
  CHECK(gm_test::read_file(copy.path() / "m.py") == gm_test::read_file(repo.path() / "m.py"));
  check_compiles(repo.path());
}

namespace {

// A notebook as Jupyter writes it (one-space indentation, sorted keys), with outputs, metadata, a
// markdown cell, a shell line, a cell magic and a raw cell around the code to migrate.
const char* const kNotebook = R"nb({
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "Runs on `cuda` today: call `model.cuda()`."
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "metadata": {},
   "outputs": [],
   "source": [
    "!nvidia-smi --query-gpu=name --format=csv\n",
    "import os\n",
    "import torch\n",
    "print(torch.__version__)"
   ]
},
  {
   "cell_type": "code",
   "execution_count": 2,
   "metadata": {
    "scrolled": true,
    "tags": ["train"]
   },
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "cuda:0 ready\n",
      "x.cuda() took 3 ms\n"
     ]
    },
    {
     "data": {
      "text/plain": [
       "device(type='cuda', index=0)"
      ]
     },
     "execution_count": 2,
     "metadata": {},
     "output_type": "execute_result"
    }
   ],
   "source": [
    "def run(x, width=8):\n",
    "    x = x.cuda()  # the batch\n",
    "    torch.cuda.synchronize()\n",
    "    print(f\"{x.sum().item():>{torch.cuda.device_count() + width}}\")\n",
    "    return torch.device(\"cuda:0\")\n",
    "\n",
    "run(torch.ones(2))"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "metadata": {},
   "outputs": [],
   "source": [
    "%%bash\n",
    "echo \"x.cuda() is not Python here\"\n"
   ]
  },
  {
   "cell_type": "raw",
   "metadata": {},
   "source": "torch.cuda.synchronize()"
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  },
  "language_info": {
   "name": "python",
   "version": "3.11.7"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
)nb";

std::string between(const std::string& text, const std::string& from, const std::string& to) {
  const size_t b = text.find(from);
  const size_t e = text.find(to, b);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  return text.substr(b, e + to.size() - b);
}

}  // namespace

TEST_CASE("apply: notebook code cells are rewritten in place, the rest of the file untouched",
          "[apply][notebook]") {
  gm_test::TempRepo repo;
  gm_test::write_file(repo.path() / "nb" / "train.ipynb", kNotebook);
  const std::string before = kNotebook;

  // The dry run's patch, applied by patch(1) to a copy, gives exactly what apply writes.
  const json dry = apply({{"repo", repo.str()}, {"scope", {"nb"}}});
  CHECK(gm_test::read_file(repo.path() / "nb" / "train.ipynb") == before);
  const std::string patch = dry.at("patch");
  CHECK(patch.rfind("--- a/nb/train.ipynb\n+++ b/nb/train.ipynb\n@@ ", 0) == 0);
  gm_test::TempRepo copy;
  gm_test::write_file(copy.path() / "nb" / "train.ipynb", before);
  gm_test::write_file(copy.path() / "fix.patch", patch);
  REQUIRE(gm_test::run("cd '" + copy.str() + "' && patch -s -p1 < fix.patch 2>&1") == 0);

  const json r = apply({{"repo", repo.str()}, {"scope", {"nb"}}, {"apply", true}});
  CHECK(r.at("patch") == patch);
  CHECK(r.at("written") == json::array({"nb/train.ipynb"}));
  CHECK(r.at("skipped").empty());
  CHECK(r.at("remaining").empty());
  const std::string after = gm_test::read_file(repo.path() / "nb" / "train.ipynb");
  CHECK(gm_test::read_file(copy.path() / "nb" / "train.ipynb") == after);

  // Every change is in a cell, at a line of that cell, with its comment in the cell.
  std::set<std::pair<int, std::string>> changed;
  for (const json& c : r.at("changes"))
    changed.insert({c.at("cell").get<int>(), c.at("rule").get<std::string>()});
  CHECK(changed == std::set<std::pair<int, std::string>>{
                       {2, "DEV-TENSOR-CUDA"}, {2, "DEV-CUDA-RUNTIME"}, {2, "DEV-DEVICE-STRING"}});
  check_comments(repo.path(), r);
  check_compiles(repo.path());
  check_no_cuda_left(repo.path(), r);
  const gm_test::fs::path nb = repo.path() / "nb" / "train.ipynb";
  CHECK(cell_source(nb, 1) ==
        "!nvidia-smi --query-gpu=name --format=csv\nimport os\nimport torch\n"
        "# gpu-migration DEV-IMPORT-TORCH-NPU: added; importing torch_npu registers the NPU "
        "device, torch.npu and hccl\nimport torch_npu\nprint(torch.__version__)");
  const std::string code = cell_source(nb, 2);
  CHECK_THAT(code, Catch::Contains("\n    x = x.npu()  # the batch\n"));
  CHECK_THAT(code, Catch::Contains("\n    torch.npu.synchronize()\n"));
  // The device query inside the nested format specification is rewritten too.
  CHECK_THAT(code, Catch::Contains("{x.sum().item():>{torch.npu.device_count() + width}}"));
  CHECK_THAT(code, Catch::Contains("return torch.device(\"npu:0\")"));
  std::istringstream lines(code);
  for (std::string l; std::getline(lines, l);) {
    INFO(l);
    if (l.find("# gpu-migration ") == std::string::npos) CHECK(l.find("cuda") == std::string::npos);
  }

  // Outside the changed sources nothing moved: outputs, metadata, other cells, layout.
  const json old_doc = json::parse(before), new_doc = json::parse(after);
  CHECK(new_doc.at("metadata") == old_doc.at("metadata"));
  CHECK(new_doc.at("nbformat") == old_doc.at("nbformat"));
  for (size_t i = 0; i < old_doc.at("cells").size(); ++i) {
    json a = old_doc.at("cells")[i], b = new_doc.at("cells")[i];
    if (i == 1 || i == 2) {
      a.erase("source");
      b.erase("source");
    }
    INFO("cell " << i);
    CHECK(a == b);
  }
  CHECK_THAT(after,
             Catch::Contains(between(before, "   \"outputs\": [\n    {", "   ],\n   \"source")));
  CHECK_THAT(after, Catch::Contains(between(before, " \"metadata\": {\n  \"kernelspec\"", "}\n")));
  CHECK_THAT(after,
             Catch::Contains("    \"import torch_npu\\n\",\n    \"print(torch.__version__)\"\n"
                             "   ]\n"));

  // A second apply finds nothing to do.
  const json again = apply({{"repo", repo.str()}, {"scope", {"nb"}}, {"apply", true}});
  CHECK(again.at("changes").empty());
  CHECK(again.at("patch") == "");
  CHECK(again.at("written").empty());
  CHECK(gm_test::read_file(nb) == after);
}

TEST_CASE("apply: the fixture notebook, string sources and shell lines", "[apply][notebook]") {
  gm_test::TempRepo repo("notebook");
  const json r = apply({{"repo", repo.str()}, {"scope", {"finetune.ipynb"}}, {"apply", true}});
  check_compiles(repo.path());
  check_comments(repo.path(), r);
  check_no_cuda_left(repo.path(), r);
  const gm_test::fs::path nb = repo.path() / "finetune.ipynb";
  // A source held as one string stays one string.
  CHECK(json::parse(gm_test::read_file(nb)).at("cells")[3].at("source").is_string());
  CHECK_THAT(cell_source(nb, 3),
             Catch::Contains("print('done on', \"\"\"npu\"\"\", torch.npu.is_available())"));
  // The pip line is a requirement, left for the user and listed with its cell.
  bool pip = false;
  for (const json& m : r.at("manual"))
    pip |= m.at("rule") == "THIRD-REQUIREMENT" && m.at("cell") == 1;
  CHECK(pip);
  CHECK_THAT(cell_source(nb, 1), Catch::StartsWith("!pip install flash-attn xformers"));
  const std::string once = gm_test::read_file(nb);
  const json again = apply({{"repo", repo.str()}, {"scope", {"finetune.ipynb"}}, {"apply", true}});
  CHECK(again.at("patch") == "");
  CHECK(gm_test::read_file(nb) == once);
}

TEST_CASE("apply: transfer_to_npu mode puts its imports in the notebook's torch cell",
          "[apply][notebook]") {
  gm_test::TempRepo repo;
  gm_test::write_file(repo.path() / "train.ipynb", kNotebook);
  const json r = apply({{"repo", repo.str()},
                        {"scope", {"train.ipynb"}},
                        {"mode", "transfer_to_npu"},
                        {"apply", true}});
  CHECK(r.at("changes").empty());
  const gm_test::fs::path nb = repo.path() / "train.ipynb";
  CHECK_THAT(cell_source(nb, 1),
             Catch::Contains("import torch\n# gpu-migration DEV-IMPORT-TORCH-NPU"));
  CHECK_THAT(cell_source(nb, 1),
             Catch::Contains("\nfrom torch_npu.contrib import transfer_to_npu  # noqa: F401\n"));
  CHECK_THAT(cell_source(nb, 2), Catch::Contains("x = x.cuda()"));
  check_compiles(repo.path());
  const json again =
      apply({{"repo", repo.str()}, {"scope", {"train.ipynb"}}, {"mode", "transfer_to_npu"}});
  CHECK(again.at("patch") == "");
}

TEST_CASE("apply: broken notebooks give clear messages and change nothing",
          "[apply][notebook][errors]") {
  gm_test::TempRepo repo;
  gm_test::write_file(repo.path() / "bad.ipynb", "{\"cells\": [");
  std::string unterminated = kNotebook;
  const std::string line = "    \"    torch.cuda.synchronize()\\n\",\n";
  unterminated.replace(unterminated.find(line), line.size(), "    \"    s = 'open\\n\",\n");
  gm_test::write_file(repo.path() / "open.ipynb", unterminated);
  std::string no_torch = kNotebook;
  no_torch.replace(no_torch.find("\"import torch\\n\""), 16, "\"import sys\\n\"");
  gm_test::write_file(repo.path() / "no_torch.ipynb", no_torch);
  const auto before = gm_test::snapshot(repo.path());
  auto with_scope = [&](const std::string& scope) {
    return error_of({{"repo", repo.str()}, {"scope", {scope}}, {"apply", true}});
  };
  CHECK_THAT(with_scope("bad.ipynb"), Catch::Contains("notebook is not valid JSON"));
  CHECK_THAT(with_scope("open.ipynb"),
             Catch::Contains("'open.ipynb' cell 2 line 3: unterminated string literal"));
  CHECK_THAT(with_scope("open.ipynb"), Catch::Contains("Nothing was changed"));
  CHECK(gm_test::snapshot(repo.path()) == before);
  // Without a top-level torch import in any cell, the import is a follow-up, not a guess.
  const json r = apply({{"repo", repo.str()}, {"scope", {"no_torch.ipynb"}}});
  bool followup = false;
  for (const json& f : r.at("followups")) {
    followup |= f.at("rule") == "DEV-IMPORT-TORCH-NPU" && f.at("file") == "no_torch.ipynb";
  }
  CHECK(followup);
  CHECK(r.at("patch").get<std::string>().find("import torch_npu") == std::string::npos);
}

TEST_CASE("apply: a notebook written on one line keeps its layout", "[apply][notebook]") {
  gm_test::TempRepo repo;
  const std::string compact = json::parse(kNotebook).dump();
  gm_test::write_file(repo.path() / "one.ipynb", compact);
  const json dry = apply({{"repo", repo.str()}, {"scope", {"one.ipynb"}}});
  gm_test::TempRepo copy;
  gm_test::write_file(copy.path() / "one.ipynb", compact);
  gm_test::write_file(copy.path() / "fix.patch", dry.at("patch").get<std::string>());
  REQUIRE(gm_test::run("cd '" + copy.str() + "' && patch -s -p1 < fix.patch 2>&1") == 0);
  const json r = apply({{"repo", repo.str()}, {"scope", {"one.ipynb"}}, {"apply", true}});
  const std::string after = gm_test::read_file(repo.path() / "one.ipynb");
  CHECK(gm_test::read_file(copy.path() / "one.ipynb") == after);
  // Still one line, and each changed source is a list of lines as before.
  CHECK(after.find('\n') == std::string::npos);
  CHECK(json::parse(after).at("cells")[2].at("source").is_array());
  CHECK_THAT(cell_source(repo.path() / "one.ipynb", 2), Catch::Contains("torch.npu.synchronize()"));
  check_compiles(repo.path());
  check_comments(repo.path(), r);
  CHECK(apply({{"repo", repo.str()}, {"scope", {"one.ipynb"}}}).at("patch") == "");
}

TEST_CASE("apply: the patch reproduces the written files, final newline or not", "[apply]") {
  const std::map<std::string, std::string> files = {
      {"last.py", "import torch\nx = torch.zeros(1).cuda()"},
      {"tail_import.py", "y = t.cuda()\nimport torch"},
      {"plain.py", "import torch\nz = torch.ones(1).cuda()\n"},
  };
  gm_test::TempRepo repo, copy;
  for (const auto& [name, text] : files) {
    gm_test::write_file(repo.path() / name, text);
    gm_test::write_file(copy.path() / name, text);
  }
  const json dry = apply({{"repo", repo.str()}, {"scope", {"."}}});
  const std::string patch = dry.at("patch");
  CHECK_THAT(patch, Catch::Contains("\n\\ No newline at end of file\n"));
  gm_test::write_file(copy.path() / "fix.patch", patch);
  REQUIRE(gm_test::run("cd '" + copy.str() + "' && patch -s -p1 < fix.patch 2>&1") == 0);
  apply({{"repo", repo.str()}, {"scope", {"."}}, {"apply", true}});
  for (const auto& [name, text] : files) {
    INFO(name);
    CHECK(gm_test::read_file(copy.path() / name) == gm_test::read_file(repo.path() / name));
    CHECK(gm_test::read_file(repo.path() / name) != text);
  }
  CHECK(gm_test::read_file(repo.path() / "last.py").back() == ')');
  check_compiles(repo.path());
}

TEST_CASE("apply: five real projects compile after apply, and a second apply changes nothing",
          "[apply][real]") {
  for (const char* project : {"nanoGPT", "Wan2.1", "qlora", "detr", "mamba"}) {
    INFO(project);
    gm_test::TempRepo repo(std::string("real_projects/") + project);
    const json first = apply({{"repo", repo.str()}, {"scope", {"."}}, {"apply", true}});
    check_compiles(repo.path());
    const auto after_first = gm_test::snapshot(repo.path());
    const json second = apply({{"repo", repo.str()}, {"scope", {"."}}, {"apply", true}});
    CHECK(second.at("changes").empty());
    CHECK(gm_test::snapshot(repo.path()) == after_first);
    if (std::string(project) == "Wan2.1") {
      // The amp alias is migrated at its import; the uses through it need no edit.
      CHECK_THAT(gm_test::read_file(repo.path() / "wan/modules/model.py"),
                 Catch::Contains("import torch.npu.amp as amp"));
    }
  }
}

TEST_CASE("apply: onnxruntime's CUDA provider becomes the CANN provider", "[apply]") {
  gm_test::TempRepo repo;
  gm_test::write_file(
      repo.path() / "infer.py",
      "import onnxruntime as ort\n"
      "\n"
      "sess = ort.InferenceSession('m.onnx', providers=['CUDAExecutionProvider'])\n");
  const json out = apply({{"repo", repo.str()}, {"scope", {"."}}, {"apply", true}});
  const std::string text = gm_test::read_file(repo.path() / "infer.py");
  CHECK_THAT(text, Catch::Contains("providers=['CANNExecutionProvider']"));
  CHECK_THAT(text, Catch::Contains("CUDAExecutionProvider"));  // in the comment with the original
  check_compiles(repo.path());
}
