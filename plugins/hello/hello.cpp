// The smallest useful plugin: shows the SDK end to end (schemas, progress, errors).
#include <skillrt/sdk.hpp>

#include "skillrt_embedded_schemas.h"

namespace {

skillrt::Json greet(const skillrt::Json& input, skillrt::Context& context) {
  const std::string name = input.at("name").get<std::string>();
  const std::string language = input.value("language", "en");
  const int times = input.value("times", 1);
  skillrt::Json greetings = skillrt::Json::array();
  for (int i = 0; i < times; ++i) {
    if (context.cancelled()) throw skillrt::SkillError(SKILLRT_CANCELLED, "cancelled by caller");
    greetings.push_back(language == "zh" ? "你好，" + name + "！" : "Hello, " + name + "!");
    context.progress(i + 1, times, "greeting " + std::to_string(i + 1));
  }
  return {{"greeting", greetings.front()}, {"greetings", greetings}, {"language", language}};
}

void register_skills(skillrt::Registrar& r) {
  r.skill("hello")
      .title("Say hello")
      .description(
          "Greets someone by name in English or Chinese. A demonstration skill: use it to check "
          "that skillrt and its plugins work.")
      .input_schema(skillrt_embedded::schema("hello.input"))
      .output_schema(skillrt_embedded::schema("hello.output"))
      .read_only()
      .idempotent()
      .timeout_ms(5000)
      .handler(&greet);
}

}  // namespace

SKILLRT_PLUGIN("hello", "1.0.0", register_skills)
