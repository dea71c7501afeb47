// The npu-remote-test skill: check a host, run one job there (in a vllm-ascend container or
// directly), stream it, enforce its deadline on both ends, bring back numbers and files.
#ifndef SKILLRT_NPU_REMOTE_TEST_REMOTE_TEST_HPP_
#define SKILLRT_NPU_REMOTE_TEST_REMOTE_TEST_HPP_

#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "request.hpp"

namespace skillrt::npu_remote {

struct RemoteTestHooks {
  std::function<void(double done, double total, const std::string& message)> progress;
  std::function<bool()> cancelled;
};

// The caller cancelled (or the host's deadline passed) and the run was stopped and cleaned;
// the message says what was cleaned and where the record is.
class Cancelled : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ssh could not run anything on the host: unknown or changed host key, refused key,
// unreachable. The message says what to do.
class ConnectError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs the skill. `settings` is the plugin's object from the host config file. Throws
// InputError, ConnectError, Cancelled; everything else the run meets is in the result's
// outcome (refused, failed, timed_out, connection_lost).
nlohmann::json run_remote_test(const nlohmann::json& input, const nlohmann::json& settings,
                               const RemoteTestHooks& hooks = {});

}  // namespace skillrt::npu_remote

#endif  // SKILLRT_NPU_REMOTE_TEST_REMOTE_TEST_HPP_
