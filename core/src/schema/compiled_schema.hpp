// A JSON Schema (draft-07) compiled once and used to validate many instances.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace skillrt::schema {

// One way an instance fails its schema, phrased so that an LLM agent can act on it.
struct Violation {
  std::string pointer;  // JSON Pointer into the instance ("" is the root), e.g. "/options/max_prs"
  std::string keyword;  // the schema keyword that failed, e.g. "maximum", "required"
  std::string message;  // short sentence with pointer, expectation and what was found, e.g.
                        // "/options/max_prs: must be <= 500, got 1000"
};

class CompiledSchema {
 public:
  // Checks `schema` against the draft-07 meta-schema and compiles it. On failure the message
  // names the JSON Pointer of the fault inside the schema and what is wrong there.
  static Result<std::shared_ptr<const CompiledSchema>> compile(const nlohmann::json& schema);

  // Every violation of the instance (empty when valid). Thread-safe: callable concurrently.
  std::vector<Violation> validate(const nlohmann::json& instance) const;

  const nlohmann::json& source() const;

  ~CompiledSchema();
  CompiledSchema(const CompiledSchema&) = delete;
  CompiledSchema& operator=(const CompiledSchema&) = delete;

 private:
  struct Impl;
  explicit CompiledSchema(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace skillrt::schema
