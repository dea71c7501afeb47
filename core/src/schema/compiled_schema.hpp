// A JSON Schema (draft-07) compiled once and used to validate many instances.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace skillrt::schema {

// One way an instance fails its schema, phrased so that an LLM agent can act on it.
struct Violation {
  std::string pointer;  // JSON Pointer into the instance ("" is the root), e.g. "/options/max_prs"
  std::string keyword;  // the schema keyword that failed, e.g. "maximum", "required"
  std::string message;  // short sentence with pointer, expectation and what was found, e.g.
                        // "/options/max_prs: must be <= 500, got 1000"

  friend bool operator==(const Violation&, const Violation&) = default;
};

// Serves the document behind a "$ref" that points outside the schema. `uri` is absolute and
// carries no fragment. Returns nullopt for a document it does not know.
using DocumentFetcher = std::function<std::optional<nlohmann::json>(const std::string& uri)>;

struct CompileOptions {
  // Empty: only the draft-07 meta-schema (built in) can be referenced from outside the schema,
  // which is what the host wants: a skill's schema must be self-contained.
  DocumentFetcher fetch;
};

// What check_text() decided about one JSON text.
enum class TextVerdict { kValid, kInvalid, kMalformed, kUnsupported };

class CompiledSchema {
 public:
  // Checks `schema` against the draft-07 meta-schema and compiles it. On failure the message
  // names the JSON Pointer of the fault inside the schema and what is wrong there.
  static Result<std::shared_ptr<const CompiledSchema>> compile(const nlohmann::json& schema);
  static Result<std::shared_ptr<const CompiledSchema>> compile(const nlohmann::json& schema,
                                                               const CompileOptions& options);

  // Keeps the schema and leaves all of compile()'s work to its first use, for schemas already
  // proven to compile at build time (a builtin plugin's: the test suite compiles every schema
  // under schemas/). Should one not compile after all, every validation fails with a violation
  // that says why.
  static std::shared_ptr<const CompiledSchema> defer(nlohmann::json schema);

  // Every violation of the instance (empty when valid). Thread-safe: callable concurrently.
  std::vector<Violation> validate(const nlohmann::json& instance) const;

  // Only the verdict; cheaper than validate() for an invalid instance. Thread-safe.
  bool is_valid(const nlohmann::json& instance) const;

  // Verdict on one JSON text without building a DOM. kMalformed exactly when
  // nlohmann::json::parse(text) would throw; otherwise kValid/kInvalid equal to
  // is_valid(nlohmann::json::parse(text)). kUnsupported when this schema or this text needs the
  // DOM path: the caller then parses and calls is_valid(). Repeated keys are decided as nlohmann
  // keeps them (the last one wins); the DOM is needed only where a pattern gives up (the engine's
  // match limit) inside anyOf/oneOf/not/if/contains, or where enum, const or uniqueItems compare
  // objects or arrays nested more than 512 levels deep. The first call compiles the text program
  // (and builds a deferred schema). Thread-safe.
  TextVerdict check_text(std::string_view text) const;

  // check_text() for text the caller has already checked is one JSON value as nlohmann reads it,
  // starting at its first byte (as a value scanned out of a larger well-formed message is): the
  // well-formedness pass is skipped, so text that is not such a value gives an undefined verdict.
  // Thread-safe.
  TextVerdict check_well_formed_text(std::string_view text) const;

  // valijson's own visitor on the same compiled schema: the reference the conformance test
  // holds is_valid() to. Slower; not for production calls.
  bool valijson_verdict(const nlohmann::json& instance) const;

  const nlohmann::json& source() const;

  ~CompiledSchema();
  CompiledSchema(const CompiledSchema&) = delete;
  CompiledSchema& operator=(const CompiledSchema&) = delete;

 private:
  struct Impl;
  explicit CompiledSchema(std::unique_ptr<Impl> impl);
  // The text program on well-formed text whose root value starts at `root`.
  TextVerdict check_from(std::string_view text, std::size_t root) const;
  // The meta-schema itself is compiled without the meta-schema check.
  static Result<std::shared_ptr<const CompiledSchema>> compile_impl(const nlohmann::json& schema,
                                                                    const CompileOptions& options,
                                                                    bool check_meta);
  std::unique_ptr<Impl> impl_;
};

// The draft-07 meta-schema the host checks every schema against (schemas/skillrt/).
const nlohmann::json& draft07_meta_schema();

// Joins violations into one line for an error message: "a; b; c".
std::string join_messages(const std::vector<Violation>& violations);

}  // namespace skillrt::schema
