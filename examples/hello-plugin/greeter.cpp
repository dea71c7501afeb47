// An out-of-tree plugin: everything it needs comes from find_package(skillrt).
#include <skillrt/sdk.hpp>

#include "skillrt_embedded_schemas.h"

namespace {

skillrt::Json greet_team(const skillrt::Json& input, skillrt::Context& context) {
  skillrt::Json lines = skillrt::Json::array();
  const auto& members = input.at("members");
  for (size_t i = 0; i < members.size(); ++i) {
    lines.push_back("Welcome aboard, " + members[i].get<std::string>() + ".");
    context.progress(static_cast<double>(i + 1), static_cast<double>(members.size()));
  }
  return {{"lines", lines}, {"count", members.size()}};
}

void register_skills(skillrt::Registrar& r) {
  r.skill("greet-team")
      .title("Greet a team")
      .description("Writes one welcome line per team member (out-of-tree SDK example).")
      .input_schema(skillrt_embedded::schema("greet-team.input"))
      .output_schema(skillrt_embedded::schema("greet-team.output"))
      .read_only()
      .handler(&greet_team);
}

}  // namespace

SKILLRT_PLUGIN("greeter", "0.1.0", register_skills)
