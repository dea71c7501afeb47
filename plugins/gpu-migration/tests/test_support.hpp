// Helpers shared by the gpu-migration tests: temporary copies of fixtures and their planted
// expectations.
#ifndef SKILLRT_GPU_MIGRATION_TESTS_TEST_SUPPORT_HPP_
#define SKILLRT_GPU_MIGRATION_TESTS_TEST_SUPPORT_HPP_

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>

namespace gm_test {

namespace fs = std::filesystem;

// (file, cell or -1, line, rule)
using Expected = std::tuple<std::string, int, int, std::string>;

fs::path fixture(const std::string& name);

// A fresh copy of a fixture in a temporary folder, removed by the destructor.
class TempRepo {
 public:
  explicit TempRepo(const std::string& fixture_name);
  TempRepo();  // empty folder
  ~TempRepo();
  TempRepo(const TempRepo&) = delete;
  TempRepo& operator=(const TempRepo&) = delete;
  const fs::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

// Every "expect: RULE ..." marker planted in a fixture's comments (vendored folders skipped).
std::set<Expected> planted(const fs::path& root);

// What an analysis reported, as the same tuples (findings and suggestions).
std::set<Expected> reported(const nlohmann::json& result);

std::string read_file(const fs::path& p);
void write_file(const fs::path& p, const std::string& text);
// Snapshot of every file's content under a folder.
std::map<std::string, std::string> snapshot(const fs::path& root);

// Runs a shell command; returns the exit status and fills `out` with stdout.
int run(const std::string& command, std::string* out = nullptr);

std::string describe(const std::set<Expected>& s);

}  // namespace gm_test

#endif  // SKILLRT_GPU_MIGRATION_TESTS_TEST_SUPPORT_HPP_
