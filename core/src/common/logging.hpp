// Logging goes to stderr only: stdout belongs to results and protocol messages.
#pragma once

#include <spdlog/spdlog.h>

#include <string_view>

#include "common/error.hpp"

namespace skillrt {

// Installs the process-wide stderr logger. Returns an error for an unknown level name.
Result<void> setup_logging(std::string_view level);

}  // namespace skillrt
