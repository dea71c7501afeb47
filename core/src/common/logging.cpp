#include "common/logging.hpp"

#include <spdlog/sinks/stdout_sinks.h>

#include <string>

namespace skillrt {

Result<void> setup_logging(std::string_view level) {
  const spdlog::level::level_enum parsed = spdlog::level::from_str(std::string(level));
  // from_str maps anything unknown to "off"; only "off" itself may mean off.
  if (parsed == spdlog::level::off && level != "off") {
    return fail(Code::kInvalidArgument,
                "--log-level '" + std::string(level) +
                    "' is not a level: use trace, debug, info, warn, error, critical or off");
  }
  static const auto logger = [] {
    auto l = std::make_shared<spdlog::logger>("skillrt",
                                              std::make_shared<spdlog::sinks::stderr_sink_mt>());
    l->set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
    return l;
  }();
  logger->set_level(parsed);
  spdlog::set_default_logger(logger);
  return {};
}

}  // namespace skillrt
