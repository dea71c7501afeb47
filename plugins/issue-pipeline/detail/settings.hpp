// What one call of the skill shares between its cases: the settings read from the input, the step
// and repository names, and the error every layer throws.
#ifndef SKILLRT_ISSUE_PIPELINE_DETAIL_SETTINGS_HPP_
#define SKILLRT_ISSUE_PIPELINE_DETAIL_SETTINGS_HPP_

#include <skillrt/sdk.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace skillrt::issue_pipeline::detail {

inline const std::vector<std::string> kSteps = {"env", "reproduce", "diagnose",
                                                "fix", "verify",    "deliver"};
inline const std::vector<std::string> kRepos = {"pytorch", "torch_npu", "op_plugin"};

inline SkillError fail(int32_t code, const std::string& message) {
  return SkillError(code, message);
}

struct Settings {
  std::filesystem::path workspace;
  std::map<std::string, std::string> repos;
  std::string python = "python3";
  double test_timeout_s = 900;
  std::string branch_prefix = "issue-pipeline/";
  std::map<std::string, std::string> env;
  Json test_command;  // null or array of strings with {python} {file} {test} {id}
  Json pr = Json::object();
  std::string disabled_repo = "torch_npu";
  std::string disabled_path = "test/npu_disabled_upstream_tests.yaml";
  std::string step = "next";
  std::string reset_step;
};

// Throws SkillError (invalid argument) for a disabled-list path outside the repository and for a
// reset without the step to reset.
Settings read_settings(const Json& in);

}  // namespace skillrt::issue_pipeline::detail

#endif  // SKILLRT_ISSUE_PIPELINE_DETAIL_SETTINGS_HPP_
