// The run record people read: the result as Markdown, beside the JSON.
#ifndef SKILLRT_NPU_REMOTE_TEST_RUN_RECORD_HPP_
#define SKILLRT_NPU_REMOTE_TEST_RUN_RECORD_HPP_

#include <nlohmann/json.hpp>
#include <string>

namespace skillrt::npu_remote {

// Markdown of a result object (host facts, checks, image, command, timings, metrics, tests,
// artifacts, outcome, and what was left on the host).
std::string run_record_markdown(const nlohmann::json& result);

}  // namespace skillrt::npu_remote

#endif  // SKILLRT_NPU_REMOTE_TEST_RUN_RECORD_HPP_
