// End to end through the built skillrt binary: the schema's example passes --check-only, a run
// over the planted repository writes the reports, a bad path is an INVALID_ARGUMENT error.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include "test_support.hpp"

using pra_test::json;

namespace {

struct Run {
  int exit_code;
  json output;
  std::string log;
};

Run run_cli(const pra_test::TempDir& dir, const std::string& args) {
  const std::string cmd = std::string(SKILLRT_BINARY_DIR) + "/bin/skillrt run pr-analysis " + args +
                          " --output '" + dir.str("result.json") + "' -q > '" + dir.str("cli.log") +
                          "' 2>&1";
  pra_test::fs::remove(dir.path() / "result.json");
  const int status = std::system(cmd.c_str());
  Run r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, nullptr,
        pra_test::read_file(dir.path() / "cli.log")};
  const std::string text = pra_test::read_file(dir.path() / "result.json");
  if (!text.empty()) r.output = json::parse(text);
  return r;
}

}  // namespace

TEST_CASE("e2e: the SKILL.md input_example passes --check-only") {
  pra_test::TempDir dir("check");
  const std::string skill =
      pra_test::read_file(std::string(SKILLRT_SOURCE_DIR) + "/skills/pr-analysis/SKILL.md");
  const size_t k = skill.find("input_example: '");
  REQUIRE(k != std::string::npos);
  const size_t b = k + 16;
  const std::string example = skill.substr(b, skill.find('\'', b) - b);
  const std::string cmd = std::string(SKILLRT_BINARY_DIR) +
                          "/bin/skillrt run pr-analysis --check-only --input '" + example +
                          "' > /dev/null 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("e2e: a run over the planted repository writes four reports") {
  pra_test::TempDir dir("e2e");
  pra_test::make_planted(dir);
  std::ofstream(dir.str("in.json")) << json{
      {"repo", dir.str("pytorch")},
      {"since", "2026-11-01"},
      {"output_dir", dir.str("out")}}.dump();
  const Run r = run_cli(dir, "--input '" + dir.str("in.json") + "'");
  INFO(r.log);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output["summary"]["prs"] == 44);
  CHECK(r.output["reports"].size() == 4);
  for (const auto& [fmt, path] : r.output["reports"].items()) {
    CHECK(pra_test::fs::file_size(path.get<std::string>()) > 0);
  }
}

TEST_CASE("e2e: a bad repository path is one clear error") {
  pra_test::TempDir dir("e2ebad");
  const Run r =
      run_cli(dir, "--input '{\"repo\":\"/nonexistent/pytorch\",\"since\":\"2026-11-01\"}'");
  CHECK(r.exit_code != 0);
  CHECK(r.log.find("/nonexistent/pytorch") != std::string::npos);
  CHECK(r.log.find("not a git repository") != std::string::npos);
}
