// What the probe script found on the host, and whether the requested job can run there.
#ifndef SKILLRT_NPU_REMOTE_TEST_HOST_FACTS_HPP_
#define SKILLRT_NPU_REMOTE_TEST_HOST_FACTS_HPP_

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "npu_smi.hpp"
#include "request.hpp"

namespace skillrt::npu_remote {

// A run dir of this skill found under remote_base.
struct RemoteRun {
  std::string run_id;
  std::string dir;
  std::optional<long long> pid;
  bool alive = false;
  std::optional<long long> deadline_epoch;
  std::optional<int> exit_code;
  std::optional<long long> job_pgid;
  std::string runtime;
  std::string container;
};

struct HostFacts {
  std::string home;
  std::string user;
  std::string kernel;
  bool npu_smi_found = false;
  std::string npu_smi_path;
  std::optional<int> npu_smi_status;
  std::string npu_smi_text;
  NpuSmiInfo npu;
  std::string driver_version;  // empty: /usr/local/Ascend/driver/version.info missing
  std::string cann_version;
  std::string cann_file;
  std::vector<std::string> device_files;
  std::map<std::string, bool> mounts;  // Ascend path -> present
  std::map<std::string, bool> tools;
  bool runtime_checked = false;
  bool runtime_found = false;
  std::string runtime_path;
  std::string runtime_version;
  std::optional<bool> image_present;
  std::vector<std::pair<std::string, std::string>> containers;  // name, run id
  std::optional<long long> disk_free_mb;
  std::string disk_line;
  std::vector<RemoteRun> runs;
  std::optional<long long> now_epoch;
  bool complete = false;  // the probe reached its end marker
};

// Parses the probe script's output (sections between "@@name" lines).
HostFacts parse_host_facts(std::string_view probe_output);

// One verdict of the host check.
struct Check {
  std::string name;
  std::string status;  // ok | warning | refused | skipped
  std::string detail;
};

// The checks for `request` on this host, refusals first in the order they were found.
std::vector<Check> evaluate_host(const Request& request, const HostFacts& facts);

// The facts as the result's host_facts object.
nlohmann::json host_facts_json(const HostFacts& facts);

// Runs of this skill that a new run should clean: finished but never collected, their wrapper
// dead (killed, host rebooted), or alive past deadline + `grace_s`. Live runs within their
// deadline are someone's job and are left alone.
struct StaleVerdict {
  RemoteRun run;
  std::string reason;
};
std::vector<StaleVerdict> stale_runs(const HostFacts& facts, const std::string& own_run_id,
                                     int grace_s);

}  // namespace skillrt::npu_remote

#endif  // SKILLRT_NPU_REMOTE_TEST_HOST_FACTS_HPP_
