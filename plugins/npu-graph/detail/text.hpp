// Small string helpers shared by the npu-graph analyses.
#ifndef SKILLRT_NPU_GRAPH_DETAIL_TEXT_HPP_
#define SKILLRT_NPU_GRAPH_DETAIL_TEXT_HPP_

#include <string>
#include <string_view>
#include <vector>

#include "optoolkit/text.hpp"

namespace skillrt::npu_graph::detail {

// Splits on '\n', dropping a trailing '\r' from each line; keeps empty lines so that indices
// stay line numbers minus one (the plugins' shared helper).
using ops::split_lines;

std::string to_lower(std::string_view s);
bool contains_icase(std::string_view haystack, std::string_view needle);
bool starts_with(std::string_view s, std::string_view prefix);

// Cuts a line to at most `max` bytes without splitting a UTF-8 sequence, marking the cut.
std::string clip(std::string_view s, size_t max = 400);

// Replaces runs of digits and hex-looking tokens by '#', so that lines differing only in ids,
// addresses, times and counts collapse into one pattern.
std::string normalize_pattern(std::string_view line, size_t max = 300);

// True if `text` names an existing regular file rather than being the content itself.
bool looks_like_path(std::string_view text);

}  // namespace skillrt::npu_graph::detail

#endif  // SKILLRT_NPU_GRAPH_DETAIL_TEXT_HPP_
