// Runs a fuzz target's LLVMFuzzerTestOneInput over every file of its corpus directories: the
// regression half of fuzzing, built with the normal compiler and run by ctest, so an input that
// once crashed a target stays fixed. A target that aborts fails the test with the file named.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  size_t files = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<std::filesystem::path> paths;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[i])) {
      if (entry.is_regular_file()) paths.push_back(entry.path());
    }
    for (const auto& path : paths) {
      std::ifstream in(path, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      std::fprintf(stderr, "%s\n", path.c_str());
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++files;
    }
  }
  if (files == 0) {
    std::fprintf(stderr,
                 "no corpus files under the given directories; pass tests/fuzz/corpus/<target>\n");
    return 1;
  }
  std::printf("%zu corpus files ran without a crash or a differential mismatch\n", files);
  return 0;
}
