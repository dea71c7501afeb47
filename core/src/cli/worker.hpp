// The worker side of process isolation: `skillrt __worker --plugin FILE` loads one plugin and
// serves calls from the host as JSON lines (see exec/worker_client.hpp for the host side).
#pragma once

#include <string>

namespace skillrt::cli {

// Never returns normally: exits when the host closes stdin.
[[noreturn]] void run_worker(const std::string& plugin_file, const std::string& config_json);

}  // namespace skillrt::cli
