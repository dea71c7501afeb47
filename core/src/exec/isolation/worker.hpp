// The worker side of process isolation: `skillrt __worker --plugin FILE` loads one plugin and
// serves calls from the host over the protocol in exec/isolation/wire.hpp (the host side is
// exec/isolation/worker_client.hpp).
#pragma once

#include <skillrt/abi.h>

#include <string>

namespace skillrt::exec {

// Loads `plugin_file` with `api` as its host function table and serves calls read from stdin.
// Never returns normally: exits when the host closes stdin.
[[noreturn]] void run_worker(const std::string& plugin_file, const std::string& config_json,
                             const skillrt_host_api* api);

}  // namespace skillrt::exec
