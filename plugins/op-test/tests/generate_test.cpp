#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "generate.hpp"
#include "optoolkit/sources.hpp"

using skillrt::Json;
namespace fs = std::filesystem;

namespace {

const std::string kData = SKILLRT_OP_TEST_DATA;
const std::string kSource =
    std::string(SKILLRT_SOURCE_DIR) + "/tests/data/op-plugin/op_plugin_functions.yaml";

fs::path temp_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("op_test_tests_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::string read(const fs::path& p) {
  std::ifstream f(p);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

struct PyRun {
  int rc;
  std::string output;
};

// Runs a generated file with Debian's python3-torch, the torch_npu stand-in and device cpu.
PyRun run_python(const std::string& content, const std::string& name) {
  const fs::path file = temp_dir() / (name + ".py");
  std::ofstream(file) << content;
  const fs::path log = temp_dir() / (name + ".log");
  const std::string compile =
      "/usr/bin/python3 -m py_compile '" + file.string() + "' > '" + log.string() + "' 2>&1";
  if (std::system(compile.c_str()) != 0) return {-1, "py_compile failed: " + read(log)};
  const std::string cmd = "cd '" + temp_dir().string() + "' && OP_TEST_DEVICE=cpu PYTHONPATH='" +
                          kData + "/standin' /usr/bin/python3 '" + file.string() + "' > '" +
                          log.string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  return {rc, read(log)};
}

Json cases() {
  std::ifstream f(kData + "/cpu_proof_ops.json");
  REQUIRE(f.good());
  return Json::parse(f);
}

}  // namespace

TEST_CASE("python3-torch is installed for the CPU proof", "[op-test][generate]") {
  INFO("install python3-torch (scripts/install-deps.sh): the generated tests run with it");
  REQUIRE(std::system("/usr/bin/python3 -c 'import torch, numpy' > /dev/null 2>&1") == 0);
}

TEST_CASE("generated tests pass on CPU for 13 ops and fail with a wrong reference",
          "[op-test][generate]") {
  const Json all = cases();
  REQUIRE(all.size() >= 10);
  for (const Json& c : all) {
    Json input = c.at("input");
    input["mode"] = "generate";
    input["source"] = kSource;
    const std::string op = input.at("op").get<std::string>();
    SECTION(op) {
      const Json out = skillrt::op_test::run_generate(input, nullptr);
      const std::string content = out.at("test_file").at("content").get<std::string>();
      std::string id = op;
      for (char& ch : id)
        if (ch == '.') ch = '_';
      const PyRun good = run_python(content, id + "_right");
      INFO(good.output.substr(good.output.size() > 4000 ? good.output.size() - 4000 : 0));
      REQUIRE(good.rc == 0);
      // Every case ran: only the torch.compile case may skip, and only with its reason.
      std::smatch m;
      REQUIRE(std::regex_search(good.output, m, std::regex(R"(Ran (\d+) tests)")));
      const int ran = std::stoi(m[1].str());
      CHECK(ran == static_cast<int>(out.at("cases").size()));
      CHECK(good.output.find("OK (skipped=1)") != std::string::npos);
      CHECK(good.output.find("torch.compile needs torch >= 2.0") != std::string::npos);
      CHECK(good.output.find("test_") != std::string::npos);

      input["reference"] = c.at("wrong_reference");
      const Json wrong_out = skillrt::op_test::run_generate(input, nullptr);
      const PyRun bad =
          run_python(wrong_out.at("test_file").at("content").get<std::string>(), id + "_wrong");
      INFO(bad.output.substr(bad.output.size() > 2000 ? bad.output.size() - 2000 : 0));
      CHECK(bad.rc != 0);
      CHECK(bad.output.find("FAILED (failures=") != std::string::npos);
    }
  }
}

TEST_CASE("generate covers variants, negative, fake and compile cases with evidence",
          "[op-test][generate]") {
  const Json out = skillrt::op_test::run_generate(
      {{"mode", "generate"}, {"op", "abs"}, {"source", kSource}}, nullptr);
  REQUIRE(out.at("variants").size() == 3);
  CHECK(out.at("variants")[0].at("source").at("line") == 767);
  std::set<std::string> kinds;
  for (const auto& c : out.at("cases")) kinds.insert(c.at("kind").get<std::string>());
  CHECK(kinds == std::set<std::string>{"positive", "negative", "fake-tensor", "compile"});
  const std::string content = out.at("test_file").at("content").get<std::string>();
  CHECK(content.find("from torch_npu.testing.testcase import TestCase, run_tests") !=
        std::string::npos);
  CHECK(content.find("create_common_tensor") != std::string::npos);
  CHECK(content.find("DEVICE = os.environ.get(\"OP_TEST_DEVICE\", \"npu\")") != std::string::npos);
  CHECK(out.at("test_file").at("path") == "test/test_base_ops/test_abs.py");
  // Default dtypes carry their own tolerance.
  CHECK(content.find("\"bfloat16\": 0.004") != std::string::npos);
  CHECK(content.find("\"float16\": 0.001") != std::string::npos);
}

TEST_CASE("generate: custom op from a schema, chips, guessed values listed",
          "[op-test][generate]") {
  const Json out =
      skillrt::op_test::run_generate({{"mode", "generate"},
                                      {"schema",
                                       "npu_add_rms_norm(Tensor x1, Tensor x2, Tensor gamma, float "
                                       "epsilon=1e-06) -> (Tensor, Tensor, Tensor)"},
                                      {"chips", {"Ascend910B"}}},
                                     nullptr);
  const std::string content = out.at("test_file").at("content").get<std::string>();
  CHECK(out.at("test_file").at("path") == "test/test_custom_ops/test_npu_add_rms_norm.py");
  CHECK(content.find("torch.ops.npu.npu_add_rms_norm.default") != std::string::npos);
  CHECK(content.find("@CHIPS") != std::string::npos);
  CHECK(content.find("\"epsilon\": 1e-06,  # schema default 1e-06") != std::string::npos);
  // No reference for an npu:: op: said so, not hidden.
  bool reference_assumption = false;
  for (const auto& a : out.at("assumptions"))
    reference_assumption |= a.at("argument") == "reference";
  CHECK(reference_assumption);
  const PyRun r = run_python(content, "custom_compile_only");
  (void)r;  // the stand-in has no npu ops; only py_compile matters here
  CHECK(r.output.find("py_compile failed") == std::string::npos);
}

TEST_CASE("generate: bad input names the field", "[op-test][generate]") {
  CHECK_THROWS_WITH(skillrt::op_test::run_generate(
                        {{"mode", "generate"}, {"schema", "abs(Tensor self -> Tensor"}}, nullptr),
                    Catch::Contains("field 'schema'"));
  CHECK_THROWS_WITH(skillrt::op_test::run_generate(
                        {{"mode", "generate"}, {"op", "abz"}, {"source", kSource}}, nullptr),
                    Catch::Contains("nearest"));
  CHECK_THROWS_WITH(
      skillrt::op_test::run_generate(
          {{"mode", "generate"}, {"schema", "abs(Tensor self) -> Tensor"}, {"dtypes", {"float8"}}},
          nullptr),
      Catch::Contains("field 'dtypes'"));
}

TEST_CASE("generate: apply writes under root only", "[op-test][generate]") {
  const fs::path root = temp_dir() / "repo";
  fs::create_directories(root);
  Json in = {{"mode", "generate"},
             {"schema", "abs(Tensor self) -> Tensor"},
             {"apply", true},
             {"root", root.string()}};
  const Json out = skillrt::op_test::run_generate(in, nullptr);
  CHECK(out.at("applied") == true);
  CHECK(fs::exists(root / "test/test_base_ops/test_abs.py"));
  in["path"] = "../escape.py";
  CHECK_THROWS_WITH(skillrt::op_test::run_generate(in, nullptr), Catch::Contains("leaves 'root'"));
  CHECK_FALSE(fs::exists(temp_dir() / "escape.py"));
}

TEST_CASE("generate: every op of op_plugin_functions.yaml gives a file that compiles",
          "[op-test][generate]") {
  const skillrt::ops::OpSource source = skillrt::ops::load_source_file(kSource);
  const fs::path dir = temp_dir() / "all_ops";
  fs::create_directories(dir);
  size_t written = 0, refused = 0;
  for (const auto& entry : source.entries) {
    if (!entry.parsed.ok()) continue;
    const Json input = {{"mode", "generate"}, {"schema", entry.schema_text}, {"variants", false}};
    Json out;
    try {
      out = skillrt::op_test::run_generate(input, nullptr);
    } catch (const skillrt::SkillError& e) {
      // Only ops without a tensor argument are refused, and the message says so.
      INFO(entry.schema_text);
      CHECK(std::string(e.what()).find("takes no Tensor argument") != std::string::npos);
      ++refused;
      continue;
    }
    std::ofstream(dir / ("op_" + std::to_string(written++) + ".py"))
        << out.at("test_file").at("content").get<std::string>();
  }
  CHECK(written > 1400);
  const fs::path log = temp_dir() / "all_ops.log";
  const std::string cmd =
      "/usr/bin/python3 -c \"import glob, py_compile, sys; [py_compile.compile(f, doraise=True) "
      "for f in sorted(glob.glob(sys.argv[1] + '/*.py'))]\" '" +
      dir.string() + "' > '" + log.string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  INFO(read(log));
  CHECK(rc == 0);
  WARN(written << " files compiled, " << refused << " ops without a tensor argument refused");
}

TEST_CASE("the CPU proof covers every negative category and special shape", "[op-test][generate]") {
  std::set<std::string> categories, shapes;
  for (const Json& c : cases()) {
    Json input = c.at("input");
    input["mode"] = "generate";
    input["source"] = kSource;
    const Json out =
        skillrt::op_test::run_generate(input, nullptr);  // kept: the loop reads into it
    for (const auto& k : out.at("cases")) {
      if (k.contains("category")) categories.insert(k.at("category").get<std::string>());
      if (k.contains("shape")) shapes.insert(k.at("shape").get<std::string>());
    }
  }
  for (const char* c :
       {"wrong type", "wrong dtype", "wrong rank", "mismatched shapes", "out-of-range value"})
    CHECK(categories.count(c) == 1);
  for (const char* s : {"empty", "scalar", "noncontiguous", "broadcast"})
    CHECK(shapes.count(s) == 1);
}
