// Shared helpers: a private copy of the fixture per test, file edits that must hit, and
// finding lookups.
#ifndef SKILLRT_OP_ADAPTATION_TESTS_TEST_SUPPORT_HPP_
#define SKILLRT_OP_ADAPTATION_TESTS_TEST_SUPPORT_HPP_

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "verify.hpp"

namespace opa_test {

namespace fs = std::filesystem;

inline const std::string kData = SKILLRT_OPA_TEST_DATA;
inline const std::string kFixture = kData + "/op-plugin-mini";

// A fresh copy of the fixture; ctest runs cases as parallel processes, so the name is unique
// to this process and call.
class FixtureCopy {
 public:
  FixtureCopy() {
    static int n = 0;
    root_ = fs::temp_directory_path() /
            ("opa_fixture_" + std::to_string(::getpid()) + "_" + std::to_string(++n));
    fs::remove_all(root_);
    fs::copy(kFixture, root_, fs::copy_options::recursive);
  }
  ~FixtureCopy() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  FixtureCopy(const FixtureCopy&) = delete;
  FixtureCopy& operator=(const FixtureCopy&) = delete;

  const fs::path& root() const { return root_; }
  std::string read(const std::string& rel) const {
    std::ifstream in(root_ / rel, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  void write(const std::string& rel, const std::string& text) const {
    std::ofstream(root_ / rel, std::ios::binary) << text;
  }
  // Replaces the first occurrence; the edit must apply, or the test is not testing anything.
  void replace(const std::string& rel, const std::string& from, const std::string& to) const {
    std::string text = read(rel);
    const size_t pos = text.find(from);
    INFO(rel << ": '" << from << "'");
    REQUIRE(pos != std::string::npos);
    text.replace(pos, from.size(), to);
    write(rel, text);
  }
  void remove(const std::string& rel) const { REQUIRE(fs::remove(root_ / rel)); }

  skillrt::opa::VerifyResult verify(std::vector<std::string> ops) const {
    skillrt::opa::VerifyOptions o;
    o.ops = std::move(ops);
    o.all = o.ops.empty();
    o.call_skill = call_skill;
    return skillrt::opa::verify_tree(skillrt::opa::Tree(root_), o);
  }

  // Another skill run by the built skillrt binary, as the host would call it.
  static nlohmann::json call_skill(const std::string& skill, const nlohmann::json& input) {
    static int n = 0;
    const fs::path dir = fs::temp_directory_path() /
                         ("opa_call_" + std::to_string(::getpid()) + "_" + std::to_string(++n));
    fs::create_directories(dir);
    std::ofstream(dir / "in.json") << input.dump();
    const std::string cmd = std::string(SKILLRT_BINARY_DIR) + "/bin/skillrt run " + skill +
                            " -q --input '" + (dir / "in.json").string() + "' --output '" +
                            (dir / "out.json").string() + "' > /dev/null 2>&1";
    const int status = std::system(cmd.c_str());
    std::ifstream in(dir / "out.json");
    std::stringstream ss;
    ss << in.rdbuf();
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (status != 0 || ss.str().empty()) throw std::runtime_error("skill " + skill + " failed");
    return nlohmann::json::parse(ss.str());
  }

 private:
  fs::path root_;
};

inline std::vector<skillrt::opa::Finding> with_rule(const skillrt::opa::VerifyResult& r,
                                                    const std::string& rule) {
  std::vector<skillrt::opa::Finding> out;
  for (const auto& f : r.findings) {
    if (f.rule == rule) out.push_back(f);
  }
  return out;
}

inline std::string describe(const skillrt::opa::VerifyResult& r) {
  std::string out;
  for (const auto& f : r.findings) {
    out += f.severity + " " + f.rule + " " + f.op + " " + f.where.file + ":" +
           std::to_string(f.where.line) + " " + f.message + "\n";
  }
  return out;
}

}  // namespace opa_test

#endif  // SKILLRT_OP_ADAPTATION_TESTS_TEST_SUPPORT_HPP_
