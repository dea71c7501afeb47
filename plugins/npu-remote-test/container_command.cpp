#include "container_command.hpp"

#include "detail/shell.hpp"

namespace skillrt::npu_remote {

using detail::shell_quote;

std::string container_name(const std::string& run_id) {
  return std::string(kContainerPrefix) + "-" + run_id;
}

std::string container_run_command(const Request& request, const std::string& run_dir,
                                  const std::string& workdir) {
  const std::string name = container_name(request.run_id);
  std::string cmd = request.runtime + " run --rm --name " + shell_quote(name) + " --label " +
                    shell_quote(std::string(kOwnerLabel) + "=" + request.run_id);
  if (!request.shm_size.empty()) cmd += " --shm-size=" + shell_quote(request.shm_size);
  // Only the chosen devices: another job may own the others.
  for (int d : request.devices) cmd += " --device /dev/davinci" + std::to_string(d);
  for (const std::string& dev : kAscendDevices) cmd += " --device " + dev;
  for (const std::string& m : kAscendMounts) cmd += " -v " + m + ":" + m;
  cmd += " -v " + run_dir + ":" + run_dir;
  if (workdir.rfind(run_dir, 0) != 0) {
    cmd += " -v " + workdir + ":" + workdir;
  }
  for (const std::string& m : request.mounts) cmd += " -v " + shell_quote(m);
  cmd += " -w " + workdir;
  if (!request.env.empty()) cmd += " --env-file " + run_dir + "/env";
  cmd += " " + shell_quote(request.image) + " bash " + run_dir + "/job.sh";
  return cmd;
}

std::string container_remove_command(const std::string& runtime, const std::string& name) {
  return runtime + " rm -f " + shell_quote(name) + " >/dev/null 2>&1 || true";
}

std::string container_list_command(const std::string& runtime) {
  return runtime + " ps -a --filter label=" + std::string(kOwnerLabel) +
         " --format '{{.Names}} {{.Label \"" + kOwnerLabel + "\"}}'";
}

}  // namespace skillrt::npu_remote
