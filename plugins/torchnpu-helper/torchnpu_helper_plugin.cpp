// The torchnpu-helper plugin: cited answers about torch_npu and op-plugin.
#include <skillrt/sdk.hpp>

#include "bundle.hpp"
#include "helper.hpp"
#include "plugin_io/sqlite.hpp"
#include "skillrt_embedded_schemas.h"

namespace {

void register_skills(skillrt::Registrar& r) {
  r.skill("torchnpu-helper")
      .title("Answer torch_npu and op-plugin questions with cited passages")
      .description(
          "Answers developers' questions about torch_npu and op-plugin with quoted, cited "
          "sources, in Chinese or English, and says when the sources do not know. "
          "Answers a developer's question about torch_npu (Ascend/pytorch) and op-plugin in "
          "Chinese, English or both: an op's parameters and dtypes, an environment variable "
          "(TASK_QUEUE_ENABLE, PYTORCH_NPU_ALLOC_CONF, HCCL_*), which torch_npu and CANN go with "
          "which PyTorch, building and testing a contribution, transfer_to_npu, the profiler, "
          "op-plugin yaml fields. Returns the passages that answer it, ranked and trimmed, each "
          "quoted with repository, path, lines and commit, plus a one-line answer where a "
          "passage states it. Searches documentation bundled at a pinned commit, and local "
          "checkouts when given (docs, env vars read in source, TORCH_CHECK messages, yaml op "
          "entries; indexed once, then updated by mtime and hash). Says what it does not know "
          "and what would find out; names the skill for a task (traceback -> "
          "npu-graph-diagnose, adapting an op -> op-adaptation).")
      .input_schema(skillrt_embedded::schema("torchnpu-helper.input"))
      .output_schema(skillrt_embedded::schema("torchnpu-helper.output"))
      .read_only()
      .handler([](const skillrt::Json& input, skillrt::Context& context) {
        try {
          return skillrt::torchnpu_helper::run_helper(input, context.config());
        } catch (const skillrt::torchnpu_helper::InputError& e) {
          throw skillrt::invalid_argument(e.what());
        } catch (const skillrt::plugin_io::SqliteError& e) {
          throw skillrt::SkillError(SKILLRT_FAILED_PRECONDITION, e.what());
        }
      });
}

}  // namespace

SKILLRT_PLUGIN("torchnpu-helper", "0.1.0", register_skills)
