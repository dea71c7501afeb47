// Process isolation, host side: a plugin's skills run in a worker process (the skillrt binary
// re-executed as `skillrt __worker --plugin FILE`, exec/isolation/worker.hpp), talking the JSON
// lines of exec/isolation/wire.hpp over pipes. The host kills and
// restarts the worker when it crashes, ignores cancellation past the grace period, or breaks
// the protocol; the next call gets a fresh worker.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "plugin/loader.hpp"
#include "registry/registry.hpp"

namespace skillrt::exec {

struct WorkerOptions {
  std::filesystem::path executable;  // the skillrt binary; empty: this process's own
  std::string log_level = "warn";
  size_t memory_limit_mb = 0;  // RLIMIT_AS for the worker; 0: none
  std::chrono::milliseconds grace{std::chrono::seconds(2)};
  std::chrono::milliseconds start_timeout{std::chrono::seconds(20)};
  size_t max_message_bytes = size_t{512} << 20;  // one result line; 100 MB outputs must pass
};

class WorkerClient : public std::enable_shared_from_this<WorkerClient> {
 public:
  WorkerClient(std::filesystem::path plugin_file, nlohmann::json config, WorkerOptions options);
  ~WorkerClient();
  WorkerClient(const WorkerClient&) = delete;
  WorkerClient& operator=(const WorkerClient&) = delete;

  // Starts the worker, reads what it loaded, fills `record` and returns proxy skills whose
  // invoke forwards to this worker. Problems land in record.errors.
  std::vector<std::shared_ptr<Skill>> load(plugin::PluginRecord& record);

  // The proxy's invoke: one call at a time per worker.
  int32_t invoke(const Skill& skill, skillrt_call* call, skillrt_str input);

  pid_t pid() const { return pid_; }

 private:
  bool start(std::string& error);
  void kill_worker();
  void close_pipes();
  // "killed by signal 11 (SIGSEGV)", "exited with code 3"; reaps the process.
  std::string reap();

  std::filesystem::path plugin_file_;
  std::string plugin_name_;
  nlohmann::json config_;
  WorkerOptions options_;
  std::mutex mutex_;  // one call at a time; guards everything below
  pid_t pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
  std::string buffer_;  // bytes read from the worker not yet split into lines
  uint64_t next_id_ = 1;
};

}  // namespace skillrt::exec
