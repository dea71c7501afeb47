// POSIX shell quoting for the commands this skill sends to a host and shows to people.
#ifndef SKILLRT_NPU_REMOTE_TEST_DETAIL_SHELL_HPP_
#define SKILLRT_NPU_REMOTE_TEST_DETAIL_SHELL_HPP_

#include <string>
#include <string_view>
#include <vector>

namespace skillrt::npu_remote::detail {

// `s` as one shell word: unchanged when it holds only characters no shell treats specially,
// else in single quotes (a ' inside becomes '\'').
std::string shell_quote(std::string_view s);

// The words quoted and joined by spaces: a command line a person can paste.
std::string shell_join(const std::vector<std::string>& words);

}  // namespace skillrt::npu_remote::detail

#endif  // SKILLRT_NPU_REMOTE_TEST_DETAIL_SHELL_HPP_
