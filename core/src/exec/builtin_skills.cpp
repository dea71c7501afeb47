#include "exec/builtin_skills.hpp"

#include "exec/detail/call.hpp"
#include "find_skill_schemas.h"

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
  call->result = nlohmann::json{{"text", text}, {"none", candidates.empty()},
                                {"candidates", candidates}}
                     .dump();
  call->has_result = true;
  return SKILLRT_OK;
}

Result<std::shared_ptr<const schema::CompiledSchema>> compile_embedded(const char* key) {
  for (size_t i = 0; i < skillrt_embedded_schema_count; ++i) {
    if (std::string_view(skillrt_embedded_schemas[i].key) != key) continue;
    const auto& e = skillrt_embedded_schemas[i];
    return schema::CompiledSchema::compile(nlohmann::json::parse(e.text, e.text + e.len));
  }
  return fail(Code::kInternal, std::string("builtin schema ") + key + " is not embedded");
}

}  // namespace

Result<void> register_builtin_skills(Registry& registry) {
  auto input = compile_embedded("find-skill.input");
  if (!input) return fail(Code::kInternal, "find-skill input schema: " + input.error().message);
  auto output = compile_embedded("find-skill.output");
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
