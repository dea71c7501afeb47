#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "triage.hpp"

using skillrt::Json;

namespace {

const std::string kTriage = std::string(SKILLRT_OP_TEST_DATA) + "/triage";

struct Expected {
  std::string file, test, klass;
};

std::vector<Expected> expected(const std::string& dir = kTriage) {
  std::ifstream f(dir + "/expected.tsv");
  std::vector<Expected> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    Expected e;
    std::getline(s, e.file, '\t');
    std::getline(s, e.test, '\t');
    std::getline(s, e.klass, '\t');
    out.push_back(e);
  }
  return out;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Held-out logs, written after the rules were frozen: reported, and held to a lower bar than
// the labelled set because no rule was tuned on them.
size_t count_right(const std::string& dir, const std::vector<Expected>& all, std::string* misses) {
  size_t right = 0;
  for (const Expected& e : all) {
    const Json out = skillrt::op_test::run_triage({{"log_file", dir + "/" + e.file}});
    const Json* hit = nullptr;
    for (const Json& f : out.at("failures"))
      if (ends_with(f.at("test").get<std::string>(), e.test)) hit = &f;
    if (hit && hit->at("class") == e.klass) {
      ++right;
    } else {
      *misses += e.file + ": expected " + e.klass + ", got " +
                 (hit ? hit->at("class").get<std::string>() : std::string("no failure")) + "\n";
    }
  }
  return right;
}

}  // namespace

TEST_CASE("triage classifies the labelled logs with at least 90% accuracy", "[op-test][triage]") {
  const std::vector<Expected> all = expected();
  REQUIRE(all.size() >= 30);
  std::map<std::string, Json> results;
  size_t right = 0;
  std::string misses;
  for (const Expected& e : all) {
    if (!results.count(e.file))
      results[e.file] = skillrt::op_test::run_triage({{"log_file", kTriage + "/" + e.file}});
    const Json* hit = nullptr;
    for (const Json& f : results[e.file].at("failures"))
      if (ends_with(f.at("test").get<std::string>(), e.test)) hit = &f;
    if (hit && hit->at("class") == e.klass) {
      ++right;
      CHECK_FALSE(hit->at("evidence").empty());
      continue;
    }
    misses +=
        e.file + " " + e.test + ": expected " + e.klass + ", got " +
        (hit ? hit->at("class").get<std::string>() + " (" + hit->at("rule").get<std::string>() + ")"
             : "no failure") +
        "\n";
  }
  const double accuracy = static_cast<double>(right) / static_cast<double>(all.size());
  WARN("triage accuracy " << right << "/" << all.size() << " = " << accuracy << "\n" << misses);
  CHECK(accuracy >= 0.9);
}

TEST_CASE("triage reads each format and points evidence at the right line", "[op-test][triage]") {
  const Json junit = skillrt::op_test::run_triage({{"log_file", kTriage + "/ju_missing_lib.xml"}});
  CHECK(junit.at("format") == "junit");
  REQUIRE(junit.at("failures").size() == 1);
  CHECK(junit.at("failures")[0].at("rule") == "ADAPT-MISSING-KERNEL");
  CHECK(junit.at("failures")[0].at("evidence")[0].at("line") == 6);

  const Json pytest = skillrt::op_test::run_triage({{"log_file", kTriage + "/pt_multi.log"}});
  CHECK(pytest.at("format") == "pytest");
  REQUIRE(pytest.at("failures").size() == 2);
  CHECK(pytest.at("summary").at("total") == 2);
  const Json tol = pytest.at("failures")[0];
  CHECK(tol.at("rule") == "TEST-TOLERANCE-DTYPE");
  bool prec_line = false;
  for (const auto& ev : tol.at("evidence")) prec_line |= ev.at("line") == 15;
  CHECK(prec_line);

  const Json ut = skillrt::op_test::run_triage({{"log_file", kTriage + "/ut_nameerror.log"}});
  CHECK(ut.at("format") == "unittest");
  REQUIRE(ut.at("failures").size() == 1);
  CHECK(ut.at("failures")[0].at("test") == "test_npu_swiglu.TestNpuSwiglu.test_swiglu_fp16");
}

TEST_CASE("triage says undecided when no rule matches, and takes user rules first",
          "[op-test][triage]") {
  const std::string log =
      "FAIL: test_x (m.T)\n------\nTraceback (most recent call last):\nAssertionError: 3 != 4\n";
  const Json out = skillrt::op_test::run_triage({{"log", log}});
  REQUIRE(out.at("failures").size() == 1);
  CHECK(out.at("failures")[0].at("class") == "undecided");

  const std::string path = std::filesystem::temp_directory_path() / "op_test_user_rules.yaml";
  std::ofstream(path) << "rules:\n  - id: MY-COUNT\n    class: adaptation-bug\n    any: ['3 != "
                         "4']\n    action: look\n";
  const Json mine = skillrt::op_test::run_triage({{"log", log}, {"rules_file", path}});
  CHECK(mine.at("failures")[0].at("rule") == "MY-COUNT");
  CHECK_THROWS_WITH(skillrt::op_test::run_triage({{"log_file", "/nonexistent/x.log"}}),
                    Catch::Contains("log_file"));
}

TEST_CASE("triage on held-out logs not used to write the rules", "[op-test][triage]") {
  const std::string dir = kTriage + "/heldout";
  const std::vector<Expected> all = expected(dir);
  REQUIRE(all.size() >= 10);
  std::string misses;
  const size_t right = count_right(dir, all, &misses);
  WARN("held-out triage accuracy " << right << "/" << all.size() << "\n" << misses);
  CHECK(right * 10 >= all.size() * 8);
}
