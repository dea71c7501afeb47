// Helpers for the ci-fix tests: fixtures, scratch repositories, running linters, schema checks.
#ifndef SKILLRT_CI_FIX_TESTS_SUPPORT_HPP_
#define SKILLRT_CI_FIX_TESTS_SUPPORT_HPP_

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include "ingest.hpp"
#include "system.hpp"

namespace ci_fix_test {

namespace fs = std::filesystem;
using nlohmann::json;

inline std::string source_path(const std::string& relative) {
  return std::string(SKILLRT_SOURCE_DIR) + "/" + relative;
}
inline std::string fixture(const std::string& relative) {
  return source_path("plugins/ci-fix/tests/fixtures/" + relative);
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("missing: " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// A scratch repository removed at the end of the test.
class ScratchRepo {
 public:
  ScratchRepo() {
    std::string base = fs::temp_directory_path().string() + "/ci-fix-test-XXXXXX";
    std::vector<char> buf(base.begin(), base.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = buf.data();
  }
  ~ScratchRepo() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  ScratchRepo(const ScratchRepo&) = delete;
  ScratchRepo& operator=(const ScratchRepo&) = delete;
  const std::string& root() const { return root_; }
  std::string path(const std::string& rel) const { return root_ + "/" + rel; }
  void put(const std::string& rel, const std::string& text) const { spit(path(rel), text); }
  void copy_fixture(const std::string& fixture_rel, const std::string& rel) const {
    put(rel, slurp(fixture(fixture_rel)));
  }
  std::string read(const std::string& rel) const { return slurp(path(rel)); }

 private:
  std::string root_;
};

inline bool have(const std::string& program) {
  return !skillrt::ci_fix::find_program(program).empty();
}

// Runs flake8 (default config unless the repo has one) and parses its findings.
inline std::vector<skillrt::ci_fix::Finding> flake8(const std::string& dir,
                                                    const std::vector<std::string>& files) {
  std::vector<std::string> argv = {"flake8", "--format=default"};
  argv.insert(argv.end(), files.begin(), files.end());
  auto r = skillrt::ci_fix::run_command(argv, dir);
  if (!r.started || (r.exit_code != 0 && r.exit_code != 1)) {
    throw std::runtime_error("flake8 failed: " + r.error + r.err);
  }
  return skillrt::ci_fix::ingest_report(r.out, "flake8").findings;
}

// (rule, line) pairs.
inline std::multiset<std::pair<std::string, uint32_t>> keys(
    const std::vector<skillrt::ci_fix::Finding>& fs) {
  std::multiset<std::pair<std::string, uint32_t>> out;
  for (const auto& f : fs) out.insert({f.code, f.line});
  return out;
}

class SchemaCheck {
 public:
  explicit SchemaCheck(const std::string& relative)
      : document_(json::parse(slurp(source_path(relative)))) {
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter adapter(document_);
    parser.populateSchema(adapter, schema_);
  }
  std::string errors(const json& instance) const {
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter adapter(instance);
    if (validator.validate(schema_, adapter, &results)) return "";
    std::string out;
    valijson::ValidationResults::Error e;
    while (results.popError(e)) {
      std::string p;
      for (const auto& c : e.context) p += c;
      out += p + ": " + e.description + "\n";
    }
    return out.empty() ? "invalid" : out;
  }

 private:
  json document_;
  valijson::Schema schema_;
};

inline const SchemaCheck& input_schema() {
  static SchemaCheck s("schemas/skills/ci-static-errors-fix.input.json");
  return s;
}
inline const SchemaCheck& output_schema() {
  static SchemaCheck s("schemas/skills/ci-static-errors-fix.output.json");
  return s;
}

}  // namespace ci_fix_test

#endif  // SKILLRT_CI_FIX_TESTS_SUPPORT_HPP_
