#include "detail/settings.hpp"

#include "detail/text.hpp"

namespace skillrt::issue_pipeline::detail {

namespace fs = std::filesystem;

namespace {

void read_disabled_list(const Json& in, Settings& s) {
  if (!in.contains("disabled_list")) return;
  s.disabled_repo = in["disabled_list"].value("repo", s.disabled_repo);
  s.disabled_path = in["disabled_list"].value("path", s.disabled_path);
  if (s.disabled_path.empty() || s.disabled_path[0] == '/' ||
      s.disabled_path.find("..") != std::string::npos) {
    throw fail(SKILLRT_INVALID_ARGUMENT,
               "disabled_list.path must be relative inside the repository, without '..'");
  }
}

}  // namespace

Settings read_settings(const Json& in) {
  Settings s;
  s.workspace = fs::absolute(in.at("workspace").get<std::string>()).lexically_normal();
  if (in.contains("repos")) {
    for (const auto& [k, v] : in["repos"].items()) {
      s.repos[k] = fs::absolute(v.get<std::string>()).lexically_normal().string();
    }
  }
  s.python = in.value("python", s.python);
  s.test_timeout_s = in.value("test_timeout_s", s.test_timeout_s);
  s.branch_prefix = in.value("branch_prefix", s.branch_prefix);
  if (in.contains("env")) s.env = in["env"].get<std::map<std::string, std::string>>();
  s.test_command = in.value("test_command", Json(nullptr));
  s.pr = in.value("pr", Json::object());
  read_disabled_list(in, s);
  s.step = in.value("step", s.step);
  s.reset_step = in.value("reset_step", "");
  if (s.step == "reset" && s.reset_step.empty()) {
    throw fail(SKILLRT_INVALID_ARGUMENT, "step reset needs reset_step: the step to reset (" +
                                             join(kSteps, ", ") + "); later steps reset with it");
  }
  return s;
}

}  // namespace skillrt::issue_pipeline::detail
