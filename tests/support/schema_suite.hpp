// The official JSON-Schema-Test-Suite (Debian package json-schema-test-suite), as the schema
// tests read it. Needs SKILLRT_JSON_SCHEMA_TEST_SUITE (tests/CMakeLists.txt sets it).
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::testing {

inline const std::filesystem::path kSchemaSuite = SKILLRT_JSON_SCHEMA_TEST_SUITE;

// The suite's remote references all live under this base, which its remotes/ folder mirrors;
// nothing is fetched from the network.
inline constexpr std::string_view kSchemaSuiteRemoteBase = "http://localhost:1234/";

inline nlohmann::json read_json_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

// The .json test files in `dir` (with its subfolders when `recursive`), sorted.
inline std::vector<std::filesystem::path> suite_files(const std::filesystem::path& dir,
                                                      bool recursive) {
  std::vector<std::filesystem::path> files;
  const auto keep = [&](const std::filesystem::directory_entry& entry) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      files.push_back(entry.path());
    }
  };
  if (recursive) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) keep(entry);
  } else {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) keep(entry);
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A CompileOptions::fetch that serves the suite's remotes/ folder.
inline std::optional<nlohmann::json> serve_suite_remote(const std::string& uri) {
  if (!uri.starts_with(kSchemaSuiteRemoteBase)) return std::nullopt;
  const std::filesystem::path file =
      kSchemaSuite / "remotes" / uri.substr(kSchemaSuiteRemoteBase.size());
  if (!std::filesystem::is_regular_file(file)) return std::nullopt;
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

}  // namespace skillrt::testing
