// The npu-graph plugin: an entry skill that routes to five sub-skills, each also a tool.
#include <skillrt/sdk.hpp>

#include "capture.hpp"
#include "diagnose.hpp"
#include "log_scan.hpp"
#include "profile.hpp"
#include "qa.hpp"
#include "router.hpp"
#include "skillrt_embedded_schemas.h"

namespace {

using skillrt::Json;
namespace ng = skillrt::npu_graph;

Json run_entry(const Json& input, skillrt::Context& ctx) {
  const ng::RouteDecision d = ng::route_request(input, ng::RouteTable::builtin());
  Json scores = Json::object();
  for (const auto& [skill, score] : d.scores) scores[skill] = score;
  Json out{{"sub_skill", d.skill}, {"reason", d.reasons}, {"scores", scores}};
  std::string missing;
  const Json sub_input = ng::sub_skill_input(d.skill, input, &missing);
  if (input.value("route_only", false)) {
    out["result"] = nullptr;
    out["sub_input"] = sub_input;
    return out;
  }
  if (sub_input.is_null()) {
    out["result"] = nullptr;
    out["missing"] = missing;
    return out;
  }
  out["sub_input"] = sub_input;
  // Through the host, so the sub-skill's input and output are validated like any call.
  out["result"] = ctx.call(d.skill, sub_input);
  return out;
}

void register_skills(skillrt::Registrar& r) {
  r.skill("npu-graph")
      .title("NPU graph-mode help (entry)")
      .description(
          "Single entry for graph-mode problems on Ascend NPU: sends the request and its "
          "attachments to the right npu-graph skill and says why. "
          "Single entry for graph-mode problems on Ascend NPU (torch.compile NPU backend, "
          "torchair/GE, NPU graph capture): routes the request text and attachments (log, "
          "traceback, profile_dir, trace, paths) to npu-graph-qa, -diagnose, -profile, -logs or "
          "-capture, says which and why (matched words, attachments, scores), and returns that "
          "sub-skill's result.")
      .input_schema(skillrt_embedded::schema("npu-graph.input"))
      .output_schema(skillrt_embedded::schema("npu-graph.output"))
      .read_only()
      .timeout_ms(120000)
      .handler(run_entry);
  r.skill("npu-graph-qa")
      .title("NPU graph-mode knowledge Q&A")
      .description(
          "Answers questions about NPU graph mode (torch.compile, torchair/GE, graph capture, "
          "config options, error codes) from a built-in knowledge base and your docs. "
          "Answers questions about NPU graph mode (torch.compile, torchair/GE, NPU graph "
          "capture, config options, error-code families, the four layers) from a built-in "
          "Markdown knowledge base plus user docs, by BM25 over headed sections (English words, "
          "Chinese bigrams); cites file and heading, says it does not know below a threshold.")
      .input_schema(skillrt_embedded::schema("npu-graph-qa.input"))
      .output_schema(skillrt_embedded::schema("npu-graph-qa.output"))
      .read_only()
      .idempotent()
      .handler([](const Json& in, skillrt::Context&) { return ng::run_qa(in); });
  r.skill("npu-graph-diagnose")
      .title("NPU error diagnosis by layer")
      .description(
          "Diagnoses an NPU or graph-mode error log or traceback and names the layer to fix (user "
          "code, framework, operator, ACL runtime, environment) with the lines that decided it. "
          "Diagnoses an NPU / graph-mode error log or traceback: descends Python API, C++ core, "
          "OpPlugin operator and ACL runtime layers, decodes torch_npu ERR codes, ACL numbers, "
          "aclnn 161/361/561 codes and CANN E* codes, and concludes user-code, framework-bug, "
          "operator, acl-runtime or env-config with evidence lines, rule id, operator, "
          "confidence, graph breaks/recompilations and next steps.")
      .input_schema(skillrt_embedded::schema("npu-graph-diagnose.input"))
      .output_schema(skillrt_embedded::schema("npu-graph-diagnose.output"))
      .read_only()
      .idempotent()
      .handler([](const Json& in, skillrt::Context&) { return ng::run_diagnose(in); });
  r.skill("npu-graph-profile")
      .title("NPU profile reader")
      .description(
          "Shows where time goes in an NPU profile (Chrome trace or Ascend profiler CSVs): top "
          "operators, idle gaps, launches per step, small-kernel overhead. "
          "Reads Chrome trace JSON (torch.profiler, torch_npu trace_view.json) and Ascend "
          "profiler CSVs (kernel_details, op_statistic, operator_details): top operators by "
          "device time, device idle gaps (host-bound), launches per step, small-kernel "
          "overhead, recompilation and eager fallback, each finding with numbers and a "
          "suggestion.")
      .input_schema(skillrt_embedded::schema("npu-graph-profile.input"))
      .output_schema(skillrt_embedded::schema("npu-graph-profile.output"))
      .read_only()
      .idempotent()
      .timeout_ms(120000)
      .handler([](const Json& in, skillrt::Context&) { return ng::run_profile(in); });
  r.skill("npu-graph-logs")
      .title("NPU log summariser (streaming)")
      .description(
          "Reads plog, torch_npu, dynamo/inductor, torchair and graph-capture logs of any size in "
          "one pass: first error, error-code timeline, graph breaks and recompiles. "
          "Streams plog, TORCH_NPU_LOGS, dynamo/inductor/torchair and graph-capture logs of any "
          "size in one pass with flat memory: first error (earliest timestamp across files), "
          "error-code timeline with decoded meanings, repeated error/warning patterns collapsed "
          "with counts, per-rank differences, and dynamo graph breaks ranked by count (user "
          "file and line, reason, gb id, what to change), recompilations and cache-limit hits "
          "per function with the failing guard, inductor fallbacks and perf hints.")
      .input_schema(skillrt_embedded::schema("npu-graph-logs.input"))
      .output_schema(skillrt_embedded::schema("npu-graph-logs.output"))
      .read_only()
      .idempotent()
      .timeout_ms(600000)
      .handler([](const Json& in, skillrt::Context& ctx) {
        ng::LogScanOptions o;
        o.cancelled = [&ctx] { return ctx.cancelled(); };
        o.progress = [&ctx](double done, double total) { ctx.progress(done, total, "bytes read"); };
        return ng::run_logs(in, o);
      });
  r.skill("npu-graph-capture")
      .title("NPU graph capture/replay diagnosis")
      .description(
          "Diagnoses NPU graph (NPUGraph / aclgraph) capture, replay and update failures from "
          "their logs. "
          "Diagnoses NPU graph (torch.npu.NPUGraph / aclgraph) capture, replay and update "
          "failures from logs: capture-unsafe operations (sync, host copies, aclop), replay "
          "during capture, memory pool misuse, static input updates, capture-end failures; "
          "with the phase, evidence lines, rule ids and fixes.")
      .input_schema(skillrt_embedded::schema("npu-graph-capture.input"))
      .output_schema(skillrt_embedded::schema("npu-graph-capture.output"))
      .read_only()
      .idempotent()
      .handler([](const Json& in, skillrt::Context&) { return ng::run_capture(in); });
}

}  // namespace

SKILLRT_PLUGIN("npu-graph", "1.0.0", register_skills)
