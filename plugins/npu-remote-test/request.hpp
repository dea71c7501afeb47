// What one call asks for, checked and completed with defaults and the named server's settings.
#ifndef SKILLRT_NPU_REMOTE_TEST_REQUEST_HPP_
#define SKILLRT_NPU_REMOTE_TEST_REQUEST_HPP_

#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace skillrt::npu_remote {

// The input makes sense to the schema but not to the skill; the message names the field and
// says what to change.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// vLLM Ascend's own image, pinned: the tag its v0.13.0 quick start uses
// (https://docs.vllm.ai/projects/ascend/en/v0.13.0/quick_start.html).
inline constexpr const char* kDefaultImage = "quay.io/ascend/vllm-ascend:v0.13.0";
inline constexpr const char* kContainerPrefix = "skillrt-nrt";
inline constexpr const char* kOwnerLabel = "skillrt.npu-remote-test.run";

struct SshTarget {
  std::string server;  // the settings entry it came from, empty when given directly
  std::string host;
  std::string user;  // empty: ssh's default (the local user or the ssh config's)
  int port = 22;
  std::string identity_file;  // empty: ssh's default keys and agent
  std::string known_hosts;
  bool accept_new_host_key = false;
  int connect_timeout_s = 10;
  std::string ssh_config = "none";  // "none" ignores ~/.ssh/config so runs are reproducible
};

enum class JobKind { kVllmBench, kPython, kPytest, kCommand };

struct Job {
  JobKind kind = JobKind::kCommand;
  std::string command;                 // kCommand
  std::string script;                  // kPython, relative to the work dir or absolute on the host
  std::vector<std::string> args;       // kPython script arguments, kPytest extra options
  std::vector<std::string> selection;  // kPytest node ids or paths
  std::string model;                   // kVllmBench
  std::string served_model_name;
  int port = 8000;
  std::vector<std::string> serve_args;
  std::vector<std::string> bench_args;
  int ready_timeout_s = 900;
  std::vector<std::string> setup;  // shell lines run before the job, in the same shell
};

struct Request {
  SshTarget target;
  std::string runtime = "docker";  // docker | podman | none
  std::string image = kDefaultImage;
  std::vector<int> devices = {0};
  bool require_npu = true;
  bool allow_busy_devices = false;
  Job job;
  int deadline_s = 1800;
  std::vector<std::string> artifacts;
  std::vector<std::string> upload;  // local files copied into the work dir before the job
  std::string output_dir;           // local
  std::string remote_base = ".skillrt/npu-remote-test";  // relative: under the remote home
  std::string workdir;                                   // remote; empty: <run dir>/work
  std::map<std::string, std::string> env;
  std::vector<std::string> mounts;  // extra host:container[:ro] volumes
  std::string shm_size = "1g";
  long long min_free_disk_mb = 10240;
  bool clean_stale = true;
  bool keep_run_dir = false;
  bool dry_run = false;
  // A local log of an earlier run to parse instead of running anything.
  std::string recorded_log;
  int tail_lines = 200;
  std::string run_id;
};

// Builds the request from the skill input and the plugin's settings (the host config file's
// `plugins.npu-remote-test.settings`, whose `servers` map names hosts). Throws InputError.
Request parse_request(const nlohmann::json& input, const nlohmann::json& settings);

// A new run id: UTC time and random hex, e.g. "20250101t120000-3fa2c1".
std::string new_run_id();

// "~/x" with the local home folder; anything else unchanged.
std::string expand_home(const std::string& path);

}  // namespace skillrt::npu_remote

#endif  // SKILLRT_NPU_REMOTE_TEST_REQUEST_HPP_
