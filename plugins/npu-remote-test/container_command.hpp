// The docker/podman command lines for one run: start with the Ascend devices and driver files
// mounted, remove, and list what this skill owns.
#ifndef SKILLRT_NPU_REMOTE_TEST_CONTAINER_COMMAND_HPP_
#define SKILLRT_NPU_REMOTE_TEST_CONTAINER_COMMAND_HPP_

#include <string>
#include <vector>

#include "request.hpp"

namespace skillrt::npu_remote {

// What vLLM Ascend's quick start mounts into its container besides /dev/davinci<N>
// (https://docs.vllm.ai/projects/ascend/en/v0.13.0/quick_start.html, "Setup environment using
// container"): the device manager, memory and HDC devices, DCMI, npu-smi, the driver's
// libraries and version file, and the install record. The paths are the same inside.
inline const std::vector<std::string> kAscendDevices = {"/dev/davinci_manager", "/dev/devmm_svm",
                                                        "/dev/hisi_hdc"};
inline const std::vector<std::string> kAscendMounts = {
    "/usr/local/dcmi", "/usr/local/bin/npu-smi", "/usr/local/Ascend/driver/lib64/",
    "/usr/local/Ascend/driver/version.info", "/etc/ascend_install.info"};

// "skillrt-nrt-<run id>": the name tells people whose container it is; the label
// skillrt.npu-remote-test.run=<run id> lets a later run find it.
std::string container_name(const std::string& run_id);

// `<runtime> run ...` as shell text. `run_dir` and `workdir` are shell words already (quoted,
// or "$HOME/..." to expand on the host); both are mounted at the same path inside. The job is
// `bash <run_dir>/job.sh`.
std::string container_run_command(const Request& request, const std::string& run_dir,
                                  const std::string& workdir);

// Removes the run's container whether it runs or not; silent when it is already gone.
std::string container_remove_command(const std::string& runtime, const std::string& name);

// Lists "<name> <run id>" for every container, running or not, that carries the owner label.
std::string container_list_command(const std::string& runtime);

}  // namespace skillrt::npu_remote

#endif  // SKILLRT_NPU_REMOTE_TEST_CONTAINER_COMMAND_HPP_
