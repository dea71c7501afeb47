// The assembled host: registry, loaded plugins and executor. Built once per process.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "exec/executor.hpp"
#include "exec/isolation/worker_client.hpp"
#include "plugin/loader.hpp"
#include "registry/registry.hpp"
#include "router/router.hpp"
#include "router/skill_docs.hpp"

namespace skillrt::host {

struct RuntimeOptions {
  std::vector<std::string> plugin_paths;  // --plugin-path, in order
  bool default_plugins = true;            // load <exe>/../lib/skillrt/plugins
  std::vector<std::string> skills_dirs;   // --skills-dir, searched before the defaults
  exec::Executor::Options executor;
  // "auto": plugins found outside the install's plugin directory run in worker processes,
  // builtin ones in-process; "process" or "in-process": all of them.
  std::string isolation = "auto";
  std::map<std::string, std::string> plugin_isolation;    // by plugin name (= file stem)
  std::map<std::string, nlohmann::json> plugin_settings;  // by plugin name, handed to load()
  exec::WorkerOptions worker;
};

// Where SKILL.md folders are looked for, first match of a name wins: `extra`, then each entry
// of SKILLRT_SKILLS_PATH, then <exe>/../share/skillrt/skills (install), then the source tree's
// skills/ when running from a build tree.
std::vector<std::filesystem::path> default_skills_dirs(const std::vector<std::string>& extra);

class Runtime {
 public:
  explicit Runtime(const RuntimeOptions& options);
  Registry& registry() { return registry_; }
  plugin::Loader& loader() { return *loader_; }
  exec::Executor& executor() { return *executor_; }

  // SKILL.md documents, read on first use.
  const router::SkillDocs& skill_docs();
  // Skills without a SKILL.md and SKILL.md files without a skill.
  std::vector<router::DocProblem> doc_problems();
  // The router over the registered skills (their SKILL.md cards, or name and description
  // where a skill has none), built on first use; also serves route() from plugins.
  const router::Router& router();
  const std::vector<std::filesystem::path>& skills_dirs() const { return skills_dirs_; }

 private:
  std::vector<std::filesystem::path> skills_dirs_;
  std::optional<router::SkillDocs> docs_;
  std::unique_ptr<router::Router> router_;
  std::mutex lazy_mutex_;
  Registry registry_;
  std::unique_ptr<plugin::Loader> loader_;
  std::unique_ptr<exec::Executor> executor_;
};

}  // namespace skillrt::host
