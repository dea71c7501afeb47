// The gpu-migration plugin: analyse a CUDA PyTorch project for Ascend NPU, rewrite it module by
// module, and hand over the verification kit.
#include <skillrt/sdk.hpp>

#include "gpu_migration.hpp"
#include "skillrt_embedded_schemas.h"

namespace {

using skillrt::Json;

skillrt::gpu_migration::Hooks hooks_for(skillrt::Context& context) {
  skillrt::gpu_migration::Hooks h;
  h.cancelled = [&context] { return context.cancelled(); };
  h.progress = [&context](double done, double total, const std::string& message) {
    context.progress(done, total, message);
  };
  return h;
}

// The output comparison is api-consistency's job; this skill only hands the dumps over and says
// plainly when that skill is not there.
Json compare_dumps(const Json& input, skillrt::Context& context) {
  if (!input.contains("expected_dump") || !input.contains("actual_dump")) {
    return {{"status", "not_requested"},
            {"detail",
             "pass expected_dump (CPU) and actual_dump (NPU), for example the .npy files "
             "layer_compare.py --dump-dir writes, to compare them with api-consistency"}};
  }
  const Json request = {{"api", input.value("api", std::string("model output"))},
                        {"expected", input.at("expected_dump")},
                        {"actual", input.at("actual_dump")},
                        {"standard", input.value("standard", std::string("torch"))}};
  try {
    Json result = context.call("api-consistency", request);
    return {
        {"status", "done"}, {"skill", "api-consistency"}, {"request", request}, {"result", result}};
  } catch (const skillrt::SkillError& e) {
    return {{"status", "not_run"},
            {"skill", "api-consistency"},
            {"request", request},
            {"detail", std::string("api-consistency could not compare the dumps: ") + e.what()}};
  }
}

void register_skills(skillrt::Registrar& r) {
  r.skill("gpu-migration-analyze")
      .title("Judge a CUDA to Ascend NPU migration")
      .description(
          "Scans a PyTorch repository for the CUDA-specific usage that keeps it from running on "
          "Ascend NPU, each finding with file, line and its NPU replacement. "
          "Scans a PyTorch repository (Python with its own tokenizer, notebooks' code cells, "
          "C++/CUDA sources, CMake, requirements and shell files) for CUDA-specific usage and "
          "reports findings in seven domains: device layer, attention (flash-attn, xformers, "
          "SDPA backends), custom operators (.cu, cpp_extension, Triton), distributed (nccl, "
          "DataParallel, NCCL_* variables), precision (torch.cuda.amp, apex, TF32, bf16 checks), "
          "third-party dependencies and compile acceleration (torch.compile, CUDA graphs). Each "
          "finding has file, line, code, domain, rule and effort class (automatic, small_manual, "
          "large_manual, blocker); each rule that fired has its NPU alternative and source in "
          "'rules'; per-domain and overall verdict and effort; "
          "optional Markdown, JSON and Excel reports. Read-only.")
      .input_schema(skillrt_embedded::schema("gpu-migration-analyze.input"))
      .output_schema(skillrt_embedded::schema("gpu-migration-analyze.output"))
      .read_only()
      .idempotent()
      .timeout_ms(300000)
      // Written as text: a large repository's tens of thousands of findings would otherwise be
      // built as Json objects only to be serialized and freed.
      .text_handler([](const Json& input, skillrt::Context& context) {
        return skillrt::gpu_migration::analyze_text(input, hooks_for(context));
      });
  r.skill("gpu-migration-apply")
      .title("Rewrite CUDA PyTorch code for Ascend NPU")
      .description(
          "Rewrites one scope (module, folder or file) of a CUDA PyTorch project for Ascend NPU "
          "with the replacement table, as a patch or in place. "
          "Rewrites the Python files and notebook code cells of one scope (module, folder or "
          "file) with the replacement "
          "table: cuda device strings and .cuda() to npu, torch.cuda.* to torch.npu.*, "
          "torch.cuda.amp to torch.npu.amp, nccl to hccl, nn.DataParallel to "
          "DistributedDataParallel, capability queries, import torch_npu; or mode "
          "transfer_to_npu adds the one-line automatic mapping instead. Each change gets a "
          "comment with the original and the reason, and an equivalence note (definitions, "
          "when they agree, numeric check). Vendored and site-packages folders are left alone. "
          "Dry run by default, returning a unified diff; apply: true writes atomically inside "
          "the repository. A second run changes nothing.")
      .input_schema(skillrt_embedded::schema("gpu-migration-apply.input"))
      .output_schema(skillrt_embedded::schema("gpu-migration-apply.output"))
      .destructive()
      .idempotent()
      .serial()
      .timeout_ms(300000)
      .handler([](const Json& input, skillrt::Context& context) {
        return skillrt::gpu_migration::apply(input, hooks_for(context));
      });
  r.skill("gpu-migration-verify")
      .title("Verification kit after a CUDA to NPU migration")
      .description(
          "After gpu-migration-apply: lists what is still to migrate, writes a CPU-vs-NPU "
          "comparison script, and compares two dumps when given. "
          "After gpu-migration-apply: the post-migration checklist with each item's status as "
          "far as static analysis can tell (done, open with file:line evidence, cannot_tell), a "
          "generated layer-by-layer CPU vs NPU comparison script, and, when expected and actual "
          "output dumps are given, their comparison through the api-consistency skill. Writes "
          "the script into the repository only with apply: true.")
      .input_schema(skillrt_embedded::schema("gpu-migration-verify.input"))
      .output_schema(skillrt_embedded::schema("gpu-migration-verify.output"))
      .idempotent()
      .timeout_ms(300000)
      .handler([](const Json& input, skillrt::Context& context) {
        Json out = skillrt::gpu_migration::verify_kit(input, hooks_for(context));
        out["comparison"] = compare_dumps(input, context);
        return out;
      });
}

}  // namespace

SKILLRT_PLUGIN("gpu-migration", "1.0.0", register_skills)
