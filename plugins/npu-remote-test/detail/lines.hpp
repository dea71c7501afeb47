// Line splitting shared by the output parsers.
#ifndef SKILLRT_NPU_REMOTE_TEST_DETAIL_LINES_HPP_
#define SKILLRT_NPU_REMOTE_TEST_DETAIL_LINES_HPP_

#include <string>
#include <string_view>
#include <vector>

#include "optoolkit/text.hpp"

namespace skillrt::npu_remote::detail {

// `text` split at '\n', each line without its trailing '\r' (the plugins' shared helper).
using ops::split_lines;

// `s` without leading and trailing spaces and tabs.
std::string_view strip(std::string_view s);

bool starts_with(std::string_view s, std::string_view prefix);

// The number at the start of `s` (after spaces), or false when there is none.
bool leading_number(std::string_view s, double& value);

}  // namespace skillrt::npu_remote::detail

#endif  // SKILLRT_NPU_REMOTE_TEST_DETAIL_LINES_HPP_
