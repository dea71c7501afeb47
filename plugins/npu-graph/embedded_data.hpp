// The plugin's data files (data/), embedded at build time; see CMakeLists.txt for why.
#ifndef SKILLRT_NPU_GRAPH_EMBEDDED_DATA_HPP_
#define SKILLRT_NPU_GRAPH_EMBEDDED_DATA_HPP_

#include <string>
#include <string_view>
#include <vector>

namespace skillrt::npu_graph {

struct EmbeddedFile {
  std::string_view name;  // path relative to plugins/npu-graph/data, e.g. "kb/concepts.md"
  std::string_view text;
};

const std::vector<EmbeddedFile>& embedded_files();

// The embedded file `name`; throws std::runtime_error naming it when the build lacks it.
std::string_view embedded_file(std::string_view name);

// Reads a whole file; throws skillrt-style std::runtime_error naming the path when unreadable.
std::string read_text_file(const std::string& path);

}  // namespace skillrt::npu_graph

#endif  // SKILLRT_NPU_GRAPH_EMBEDDED_DATA_HPP_
