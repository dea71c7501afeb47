// The daily-trackers plugin: vllm-tracker and inferencex-report over one engine (history
// store, sources, rules, reports, delivery).
#include <skillrt/sdk.hpp>

#include "errors.hpp"  // pr-analysis: SourceFailure
#include "inferencex_report.hpp"
#include "skillrt_embedded_schemas.h"
#include "vllm_tracker.hpp"

namespace {

using skillrt::Json;
namespace dt = skillrt::daily_trackers;

template <typename Run>
Json guarded(const Json& in, skillrt::Context& ctx, Run run) {
  dt::Hooks hooks;
  hooks.progress = [&ctx](double done, double total, const std::string& what) {
    ctx.progress(done, total, what);
  };
  hooks.cancelled = [&ctx] { return ctx.cancelled(); };
  try {
    return run(in, hooks);
  } catch (const dt::InputError& e) {
    throw skillrt::invalid_argument(e.what());
  } catch (const skillrt::pr_analysis::InputError& e) {
    throw skillrt::invalid_argument(e.what());
  } catch (const skillrt::pr_analysis::SourceFailure& e) {
    throw skillrt::SkillError(ctx.cancelled() ? SKILLRT_CANCELLED : SKILLRT_UNAVAILABLE, e.what());
  }
}

void register_skills(skillrt::Registrar& r) {
  r.skill("vllm-tracker")
      .title("Daily vLLM / vllm-ascend PR and issue digest")
      .description(
          "Daily digest of vllm and vllm-ascend PRs and issues (new, merged, closed), filtered by "
          "your models and topics, as Markdown, HTML, Excel or email. "
          "Tracks the PRs and issues of vllm-project/vllm and vllm-project/vllm-ascend in a day "
          "or window (GitHub REST, or local clones with commits mapped to PRs), keeps them in a "
          "SQLite history (new, updated, closed, merged since the last run; an interrupted run "
          "resumes), filters them by model (DeepSeek, Qwen, GLM, MiniMax, Kimi) and topic (PD "
          "disaggregation, MTP, quantization, graph mode, performance) from a YAML rule file, "
          "rates what each means for Ascend citing the rule and matched text, and writes a "
          "Markdown, HTML and JSON digest, optionally by e-mail.")
      .input_schema(skillrt_embedded::schema("vllm-tracker.input"))
      .output_schema(skillrt_embedded::schema("vllm-tracker.output"))
      .open_world()
      .timeout_ms(1800000)
      .handler([](const Json& in, skillrt::Context& ctx) {
        return guarded(in, ctx, dt::run_vllm_tracker);
      });
  r.skill("inferencex-report")
      .title("Daily InferenceX benchmark report")
      .description(
          "Reports InferenceX LLM inference benchmarks (throughput, TTFT, TPOT, latency per model "
          "and hardware) with a history and what changed since the last run. "
          "Fetches InferenceX LLM inference benchmark results (throughput per GPU, TTFT, TPOT, "
          "E2E latency per model, hardware and configuration) over HTTP(S) or from files, keeps "
          "them in a SQLite history, detects what changed since the last run (points moved "
          "beyond a threshold, new hardware or models), compares the 8k-input/1k-output setting "
          "across hardware, and writes Markdown, HTML (SVG trend charts), JSON and Excel "
          "reports, optionally mailed over SMTP.")
      .input_schema(skillrt_embedded::schema("inferencex-report.input"))
      .output_schema(skillrt_embedded::schema("inferencex-report.output"))
      .open_world()
      .timeout_ms(900000)
      .handler([](const Json& in, skillrt::Context& ctx) {
        return guarded(in, ctx, dt::run_inferencex_report);
      });
}

}  // namespace

SKILLRT_PLUGIN("daily-trackers", "1.0.0", register_skills)
