// The host config file: YAML, checked against schemas/skillrt/config.schema.json.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace skillrt::cli {

// What a config file sets. Absent fields stay empty so command-line options and built-in
// defaults can tell "not configured" from a configured value.
struct HostConfig {
  std::filesystem::path file;  // where it came from; empty when no file was read
  std::vector<std::string> plugin_paths;  // absolute
  std::optional<bool> default_plugins;
  std::vector<std::string> skills_dirs;  // absolute
  std::optional<size_t> threads;
  std::optional<std::string> isolation;
  std::optional<size_t> worker_memory_mb;
  std::optional<std::string> log_level;
  std::optional<size_t> max_call_depth;
  std::optional<std::chrono::milliseconds> default_deadline;
  std::optional<std::chrono::milliseconds> grace;
  std::map<std::string, std::chrono::milliseconds> skill_deadlines;
  std::map<std::string, std::string> plugin_isolation;
  std::map<std::string, nlohmann::json> plugin_settings;
  nlohmann::json source = nlohmann::json::object();  // the file's content as JSON
};

// Reads and validates one file. Errors name the file, the line and the field, and say what
// to change.
Result<HostConfig> load_host_config(const std::filesystem::path& file);

// The config file used when --config is not given: $XDG_CONFIG_HOME/skillrt/config.yaml, else
// ~/.config/skillrt/config.yaml; nullopt when that file does not exist.
std::optional<std::filesystem::path> default_config_path();

// The schema the file is checked against (embedded from schemas/skillrt/).
const nlohmann::json& host_config_schema();

}  // namespace skillrt::cli
