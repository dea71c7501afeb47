// One compiled schema validated from several threads at once.
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "schema/compiled_schema.hpp"

using nlohmann::json;
using skillrt::schema::CompiledSchema;

TEST_CASE("validate is safe to call from several threads", "[schema][threads]") {
  // Patterns exercise valijson's regex cache, the part that is not thread-safe by itself.
  auto compiled = CompiledSchema::compile(json::parse(R"({
    "type": "object",
    "required": ["op"],
    "properties": {
      "op": {"type": "string", "pattern": "^[a-z_]+$"},
      "dtype": {"enum": ["float16", "bfloat16", "float32"]},
      "shape": {"type": "array", "items": {"type": "integer", "minimum": 0}}
    },
    "patternProperties": {"^x-": {"type": "string"}}
  })"));
  REQUIRE(compiled.has_value());
  const auto schema = *compiled;
  const json good =
      json::parse(R"({"op": "add", "dtype": "float16", "shape": [2, 3], "x-a": "b"})");
  const json bad = json::parse(R"({"op": "Add", "dtype": "int4", "shape": [-1], "x-a": 1})");
  const auto expected = schema->validate(bad);
  REQUIRE(expected.size() == 4);

  constexpr int kThreads = 8;
  constexpr int kRounds = 300;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        if ((i + t) % 2 == 0) {
          if (!schema->validate(good).empty() || !schema->is_valid(good)) ++mismatches;
        } else if (schema->validate(bad) != expected || schema->is_valid(bad)) {
          ++mismatches;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(mismatches.load() == 0);
}

TEST_CASE("compile is safe to call from several threads", "[schema][threads]") {
  // The first compile() also compiles the shared meta-schema.
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      auto compiled = CompiledSchema::compile(json::parse(R"({"type": "string"})"));
      if (!compiled || !(*compiled)->validate(json(1)).size()) ++failures;
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(failures.load() == 0);
}

TEST_CASE("the first use of a schema may come from several threads at once", "[schema][threads]") {
  // compile() leaves building the validator to the first validation; here eight threads race
  // for it on every one of twenty fresh schemas, and all must see the same finished tree.
  std::atomic<int> mismatches{0};
  for (int round = 0; round < 20; ++round) {
    auto compiled = CompiledSchema::compile(json::parse(R"({
      "type": "object",
      "required": ["name"],
      "properties": {"name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 8}}
    })"));
    REQUIRE(compiled.has_value());
    const auto schema = *compiled;
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        while (!go.load()) std::this_thread::yield();
        const json value = t % 2 == 0 ? json{{"name", "ada"}} : json{{"name", "Ada"}};
        const bool valid = schema->is_valid(value);
        const auto violations = schema->validate(value);
        if (valid != (t % 2 == 0) || violations.empty() != valid) ++mismatches;
      });
    }
    go = true;
    for (auto& thread : threads) thread.join();
  }
  CHECK(mismatches.load() == 0);
}
