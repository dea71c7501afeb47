// Small text helpers shared by the scanners, the checker and the generator.
#ifndef SKILLRT_OP_ADAPTATION_DETAIL_TEXT_HPP_
#define SKILLRT_OP_ADAPTATION_DETAIL_TEXT_HPP_

#include <string>
#include <string_view>
#include <vector>

namespace skillrt::opa::detail {

std::string trim(std::string_view s);
std::vector<std::string> split_lines(std::string_view text);
bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);
std::string join(const std::vector<std::string>& parts, std::string_view sep);

// "npu_rms_norm" -> "NpuRmsNorm"; the leading "npu_" is kept, as op-plugin's file names do for
// custom ops ("NpuRmsNormKernelNpuOpApi.cpp" is spelled "RmsNormKernelNpuOpApi.cpp" upstream, but
// both are accepted by verify, which indexes every file of the directory).
std::string camel_case(std::string_view snake);

// The CamelCase stem of an op's kernel file: leading underscores and "npu_" dropped, as in
// npu_swiglu_group_quant -> SwigluGroupQuant(KernelNpuOpApi.cpp).
std::string kernel_stem(std::string_view base);

// Unified diff of two texts with 3 lines of context; empty when equal. `path` is relative.
std::string unified_diff(const std::string& path, const std::string& before,
                         const std::string& after, bool is_new_file);

}  // namespace skillrt::opa::detail

#endif  // SKILLRT_OP_ADAPTATION_DETAIL_TEXT_HPP_
