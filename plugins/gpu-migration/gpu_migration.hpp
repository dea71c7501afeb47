// gpu-migration: judging and carrying out the move of a CUDA PyTorch project to Ascend NPU.
// The skills' logic, independent of the host, so tests call it directly.
#ifndef SKILLRT_GPU_MIGRATION_GPU_MIGRATION_HPP_
#define SKILLRT_GPU_MIGRATION_GPU_MIGRATION_HPP_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace skillrt::gpu_migration {

struct Hooks {
  std::function<bool()> cancelled;
  std::function<void(double done, double total, const std::string& message)> progress;
};

// gpu-migration-analyze: findings by domain, verdicts, effort, report files.
nlohmann::json analyze(const nlohmann::json& input, const Hooks& hooks = {});
// The same result as JSON text, byte for byte analyze()'s dump() as the SDK writes it, without
// building the findings as Json: what the skill returns.
std::string analyze_text(const nlohmann::json& input, const Hooks& hooks = {});

// gpu-migration-apply: the rewrite as a patch (dry run) or written atomically (apply: true).
nlohmann::json apply(const nlohmann::json& input, const Hooks& hooks = {});

// gpu-migration-verify: comparison scripts and the post-migration checklist. The numeric
// comparison of user dumps is a skill-to-skill call made by the plugin, not here.
nlohmann::json verify_kit(const nlohmann::json& input, const Hooks& hooks = {});

}  // namespace skillrt::gpu_migration

#endif  // SKILLRT_GPU_MIGRATION_GPU_MIGRATION_HPP_
