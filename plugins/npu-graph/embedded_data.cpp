#include "embedded_data.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace skillrt::npu_graph {

std::string_view embedded_file(std::string_view name) {
  if (auto text = embedded_data(name); !text.empty()) return text;
  throw std::runtime_error("npu-graph: embedded data file '" + std::string(name) +
                           "' is missing from this build; rebuild the plugin with it listed in "
                           "plugins/npu-graph/CMakeLists.txt");
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read file '" + path +
                             "': check that it exists and is readable");
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace skillrt::npu_graph
