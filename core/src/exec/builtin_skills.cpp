#include "exec/builtin_skills.hpp"

#include <skillrt_embedded_schemas.h>
#include "exec/detail/call.hpp"

namespace skillrt::exec {

namespace {

int32_t find_skill(void*, skillrt_call* call, skillrt_str input) {
  const auto in = nlohmann::json::parse(input.ptr, input.ptr + input.len);
  const std::string text = in.at("text").get<std::string>();
  const size_t top_k = in.value("top_k", 5);
  auto ranked = call->executor->route_text(text);
  std::lock_guard lock(call->mutex);
  if (!ranked) {
    call->error_code = static_cast<int32_t>(ranked.error().code);
    call->error_message = ranked.error().message;
    return call->error_code;
  }
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& c : *ranked) {
    if (candidates.size() >= top_k) break;
    candidates.push_back(c);
  }
  call->result =
      nlohmann::json{{"text", text}, {"none", candidates.empty()}, {"candidates", candidates}}
          .dump();
  call->has_result = true;
  return SKILLRT_OK;
}

// Like a builtin plugin's, these are files under schemas/ that the test suite compiles at build
// time, so the compile waits for the first call.
Result<std::shared_ptr<const schema::CompiledSchema>> embedded_schema(const char* key) {
  const std::string_view text = skillrt_embedded::schema(key);
  if (text.empty())
    return fail(Code::kInternal, std::string("builtin schema ") + key + " is not embedded");
  return schema::CompiledSchema::defer(nlohmann::json::parse(text));
}

}  // namespace

Result<void> register_builtin_skills(Registry& registry) {
  auto input = embedded_schema("find-skill.input");
  if (!input) return fail(Code::kInternal, "find-skill input schema: " + input.error().message);
  auto output = embedded_schema("find-skill.output");
  if (!output) return fail(Code::kInternal, "find-skill output schema: " + output.error().message);
  auto skill = std::make_shared<Skill>();
  skill->name = "find-skill";
  skill->title = "Find the skill for a request";
  skill->description =
      "Ranks the installed skills for a free-text request (Chinese, English or both), each with "
      "a calibrated score and the matched words that explain it; an empty list means no skill "
      "fits. Use it when unsure which skill to call.";
  skill->plugin = "skillrt";
  skill->plugin_file = "<builtin>";
  skill->flags = SKILLRT_SKILL_READ_ONLY | SKILLRT_SKILL_IDEMPOTENT;
  skill->invoke = &find_skill;
  skill->input_schema = *input;
  skill->output_schema = *output;
  return registry.add(std::move(skill));
}

}  // namespace skillrt::exec
