// PATH-style lists ("a:b:c") as used by SKILLRT_PLUGIN_PATH and SKILLRT_SKILLS_PATH.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt {

// Appends each non-empty entry of a colon-separated list to `out`, in order.
inline void append_path_list(std::string_view list, std::vector<std::filesystem::path>& out) {
  size_t start = 0;
  while (start <= list.size()) {
    const size_t end = std::min(list.find(':', start), list.size());
    if (end > start) out.emplace_back(std::string(list.substr(start, end - start)));
    start = end + 1;
  }
}

}  // namespace skillrt
