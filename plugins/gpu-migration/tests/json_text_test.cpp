// analyze's result written as text must be byte for byte what the SDK's dump() makes of the same
// result built as Json: escaping, invalid UTF-8, key order, numbers.
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <random>
#include <skillrt/sdk.hpp>
#include <string>

#include "detail/json_text.hpp"
#include "gpu_migration.hpp"
#include "test_support.hpp"

using nlohmann::json;
namespace d = skillrt::gpu_migration::detail;

namespace {

std::string written(const std::string& s) {
  std::string out = "x";  // appending must leave what is already there alone
  d::append_json_string(out, s);
  return out.substr(1);
}

std::string dumped(const std::string& s) { return skillrt::detail::dump(json(s)); }

void check_analysis(const json& input) {
  const std::string want = skillrt::detail::dump(skillrt::gpu_migration::analyze(input));
  const std::string got = skillrt::gpu_migration::analyze_text(input);
  REQUIRE(got.size() == want.size());
  REQUIRE(got == want);
}

// Lines a generated file is made of: CUDA usage of every kind of rule, decoys, and text that
// needs escaping or is not ASCII.
const char* const kLines[] = {
    "x = torch.randn(8, device='cuda:0')",
    "y = x.cuda()",
    "if t.is_cuda: n = torch.cuda.device_count()",
    "with torch.cuda.amp.autocast(dtype=torch.float64):",
    "model = nn.DataParallel(model)",
    "dist.init_process_group(backend=\"nccl\")",
    "os.environ['NCCL_DEBUG'] = 'INFO'",
    "model = torch.compile(model, mode=\"max-autotune\")",
    "opt = torch.optim.AdamW(model.parameters(), lr=1e-4)",
    "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)",
    "z = x.transpose(0, 1).view(4, -1)",
    "from flash_attn import flash_attn_func",
    "import xformers.ops as xops",
    "m = AutoModel.from_pretrained('m', attn_implementation=\"flash_attention_2\")",
    "torch.backends.cuda.matmul.allow_tf32 = True",
    "cap = torch.cuda.get_device_capability()",
    "dev = 'cuda'  # gpu-migration: keep",
    "# move everything to cuda before training",
    "print(\"cuda is not used here\")",
    "msg = 'caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 on cuda'",
    "\xe5\x90\x8d = torch.device(\"cuda:1\")  # \xe8\xae\xbe\xe5\xa4\x87",
    "s = 'cuda:\t0'",
    "q = \"cuda:\\\\0\\\"\" + '\x1b[0m'",
    "e = torch.cuda.Event(enable_timing=True)  # emoji \xf0\x9f\x9a\x80",
    "w = 1 / 2  # a/b \\\\ \"quoted\"",
    "p = pathlib.Path('/tmp/cuda/x')",
};

std::string generated_file(std::mt19937& rng, int index) {
  std::string text = "import os\nimport torch\nimport torch.nn as nn\n";
  text += "import torch.distributed as dist\n\n";
  std::uniform_int_distribution<size_t> pick(0, sizeof kLines / sizeof *kLines - 1);
  for (int fn = 0; fn < 4; ++fn) {
    text += "def f" + std::to_string(fn) + "(x, model):\n";
    text += "    \"\"\"Runs on cuda; see torch.cuda docs.\"\"\"\n";
    for (int l = 0; l < 6; ++l) text += std::string("    ") + kLines[pick(rng)] + "\n";
    text += "    return x\n\n";
  }
  if (index % 7 == 0) {
    // Cut at 240 bytes in the middle of a two-byte character: the finding's code is not UTF-8.
    text += "n = torch.cuda.device_count()  # ";
    for (int i = 0; i < 110; ++i) text += "\xc3\xa9";
    text += "\n";
  }
  return text;
}

}  // namespace

TEST_CASE("json text: strings are written as nlohmann writes them", "[json-text]") {
  for (int c = 0; c < 256; ++c) {
    const std::string s(1, static_cast<char>(c));
    CHECK(written(s) == dumped(s));
  }
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const std::string s = {static_cast<char>(a), static_cast<char>(b), 'x'};
      if (written(s) != dumped(s)) FAIL_CHECK("bytes " << a << " " << b);
    }
  }
  const std::string cases[] = {"",
                               "plain",
                               "tab\there",
                               "\"quoted\" \\ back/slash",
                               "del \x7f",
                               "\xc3\xa9t\xc3\xa9",
                               "\xe0\xa0\x80",
                               "\xe0\x9f\xbf",  // overlong three-byte form
                               "\xed\x9f\xbf",
                               "\xed\xa0\x80",  // the last before and the first surrogate
                               "\xef\xbf\xbf",
                               "\xf0\x90\x80\x80",
                               "\xf0\x8f\xbf\xbf",
                               "\xf4\x8f\xbf\xbf",
                               "\xf4\x90\x80\x80",
                               "\xf5\x80\x80\x80",
                               "\xc0\xaf",
                               "\xc3",
                               "ab\xe4\xb8",
                               "\xe4\xb8\x41",
                               "\xf0\x9f\x9a",
                               "\x80\x80",
                               "a\xffz\xfe",
                               "\xc3\xa9\xc3",
                               std::string("nul\0in", 6)};
  for (const std::string& s : cases) CHECK(written(s) == dumped(s));
  std::mt19937 rng(15);
  std::uniform_int_distribution<int> byte(0, 255), len(0, 24), ascii_bias(0, 3);
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    for (int n = len(rng); n > 0; --n) {
      s += ascii_bias(rng) == 0 ? static_cast<char>(byte(rng)) : static_cast<char>(0x20 + n);
    }
    if (written(s) != dumped(s)) FAIL_CHECK("string " << dumped(s));
  }
}

TEST_CASE("json text: integers are written as nlohmann writes them", "[json-text]") {
  for (const int64_t v :
       {int64_t{0}, int64_t{7}, int64_t{-1}, int64_t{1234567890123},
        std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}) {
    std::string out;
    d::append_json_int(out, v);
    CHECK(out == json(v).dump());
  }
}

TEST_CASE("analyze_text: the fixtures' results are dump() of analyze's, byte for byte",
          "[json-text][analyze]") {
  for (const char* name : {"ddp_amp", "dp_caps", "flash_ext", "notebook"}) {
    INFO(name);
    check_analysis({{"repo", gm_test::fixture(name).string()}});
    check_analysis({{"repo", gm_test::fixture(name).string()}, {"include_vendored", true}});
  }
}

TEST_CASE("analyze_text: a generated repository's result is dump() of analyze's, byte for byte",
          "[json-text][analyze]") {
  gm_test::TempRepo repo;
  std::mt19937 rng(2026);
  // Enough files for the scan to run on several threads.
  for (int i = 0; i < 300; ++i) {
    gm_test::write_file(
        repo.path() / ("pkg" + std::to_string(i % 9)) / ("mod_" + std::to_string(i) + ".py"),
        generated_file(rng, i));
  }
  // A name that is not UTF-8, a notebook with a magic, text rules with version notes, a file the
  // tokenizer stops in, a file that is not UTF-8 and a vendored copy.
  gm_test::write_file(repo.path() / "caf\xe9.py", "y = x.cuda()\n");
  gm_test::write_file(repo.path() / "nb.ipynb",
                      json{{"cells",
                            {{{"cell_type", "code"},
                              {"source",
                               {"!pip install flash-attn==2.3.0\n", "m = model.cuda()\n",
                                "t = '\xc3\xa9' if torch.cuda.is_available() else 'cpu'\n"}}}}},
                           {"nbformat", 4}}
                          .dump());
  gm_test::write_file(repo.path() / "requirements.txt",
                      "flash-attn==2.3.0\ntransformers==4.30.0\nxformers\n");
  gm_test::write_file(repo.path() / "launch.sh", "export NCCL_DEBUG=INFO\nNCCL_IB_DISABLE=1 run\n");
  gm_test::write_file(repo.path() / "csrc" / "k.cu",
                      "#include <cuda_runtime.h>\n__global__ void k() {}\n");
  gm_test::write_file(repo.path() / "broken.py", "x = y.cuda()\ns = 'unterminated\n");
  gm_test::write_file(repo.path() / "latin1.py", "s = '\xe9t\xe9'.cuda()\n");
  gm_test::write_file(repo.path() / "third_party" / "apex" / "x.py", "a = b.cuda()\n");
  const json input = {{"repo", repo.str()}};
  check_analysis(input);
  const std::string text = skillrt::gpu_migration::analyze_text(input);
  // The corpus reaches every kind of escape and the replacement of invalid UTF-8.
  for (const char* written_as :
       {"\\t", "\\u001b", "\\\\", "\\\"", "\xe5\x90\x8d", "\xf0\x9f\x9a\x80",
        "\"file\":\"caf\xef\xbf\xbd.py\"", "\xc3\xa9\xef\xbf\xbd...\"", "\"marked_data\":true",
        "\"cell\":0", "\"note\":"}) {
    INFO(written_as);
    CHECK(text.find(written_as) != std::string::npos);
  }
  const json parsed = json::parse(text);
  CHECK(parsed.at("findings").size() > 1000);
  CHECK(parsed.at("suggestions").size() > 100);
  CHECK_FALSE(parsed.at("skipped").empty());
  CHECK_FALSE(parsed.at("notes").empty());
  CHECK(parsed.at("overall").at("findings") == parsed.at("findings").size());
  check_analysis({{"repo", repo.str()}, {"exclude", {"pkg1", "*.ipynb"}}});
  gm_test::TempRepo empty;
  check_analysis({{"repo", empty.str()}});
}

TEST_CASE("analyze_text: with reports it is still dump() of analyze's result", "[json-text]") {
  gm_test::TempRepo repo("flash_ext");
  // A name that is not UTF-8 is replaced in the JSON report as in the result, not an error.
  gm_test::write_file(repo.path() / "caf\xe9.py", "y = x.cuda()\n");
  gm_test::TempRepo out;
  const json input = {{"repo", repo.str()},
                      {"report_dir", (out.path() / "r").string()},
                      {"formats", {"md", "json"}}};
  const json text = json::parse(skillrt::gpu_migration::analyze_text(input));
  REQUIRE(text.at("reports").size() == 2);
  CHECK(skillrt::detail::dump(text) ==
        skillrt::detail::dump(skillrt::gpu_migration::analyze(input)));
  const json report =
      json::parse(gm_test::read_file(out.path() / "r" / "gpu-migration-report.json"));
  CHECK(report.at("findings") == text.at("findings"));
  CHECK(report.at("domains") == text.at("domains"));
}
