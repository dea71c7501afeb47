// Reads pytest's terminal output (plain, -v, -r summaries) into test cases and counts.
#ifndef SKILLRT_NPU_REMOTE_TEST_PYTEST_PARSER_HPP_
#define SKILLRT_NPU_REMOTE_TEST_PYTEST_PARSER_HPP_

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace skillrt::npu_remote {

// nullopt when `log` shows no pytest session. Otherwise {counts, cases, summary_line,
// duration_s}: counts from pytest's final line (passed, failed, skipped, error, xfailed,
// xpassed, deselected, warnings), cases [{name, outcome, message}] from the verbose per-test
// lines and the short test summary, merged by name. outcome is one of passed, failed, error,
// skipped, xfailed, xpassed. A skip reported only as "SKIPPED [n] file:line: reason" has that
// location as its name, because pytest prints no test id for it. Counts stay absent when the
// session did not reach its final line (killed, timed out).
std::optional<nlohmann::json> parse_pytest(std::string_view log);

}  // namespace skillrt::npu_remote

#endif  // SKILLRT_NPU_REMOTE_TEST_PYTEST_PARSER_HPP_
