// op-test triage: failing operator tests classified test-bug / adaptation-bug / environment.
#ifndef SKILLRT_OP_TEST_TRIAGE_HPP_
#define SKILLRT_OP_TEST_TRIAGE_HPP_

#include <skillrt/sdk.hpp>

#include <string>
#include <string_view>

namespace skillrt::op_test {

Json run_triage(const Json& input);
// The rule pack compiled into the plugin (data/triage_rules.yaml).
std::string_view builtin_triage_rules();

}  // namespace skillrt::op_test

#endif  // SKILLRT_OP_TEST_TRIAGE_HPP_
