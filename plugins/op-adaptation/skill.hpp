// The op-adaptation skill: input validation beyond the JSON Schema, and the three modes.
#ifndef SKILLRT_OP_ADAPTATION_SKILL_HPP_
#define SKILLRT_OP_ADAPTATION_SKILL_HPP_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace skillrt::opa {

using Json = nlohmann::json;

// What the skill needs from the host; the plugin binds it to skillrt::Context, tests to fakes.
struct Services {
  std::function<void(double, double, const std::string&)> progress;
  std::function<bool()> cancelled;
  // Calls another skill; throws std::runtime_error (or SkillError) when the call fails.
  std::function<Json(const std::string&, const Json&)> call_skill;
};

Json run_op_adaptation(const Json& input, const Services& services);

}  // namespace skillrt::opa

#endif  // SKILLRT_OP_ADAPTATION_SKILL_HPP_
