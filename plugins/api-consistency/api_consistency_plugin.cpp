// api-consistency: compares CPU and device outputs of an API, triages the difference to operator,
// framework or not-a-defect, generates reproductions and writes the reports.
#include <skillrt/sdk.hpp>

#include <stdexcept>

#include "analysis.hpp"
#include "skillrt_embedded_schemas.h"

namespace {

void register_skills(skillrt::Registrar& r) {
  r.skill("api-consistency")
      .title("API consistency (NPU vs CPU)")
      .description(
          "Finds out why a PyTorch API gives different results on NPU than on CPU (precision, "
          "inf/nan, nondeterminism, shape, dtype, memory) and whether the operator, the framework "
          "or nobody is at fault. "
          "Compares CPU and device outputs of a PyTorch API (.npy, .npz, raw, JSON) under the "
          "torch, torch_npu, msprobe or ops standard, triages the difference to operator level "
          "(names the aclnn kernel when evidence allows), framework level or not a defect, "
          "generates a CPU-vs-device reproduction script, and writes 分析结论.md, 复现记录.md, "
          "JSON, Excel and HTML reports; batches over a manifest.")
      .input_schema(skillrt_embedded::schema("api-consistency.input"))
      .output_schema(skillrt_embedded::schema("api-consistency.output"))
      .idempotent()
      .timeout_ms(600000)
      .handler([](const skillrt::Json& in, skillrt::Context& ctx) {
        skillrt::apic::RunHooks hooks;
        hooks.progress = [&ctx](double done, double total, const std::string& msg) {
          ctx.progress(done, total, msg);
          return !ctx.cancelled();
        };
        try {
          return skillrt::apic::run_request(in, skillrt::apic::embedded_knowledge(), hooks);
        } catch (const std::invalid_argument& e) {
          throw skillrt::invalid_argument(e.what());
        } catch (const skillrt::apic::Cancelled& e) {
          throw skillrt::SkillError(SKILLRT_CANCELLED, e.what());
        }
      });
}

}  // namespace

SKILLRT_PLUGIN("api-consistency", "1.0.0", register_skills)
