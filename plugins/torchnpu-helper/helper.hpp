// torchnpu-helper: answers a developer's question about torch_npu or op-plugin with quoted,
// cited passages from the bundled docs and any given checkouts; declines, naming what would
// find out, when the sources do not hold the answer; names the skill for a request that is a task.
#ifndef SKILLRT_TORCHNPU_HELPER_HELPER_HPP_
#define SKILLRT_TORCHNPU_HELPER_HELPER_HPP_

#include <nlohmann/json.hpp>
#include <string>

namespace skillrt::torchnpu_helper {

// `input` follows schemas/skills/torchnpu-helper.input.json; `settings` is the plugin's config
// section (optional "checkouts" and "cache_dir"). Throws InputError on unusable input.
nlohmann::json run_helper(const nlohmann::json& input, const nlohmann::json& settings);

// The cache directory used when neither input nor settings name one.
std::string default_cache_dir();

}  // namespace skillrt::torchnpu_helper

#endif  // SKILLRT_TORCHNPU_HELPER_HELPER_HPP_
