// The npu-remote-test plugin: runs an inference or training test on a remote Ascend server, in
// a vllm-ascend container or directly on the host, over the system OpenSSH client.
#include <skillrt/sdk.hpp>

#include "remote_test.hpp"
#include "skillrt_embedded_schemas.h"

namespace {

void register_skills(skillrt::Registrar& r) {
  r.skill("npu-remote-test")
      .title("Run a test on a remote Ascend NPU server over SSH")
      .description(
          "Runs a test, script or vLLM benchmark on a remote Ascend NPU server over SSH, in a "
          "container, and brings back results, logs and artifacts. "
          "Runs one job on a remote Ascend server over SSH (key auth only, known_hosts checked, "
          "no agent forwarding): a vLLM serve + `vllm bench serve` throughput/latency run, a "
          "Python script, a pytest selection or a command, in a vllm-ascend container (docker "
          "or podman, pinned image, only the chosen /dev/davinci devices and the Ascend driver "
          "mounts) or directly on the host (runtime none). Checks the host first (npu-smi "
          "devices, health, HBM and processes; driver and CANN versions; disk; runtime) and "
          "refuses with reasons. Streams output as progress, enforces the deadline on the host "
          "(own process group under timeout) and here, removes the container, copies back "
          "artifacts, parses vLLM benchmark metrics (TTFT, TPOT, ITL, E2EL, throughput) and "
          "pytest cases, and writes a run record (JSON + Markdown). dry_run shows the checks "
          "and exact commands without connecting. Named servers come from the config file "
          "(plugins.npu-remote-test.settings.servers).")
      .input_schema(skillrt_embedded::schema("npu-remote-test.input"))
      .output_schema(skillrt_embedded::schema("npu-remote-test.output"))
      .open_world()
      .destructive()
      .timeout_ms(7200000)
      .handler([](const skillrt::Json& input, skillrt::Context& context) {
        skillrt::npu_remote::RemoteTestHooks hooks;
        hooks.progress = [&context](double done, double total, const std::string& message) {
          context.progress(done, total, message);
        };
        hooks.cancelled = [&context] { return context.cancelled(); };
        try {
          return skillrt::npu_remote::run_remote_test(input, context.config(), hooks);
        } catch (const skillrt::npu_remote::InputError& e) {
          throw skillrt::invalid_argument(e.what());
        } catch (const skillrt::npu_remote::ConnectError& e) {
          throw skillrt::SkillError(SKILLRT_FAILED_PRECONDITION, e.what());
        } catch (const skillrt::npu_remote::Cancelled& e) {
          throw skillrt::SkillError(SKILLRT_CANCELLED, e.what());
        }
      });
}

}  // namespace

SKILLRT_PLUGIN("npu-remote-test", "1.0.0", register_skills)
