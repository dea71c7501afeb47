// A per-process scratch directory for the npu-graph tests, removed with the object.
#ifndef SKILLRT_NPU_GRAPH_TESTS_TEMP_DIR_HPP_
#define SKILLRT_NPU_GRAPH_TESTS_TEMP_DIR_HPP_

#include <unistd.h>

#include <filesystem>
#include <string>

namespace npu_graph_test {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace npu_graph_test

#endif  // SKILLRT_NPU_GRAPH_TESTS_TEMP_DIR_HPP_
