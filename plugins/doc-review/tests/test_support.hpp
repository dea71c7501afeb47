// Helpers shared by the doc-review tests: temporary trees, writing pages, running a review and
// picking findings out of its result.
#ifndef SKILLRT_DOC_REVIEW_TESTS_TEST_SUPPORT_HPP_
#define SKILLRT_DOC_REVIEW_TESTS_TEST_SUPPORT_HPP_

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "review.hpp"

namespace doc_review_test {

namespace fs = std::filesystem;
using nlohmann::json;

// A per-process, per-test directory so ctest -j and other build trees never collide.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    static int counter = 0;
    path_ = fs::temp_directory_path() / ("doc_review_" + tag + "_" + std::to_string(::getpid()) +
                                         "_" + std::to_string(++counter));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  fs::path operator/(const std::string& name) const { return path_ / name; }
  const fs::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

inline void write_file(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

inline std::string read_file(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline fs::path data_dir() { return fs::path(SKILLRT_DOC_REVIEW_TEST_DIR) / "data"; }

// A minimal op-plugin checkout: op_plugin/config/op_plugin_functions.yaml with these entries
// (each a full "- func: ..." line without the leading dash).
inline void write_op_plugin(const fs::path& root, const std::vector<std::string>& funcs) {
  std::string yaml = "all_version: [v2.1, v2.2]\ncustom:\n";
  for (const std::string& f : funcs) yaml += "  - func: " + f + "\n    op_api: all_version\n";
  write_file(root / "op_plugin/config/op_plugin_functions.yaml", yaml);
}

inline json review(const json& input) { return skillrt::doc_review::run_review(input); }

// Findings of one rule (every rule when empty).
inline std::vector<json> findings(const json& result, const std::string& rule = "") {
  std::vector<json> out;
  for (const json& f : result.at("findings"))
    if (rule.empty() || f.at("rule") == rule) out.push_back(f);
  return out;
}

inline std::string dump_findings(const json& result) {
  std::string out;
  for (const json& f : result.at("findings")) {
    out += f.at("rule").get<std::string>() + " " + f.at("page").get<std::string>() + ":" +
           std::to_string(f.at("line").get<int>()) + " " + f.at("message").get<std::string>() +
           "\n";
  }
  return out;
}

inline bool skipped_has(const json& result, const std::string& needle) {
  for (const json& s : result.at("skipped"))
    if (s.dump().find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace doc_review_test

#endif  // SKILLRT_DOC_REVIEW_TESTS_TEST_SUPPORT_HPP_
