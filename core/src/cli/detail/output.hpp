// Human and JSON rendering for the CLI.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "exec/executor.hpp"
#include "plugin/loader.hpp"
#include "registry/registry.hpp"

namespace skillrt::cli::detail {

// One readable line on stderr, or a JSON object on stdout when `json`.
void print_error(bool json, int exit_code, Code code, const std::string& message,
                 const std::vector<schema::Violation>& violations);

nlohmann::json annotations(const Skill& skill);
nlohmann::json skill_summary(const Skill& skill);
nlohmann::json skill_details(const Skill& skill);
nlohmann::json plugin_json(const plugin::PluginRecord& record);
void print_skill_table(std::ostream& out, const std::vector<std::shared_ptr<const Skill>>& skills);
void print_skill_details(std::ostream& out, const Skill& skill);
void print_plugin_table(std::ostream& out, const std::deque<plugin::PluginRecord>& records);

// Writes to a temporary file beside `path`, then renames: readers never see half a file.
Result<void> write_file_atomically(const std::filesystem::path& path, const std::string& text);

// Progress on stderr: a redrawn bar on a terminal, plain lines otherwise, nothing when quiet.
class ProgressPrinter {
 public:
  ProgressPrinter(bool quiet, bool terminal) : quiet_(quiet), terminal_(terminal) {}
  void report(const exec::Progress& progress);
  void finish();

 private:
  bool quiet_;
  bool terminal_;
  bool drawn_ = false;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace skillrt::cli::detail
