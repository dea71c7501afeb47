// Runs the validator over every required draft-7 test of the JSON-Schema-Test-Suite.
//
// Each case is "<file> :: <group> :: <test>". A case that fails must be listed, with its
// reason, in draft7_known_failures.txt; a listed case that passes fails the run too, so the
// list never goes stale.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "schema/compiled_schema.hpp"
#include "support/schema_suite.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using skillrt::schema::CompiledSchema;
using skillrt::schema::CompileOptions;
using skillrt::testing::kSchemaSuite;
using skillrt::testing::read_json_file;
using skillrt::testing::serve_suite_remote;
using skillrt::testing::suite_files;

namespace {

const fs::path kKnownFailures =
    fs::path(SKILLRT_SOURCE_DIR) / "tests" / "conformance" / "draft7_known_failures.txt";
constexpr std::string_view kSeparator = " :: ";

// Case id -> reason.
std::map<std::string, std::string> read_known_failures() {
  std::map<std::string, std::string> known;
  std::ifstream in(kKnownFailures);
  REQUIRE(in.good());
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.starts_with('#')) continue;
    const auto cut = line.rfind(kSeparator);
    REQUIRE(cut != std::string::npos);
    known[line.substr(0, cut)] = line.substr(cut + kSeparator.size());
  }
  return known;
}

struct Outcome {
  int passed = 0;
  int total = 0;
  int explained = 0;  // invalid instances whose violations came from the explainer
  std::map<std::string, std::string> failures;  // id -> what happened
  std::vector<std::string> bad_reports;         // violations that do not read as promised
  std::vector<std::string> disagreements;       // where valijson's own visitor judges otherwise
};

void run_file(const fs::path& file, const CompileOptions& options, Outcome& outcome) {
  for (const json& group : read_json_file(file)) {
    const std::string group_id = file.filename().string() + std::string(kSeparator) +
                                 group.at("description").get<std::string>();
    const auto compiled = CompiledSchema::compile(group.at("schema"), options);
    for (const json& test : group.at("tests")) {
      const std::string id =
          group_id + std::string(kSeparator) + test.at("description").get<std::string>();
      ++outcome.total;
      if (!compiled) {
        outcome.failures[id] = "does not compile: " + compiled.error().message;
        continue;
      }
      const bool expected = test.at("valid").get<bool>();
      const auto violations = (*compiled)->validate(test.at("data"));
      const bool valid = violations.empty();
      if (valid != (*compiled)->is_valid(test.at("data"))) {
        outcome.bad_reports.push_back(id + ": validate() and is_valid() disagree");
      }
      if (valid != (*compiled)->valijson_verdict(test.at("data"))) {
        outcome.disagreements.push_back(id);
      }
      for (const auto& v : violations) {
        const std::string head = (v.pointer.empty() ? "/" : v.pointer) + ": ";
        if (!v.message.starts_with(head) || v.keyword.empty()) {
          outcome.bad_reports.push_back(id + ": " + v.message);
        }
      }
      const bool from_explainer = std::none_of(violations.begin(), violations.end(),
                                               [](const auto& v) { return v.keyword == "schema"; });
      if (!valid && from_explainer) ++outcome.explained;
      if (valid == expected) {
        ++outcome.passed;
        continue;
      }
      outcome.failures[id] =
          expected ? "rejected a valid instance: " + skillrt::schema::join_messages(violations)
                   : "accepted an invalid instance";
    }
  }
}

}  // namespace

TEST_CASE("draft-07 required tests of the JSON-Schema-Test-Suite", "[conformance]") {
  const fs::path dir = kSchemaSuite / "tests" / "draft7";
  REQUIRE(fs::is_directory(dir));
  // optional/ holds what draft 7 leaves to the implementation; only files directly here count.
  const auto files = suite_files(dir, /*recursive=*/false);
  REQUIRE_FALSE(files.empty());

  CompileOptions options;
  options.fetch = serve_suite_remote;
  Outcome outcome;
  for (const auto& file : files) run_file(file, options, outcome);

  const auto known = read_known_failures();
  std::vector<std::string> unlisted;
  std::vector<std::string> now_passing;
  for (const auto& [id, what] : outcome.failures) {
    if (!known.contains(id)) unlisted.push_back(id + "\n    " + what);
  }
  for (const auto& [id, reason] : known) {
    if (!outcome.failures.contains(id)) now_passing.push_back(id);
  }

  std::cout << "draft7 conformance: " << outcome.passed << " passed, "
            << outcome.total - outcome.passed << " failed, of " << outcome.total
            << " required tests (" << known.size() << " known failures listed); "
            << outcome.explained << " rejections explained with keyword messages\n";
  for (const auto& line : unlisted) std::cout << "UNLISTED FAILURE: " << line << "\n";
  for (const auto& line : now_passing) {
    std::cout << "LISTED BUT PASSING (remove from the list): " << line << "\n";
  }
  for (const auto& line : outcome.bad_reports) std::cout << "BAD REPORT: " << line << "\n";
  for (const auto& line : outcome.disagreements) {
    std::cout << "VALIJSON'S VISITOR DISAGREES: " << line << "\n";
  }

  CHECK(unlisted.empty());
  CHECK(now_passing.empty());
  CHECK(outcome.bad_reports.empty());
  // The host's visitor and valijson's walk the same compiled schema; on the suite they agree.
  CHECK(outcome.disagreements.empty());
  CHECK(outcome.total == 423);
  // The bar: at least 99% of the required tests pass.
  CHECK(outcome.passed * 100 >= outcome.total * 99);
}
