// The ci-static-errors-fix skill without the host: request in, result out (both JSON, see
// schemas/skills/ci-static-errors-fix.*.json). Tests and the benchmark call it directly.
#ifndef SKILLRT_CI_FIX_ENGINE_SKILL_HPP_
#define SKILLRT_CI_FIX_ENGINE_SKILL_HPP_

#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace skillrt::ci_fix {

struct Hooks {
  std::function<bool()> cancelled;  // polled between files
  std::function<void(double done, double total, const std::string& message)> progress;
};

// A request the skill cannot act on (bad path, unknown linter, a whitelist that widens...).
class RequestError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};
// The call was cancelled or its deadline passed.
class Cancelled : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

nlohmann::json run_ci_fix(const nlohmann::json& input, const Hooks& hooks = {});

// The data files compiled into the plugin (plugins/ci-fix/data/).
std::string_view embedded_whitelist();
std::string_view embedded_typos();
std::string_view embedded_op_plugin_clang_format();

}  // namespace skillrt::ci_fix

#endif  // SKILLRT_CI_FIX_ENGINE_SKILL_HPP_
