// The assembled host: registry, loaded plugins and executor. Built once per process.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "exec/executor.hpp"
#include "plugin/loader.hpp"
#include "registry/registry.hpp"

namespace skillrt::cli {

struct RuntimeOptions {
  std::vector<std::string> plugin_paths;  // --plugin-path, in order
  bool default_plugins = true;            // load <exe>/../lib/skillrt/plugins
  exec::Executor::Options executor;
};

class Runtime {
 public:
  explicit Runtime(const RuntimeOptions& options);
  Registry& registry() { return registry_; }
  plugin::Loader& loader() { return *loader_; }
  exec::Executor& executor() { return *executor_; }

 private:
  Registry registry_;
  std::unique_ptr<plugin::Loader> loader_;
  std::unique_ptr<exec::Executor> executor_;
};

}  // namespace skillrt::cli
