// End to end through the built skillrt binary: schemas are enforced by the host, and the entry
// reaches its sub-skill through Context::call (skill-to-skill).
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kData = SKILLRT_NPU_GRAPH_TEST_DATA;

struct RunResult {
  int exit_code;
  json output;
};

RunResult run_skill(const std::string& skill, const json& input) {
  // ctest runs cases in parallel processes: the directory must be unique to this call.
  static int calls = 0;
  const fs::path dir =
      fs::temp_directory_path() /
      ("npu_graph_e2e_" + skill + "_" + std::to_string(::getpid()) + "_" + std::to_string(++calls));
  fs::create_directories(dir);
  const fs::path in = dir / "in.json";
  const fs::path out = dir / "out.json";
  fs::remove(out);
  std::ofstream(in) << input.dump();
  const std::string cmd = std::string(SKILLRT_BINARY_DIR) + "/bin/skillrt run " + skill +
                          " --input '" + in.string() + "' --output '" + out.string() + "' -q > '" +
                          (dir / "stdout").string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  RunResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, nullptr};
  std::ifstream o(out);
  if (o) {
    std::stringstream ss;
    ss << o.rdbuf();
    if (!ss.str().empty()) r.output = json::parse(ss.str());
  }
  fs::remove_all(dir);
  return r;
}

}  // namespace

TEST_CASE("e2e: the entry routes a log to diagnose and returns its result") {
  const RunResult r =
      run_skill("npu-graph", {{"text", "torch.compile 后模型报错，帮我定位"},
                              {"log", kData + "/diagnose/operator/ez9999_matmul.log"}});
  REQUIRE(r.exit_code == 0);
  CHECK(r.output["sub_skill"] == "npu-graph-diagnose");
  CHECK(r.output["result"]["conclusion"] == "operator");
  CHECK(r.output["result"]["source"] == kData + "/diagnose/operator/ez9999_matmul.log");
  CHECK_FALSE(r.output["reason"].empty());
}

TEST_CASE("e2e: the entry answers a question through npu-graph-qa") {
  const RunResult r = run_skill("npu-graph", {{"text", "what is a graph break?"}});
  REQUIRE(r.exit_code == 0);
  CHECK(r.output["sub_skill"] == "npu-graph-qa");
  CHECK(r.output["result"]["known"] == true);
}

TEST_CASE("e2e: each sub-skill runs on bundled data and its output passes its schema") {
  CHECK(
      run_skill("npu-graph-diagnose", {{"log", kData + "/diagnose/env-config/cannot_find_bin.log"}})
          .output["conclusion"] == "env-config");
  const RunResult logs = run_skill("npu-graph-logs", {{"paths", json::array({kData + "/logs"})}});
  REQUIRE(logs.exit_code == 0);
  CHECK(logs.output["per_rank"]["earliest_failing_rank"] == 1);
  const RunResult prof = run_skill("npu-graph-profile", {{"profile_dir", kData + "/profile"}});
  REQUIRE(prof.exit_code == 0);
  CHECK_FALSE(prof.output["top_ops"].empty());
  const RunResult cap =
      run_skill("npu-graph-capture", {{"log", kData + "/capture/sync_in_capture.log"}});
  REQUIRE(cap.exit_code == 0);
  CHECK(cap.output["kind"] == "capture-unsafe-op");
}

TEST_CASE("e2e: input that breaks the schema is refused before the skill runs") {
  const RunResult r = run_skill("npu-graph-qa", {{"question", ""}});
  CHECK(r.exit_code != 0);
  CHECK(r.output.is_null());
}

TEST_CASE("e2e: a pasted dynamo log goes through the entry to npu-graph-logs") {
  std::ifstream in(kData + "/real_logs/dynamo/pytorch-scatter-457-graph-break-tensor-item.log");
  std::stringstream log;
  log << in.rdbuf();
  const RunResult r =
      run_skill("npu-graph", {{"text", "why is my compiled model slow? log:"}, {"log", log.str()}});
  REQUIRE(r.exit_code == 0);
  CHECK(r.output["sub_skill"] == "npu-graph-logs");
  const json& gb = r.output["result"]["dynamo"]["graph_breaks"];
  REQUIRE(gb.size() == 1);
  CHECK(gb[0]["line"] == 343);
  CHECK(gb[0]["category"] == "tensor-item");
  const RunResult logs = run_skill(
      "npu-graph-logs", {{"paths", json::array({kData + "/dynamo/torch211_graph_breaks.log"})}});
  REQUIRE(logs.exit_code == 0);
  CHECK(logs.output["dynamo"]["graph_breaks"][0]["gb_id"] == "gb0124");
}
