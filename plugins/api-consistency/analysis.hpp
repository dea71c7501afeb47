// One request of the api-consistency skill: single case, case file or batch manifest; each case is
// compared, triaged and reported in isolation.
#ifndef SKILLRT_API_CONSISTENCY_ANALYSIS_HPP_
#define SKILLRT_API_CONSISTENCY_ANALYSIS_HPP_

#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "triage.hpp"

namespace skillrt::apic {

using Json = nlohmann::json;

struct Knowledge {
  RuleSet rules;
  AclnnMap aclnn;
};

// The embedded rule file and op-plugin YAML, parsed once.
const Knowledge& embedded_knowledge();

// The caller cancelled (or the deadline passed) between cases.
class Cancelled : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunHooks {
  // (done, total, message); returns false once the caller cancelled.
  std::function<bool(double, double, const std::string&)> progress;
};

// Runs the skill on its input (schema-valid); throws std::invalid_argument for inputs that make
// no sense as a whole (unknown standard, no case at all). Per-case failures are results.
Json run_request(const Json& input, const Knowledge& knowledge, const RunHooks& hooks);

}  // namespace skillrt::apic

#endif  // SKILLRT_API_CONSISTENCY_ANALYSIS_HPP_
