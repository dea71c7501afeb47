// Helpers shared by the api-consistency tests: temp directories, .npy writers and Python fixtures.
#ifndef SKILLRT_API_CONSISTENCY_TESTS_TEST_SUPPORT_HPP_
#define SKILLRT_API_CONSISTENCY_TESTS_TEST_SUPPORT_HPP_

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace apic_test {

namespace fs = std::filesystem;

// A per-process, per-test directory so ctest -j and other build dirs never collide.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("apic_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(++counter));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

inline std::string shape_tuple(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
  return s + ")";
}

// Writes a version-1 .npy file with the given descr and raw little-endian bytes.
inline void write_npy_bytes(const std::string& path, const std::string& descr,
                            const std::vector<int64_t>& shape, const void* data, size_t bytes) {
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }";
  size_t total = 10 + dict.size() + 1;
  const size_t pad = (64 - total % 64) % 64;
  dict += std::string(pad, ' ') + "\n";
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(dict.size());
  out.put(static_cast<char>(len & 0xff));
  out.put(static_cast<char>(len >> 8));
  out << dict;
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

template <typename T>
void write_npy(const std::string& path, const std::string& descr, const std::vector<int64_t>& shape,
               const std::vector<T>& values) {
  write_npy_bytes(path, descr, shape, values.data(), values.size() * sizeof(T));
}

// Runs /usr/bin/python3 (Debian's, with numpy, openpyxl and torch) on a script; returns the exit
// status. Output goes to `log` so a failing fixture can be read.
inline int python(const std::string& script_path, const std::string& args, const std::string& log) {
  const std::string cmd =
      "/usr/bin/python3 '" + script_path + "' " + args + " > '" + log + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::string test_dir() { return SKILLRT_APIC_TEST_DIR; }

}  // namespace apic_test

#endif  // SKILLRT_API_CONSISTENCY_TESTS_TEST_SUPPORT_HPP_
