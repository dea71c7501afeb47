// Finds plugin libraries, checks their ABI, runs load() and moves their skills into the registry.
#pragma once

#include <skillrt/abi.h>

#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "registry/registry.hpp"

struct skillrt_host;

namespace skillrt::plugin {

// What the host knows about one plugin file, loaded or not.
struct PluginRecord {
  std::filesystem::path file;
  std::string name;     // from the descriptor; empty when it could not be read
  std::string version;  // from the descriptor
  int abi_major = -1;
  int abi_minor = -1;
  bool loaded = false;   // load() succeeded
  bool builtin = false;  // found in the install's own plugin directory
  bool isolated = false;  // its skills run in a worker process
  std::vector<std::string> skills;  // registered and available
  std::vector<std::string> errors;  // one line each; every line names the file
};

struct LoaderOptions {
  // Per-plugin settings from the host config file, by plugin name ("*": any plugin without an
  // entry of its own); handed to load().
  std::map<std::string, nlohmann::json> plugin_config;
  // Whether a file is loaded in a worker process instead of this one (exec's isolation).
  std::function<bool(const std::filesystem::path& file, bool builtin)> isolate;
  // Loads a file in a worker: fills the record (name, version, ABI, errors, loaded) and
  // returns proxy skills, which the loader registers like any plugin's.
  std::function<std::vector<std::shared_ptr<Skill>>(PluginRecord& record)> load_isolated;
  // Log each error line as it happens (a worker leaves that to its host, which logs them once).
  bool log_errors = true;
};

class Loader {
 public:
  // `api` is the host function table (host::host_api()); it must outlive every plugin.
  Loader(Registry& registry, const skillrt_host_api* api, LoaderOptions options = {});
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  // Loads every regular file named *.so in `dir`, in name order. A missing directory is skipped.
  void load_directory(const std::filesystem::path& dir, bool builtin);
  // Loads one file. Problems land in the file's record and the log; nothing throws.
  void load_file(const std::filesystem::path& file, bool builtin);

  const std::deque<PluginRecord>& records() const { return records_; }
  // Every error line of every plugin, in load order.
  std::vector<std::string> errors() const;

  struct HostState;

 private:
  // A new record for `file`, or null when that file already has one.
  PluginRecord* add_record(const std::filesystem::path& file, bool builtin);
  // Maps the library and runs its load(), touching nothing but `record`: several records may be
  // opened at once. Null when load() was never reached.
  std::unique_ptr<skillrt_host> open(PluginRecord& record);
  // Registers what open() produced (or loads the record in a worker) and logs its errors.
  void finish(PluginRecord& record, std::unique_ptr<skillrt_host> host);
  void commit_skills(PluginRecord& record, std::vector<std::shared_ptr<Skill>>& skills);

  Registry& registry_;
  const skillrt_host_api* api_;
  LoaderOptions options_;
  std::deque<PluginRecord> records_;
  // Host handles stay valid until the loader is destroyed (the process's end in production).
  std::deque<std::unique_ptr<skillrt_host>> hosts_;
};

// The directories searched for plugins, in order: the one beside the executable
// (<exe>/../lib/skillrt/plugins, which is both the build tree's and the install's), then each
// entry of SKILLRT_PLUGIN_PATH (colon-separated), then `extra` (--plugin-path, config file).
struct SearchPath {
  std::filesystem::path builtin_dir;
  std::vector<std::filesystem::path> extra_dirs;
};
SearchPath default_search_path(const std::vector<std::string>& extra);

// Load-time host functions; host::host_api() puts them into the table.
int32_t host_add_skill(skillrt_host* host, const skillrt_skill_def* def);
void host_set_load_error(skillrt_host* host, skillrt_str message);
skillrt_str host_plugin_config(skillrt_host* host);
void host_log(skillrt_host* host, int32_t level, skillrt_str message);

}  // namespace skillrt::plugin
