#ifndef SKILLRT_OPTOOLKIT_TESTS_TEST_SUPPORT_HPP_
#define SKILLRT_OPTOOLKIT_TESTS_TEST_SUPPORT_HPP_

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace optoolkit_test {

inline std::string source_path(const std::string& relative) {
  return std::string(SKILLRT_SOURCE_DIR) + "/" + relative;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("test data missing: " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> read_lines(const std::string& path) {
  std::istringstream in(read_text(path));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace optoolkit_test

#endif  // SKILLRT_OPTOOLKIT_TESTS_TEST_SUPPORT_HPP_
