#include "schema/compiled_schema.hpp"

#include <skillrt_embedded_schemas.h>

#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "common/json_scan.hpp"
#include "schema/detail/explainer.hpp"
#include "schema/detail/rules.hpp"
#include "schema/detail/schema_walk.hpp"
#include "schema/detail/text.hpp"
#include "schema/detail/text_validator.hpp"

namespace skillrt::schema {
namespace {

using Json = nlohmann::json;

// A validator caches the regexes it compiles and so may not be shared between threads; a few
// are kept for reuse so that the cache survives from one call to the next.
constexpr std::size_t kPoolLimit = 64;

bool is_draft07_meta_uri(std::string uri) {
  if (!uri.empty() && uri.back() == '#') uri.pop_back();
  return uri == "http://json-schema.org/draft-07/schema" ||
         uri == "https://json-schema.org/draft-07/schema";
}

}  // namespace

// Compiling checks everything an author can get wrong (the meta-schema, references, loops,
// patterns) at once, but builds valijson's tree, about half the cost, only on first use: a host
// that loads a dozen plugins to list their skills validates few of their schemas, if any.
// Schemas that reference other documents are built at once, so that a fetch failure is still a
// compile error.
struct CompiledSchema::Impl {
  Json source;
  Json for_valijson;  // prepared copy, released once built
  std::string base_uri;
  CompileOptions options;
  // Documents served through "$ref"; the index points into them, so they never move.
  std::vector<std::unique_ptr<Json>> fetched;
  detail::SchemaIndex index;
  detail::RegexTable regexes;
  valijson::Schema schema;
  std::once_flag built;
  std::string build_error;  // why the deferred build failed ("" when it did not)

  bool checked = true;  // false for a deferred schema until its first use

  // Builds the tree once (checking first for a deferred schema); safe to call from any number of
  // threads. False when it failed.
  bool ensure_built() {
    std::call_once(built, [this] {
      if (!checked) {
        if (auto remote = check(true); !remote) {
          build_error = remote.error().message;
          return;
        }
      }
      build_error = build();
    });
    return build_error.empty();
  }

  // What an author can get wrong: the meta-schema, patterns, references into the document and
  // loops. Leaves the prepared copy behind for build(); returns how many references point at
  // other documents.
  Result<std::size_t> check(bool check_meta) {
    if (check_meta) {
      static const auto meta = compile_impl(draft07_meta_schema(), CompileOptions{}, false);
      if (!meta) {
        return fail(Code::kInternal,
                    "the built-in draft-07 meta-schema does not compile: " + meta.error().message);
      }
      const auto violations = (*meta)->validate(source);
      if (!violations.empty()) return fail(Code::kInvalidArgument, join_messages(violations));
    }
    auto prepared = detail::prepare_schema(source, index, "");
    for (const auto& site : prepared.patterns) {
      if (auto error = add_regex(site); !error.empty()) return fail(Code::kInvalidArgument, error);
    }
    if (!prepared.unresolved.empty()) {
      const auto& site = prepared.unresolved.front();
      return fail(Code::kInvalidArgument,
                  site.pointer + ": reference " + Json(site.text).dump() +
                      " points at nothing in this schema; point it at an existing subschema, "
                      "for example one under /definitions");
    }
    if (!prepared.cycle.empty()) {
      std::string steps;
      for (const auto& node : prepared.cycle) steps += (steps.empty() ? "#" : " -> #") + node;
      return fail(Code::kInvalidArgument,
                  detail::display_pointer(prepared.cycle.front()) +
                      ": the schema leads back to itself without looking inside the value (" +
                      steps + "), so validation would never end; break the loop");
    }
    for_valijson = std::move(prepared.for_valijson);
    base_uri = std::move(prepared.base_uri);
    return prepared.remote_refs;
  }

  std::string build() {
    std::vector<detail::SchemaSite> remote_patterns;
    // Documents by URI, so that a fetched document can refer back to one already known.
    std::map<std::string, const Json*> known;
    if (!base_uri.empty()) known[base_uri] = &source;
    std::string unfetched;
    auto fetch = [&](const std::string& uri) -> const Json* {
      const Json* original = nullptr;
      if (auto it = known.find(uri); it != known.end()) {
        original = it->second;
      } else {
        std::optional<Json> document;
        if (is_draft07_meta_uri(uri)) {
          document = draft07_meta_schema();
        } else if (options.fetch) {
          document = options.fetch(uri);
        }
        if (!document) {
          unfetched = uri;
          return nullptr;
        }
        fetched.push_back(std::make_unique<Json>(std::move(*document)));
        original = fetched.back().get();
        known[uri] = original;
      }
      auto remote = detail::prepare_schema(*original, index, uri);
      remote_patterns.insert(remote_patterns.end(), remote.patterns.begin(), remote.patterns.end());
      return new Json(std::move(remote.for_valijson));
    };
    auto release = [](const Json* document) { delete document; };

    try {
      valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
      // The parser takes ownership of its builders and deletes them.
      parser.addConstraintBuilder(std::string(detail::kFormatKeyword),
                                  new detail::FormatRuleBuilder());
      parser.addConstraintBuilder(std::string(detail::kMultipleOfKeyword),
                                  new detail::MultipleOfRuleBuilder());
      parser.addConstraintBuilder(std::string(detail::kPatternKeyword),
                                  new detail::PatternRuleBuilder());
      parser.addConstraintBuilder(std::string(detail::kUniqueItemsKeyword),
                                  new detail::UniqueItemsRuleBuilder());
      const valijson::adapters::NlohmannJsonAdapter adapter(for_valijson);
      parser.populateSchema(adapter, schema, fetch, release);
    } catch (const std::exception& e) {
      if (!unfetched.empty()) {
        return "the schema references " + Json(unfetched).dump() +
               ", a document outside it that the host does not fetch; copy what it needs "
               "under /definitions and reference that";
      }
      return std::string("the schema does not compile: ") + e.what();
    }
    for_valijson = Json();
    for (const auto& site : remote_patterns) {
      if (auto error = add_regex(site); !error.empty()) return error;
    }
    return "";
  }

  // Compiles a pattern into the table once; the error names where it sits.
  std::string add_regex(const detail::SchemaSite& site) {
    if (regexes.contains(site.text)) return "";
    try {
      regexes.emplace(site.text, detail::Regex(site.text));
    } catch (const std::invalid_argument& e) {
      return site.pointer + ": " + Json(site.text).dump() +
             " is not a valid regular expression (ECMAScript syntax): " + e.what();
    }
    return "";
  }

  // The program check_text() runs, compiled from the built tree on first use; null when that
  // failed, which sends every text to the DOM path.
  std::once_flag text_compiled;
  std::unique_ptr<const detail::TextProgram> text_program;
  std::atomic<const detail::TextProgram*> text_ready{nullptr};

  const detail::TextProgram* ensure_text_program() {
    std::call_once(text_compiled, [this] {
      try {
        text_program = std::make_unique<const detail::TextProgram>(
            detail::ExplainContext{index, regexes}, *schema.root());
      } catch (const std::exception&) {
        text_program.reset();
      }
      text_ready.store(text_program.get(), std::memory_order_release);
    });
    return text_program.get();
  }

  mutable std::mutex pool_mutex;
  mutable std::vector<std::unique_ptr<valijson::Validator>> pool;

  std::unique_ptr<valijson::Validator> acquire() const {
    {
      std::lock_guard lock(pool_mutex);
      if (!pool.empty()) {
        auto validator = std::move(pool.back());
        pool.pop_back();
        return validator;
      }
    }
    return std::make_unique<valijson::Validator>(valijson::Validator::kStrongTypes);
  }

  void release(std::unique_ptr<valijson::Validator> validator) const {
    std::lock_guard lock(pool_mutex);
    if (pool.size() < kPoolLimit) pool.push_back(std::move(validator));
  }

  // valijson's verdict; throws only on a regex the engine gives up on.
  bool verdict(const Json& instance, valijson::ValidationResults* results) const {
    auto validator = acquire();
    const valijson::adapters::NlohmannJsonAdapter adapter(instance);
    bool ok = false;
    try {
      ok = validator->validate(schema, adapter, results);
    } catch (...) {
      release(std::move(validator));
      throw;
    }
    release(std::move(validator));
    return ok;
  }
};

CompiledSchema::CompiledSchema(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledSchema::~CompiledSchema() = default;

const nlohmann::json& CompiledSchema::source() const { return impl_->source; }

const nlohmann::json& draft07_meta_schema() {
  static const Json meta = Json::parse(skillrt_embedded::schema("draft-07.schema"));
  return meta;
}

std::string join_messages(const std::vector<Violation>& violations) {
  std::string out;
  for (const auto& v : violations) {
    if (!out.empty()) out += "; ";
    out += v.message;
  }
  return out;
}

Result<std::shared_ptr<const CompiledSchema>> CompiledSchema::compile(
    const nlohmann::json& schema) {
  return compile_impl(schema, CompileOptions{}, true);
}

Result<std::shared_ptr<const CompiledSchema>> CompiledSchema::compile(
    const nlohmann::json& schema, const CompileOptions& options) {
  return compile_impl(schema, options, true);
}

Result<std::shared_ptr<const CompiledSchema>> CompiledSchema::compile_impl(
    const nlohmann::json& schema, const CompileOptions& options, bool check_meta) {
  auto impl = std::make_unique<Impl>();
  impl->source = schema;
  impl->options = options;
  auto remote_refs = impl->check(check_meta);
  if (!remote_refs) return std::unexpected(remote_refs.error());
  // The meta-schema is used at once; other documents must be fetched while the caller can
  // still be told that one is missing.
  if ((*remote_refs > 0 || !check_meta) && !impl->ensure_built()) {
    return fail(Code::kInvalidArgument, impl->build_error);
  }
  return std::shared_ptr<const CompiledSchema>(new CompiledSchema(std::move(impl)));
}

std::shared_ptr<const CompiledSchema> CompiledSchema::defer(nlohmann::json schema) {
  auto impl = std::make_unique<Impl>();
  impl->source = std::move(schema);
  impl->checked = false;
  return std::shared_ptr<const CompiledSchema>(new CompiledSchema(std::move(impl)));
}

bool CompiledSchema::is_valid(const nlohmann::json& instance) const {
  if (!impl_->ensure_built()) return false;
  const detail::ExplainContext context{impl_->index, impl_->regexes};
  try {
    return detail::conforms(context, *impl_->schema.root(), instance);
  } catch (const std::exception&) {
    return false;
  }
}

TextVerdict CompiledSchema::check_text(std::string_view text) const {
  // One walk instead of two where the program is ready and the schema and text allow it.
  if (const detail::TextProgram* program = impl_->text_ready.load(std::memory_order_acquire)) {
    if (const auto verdict = program->check_whole(text)) return *verdict;
  }
  const std::size_t root = json_scan::well_formed_root(text);
  if (root == json_scan::kNoPosition) return TextVerdict::kMalformed;
  return check_from(text, root);
}

TextVerdict CompiledSchema::check_well_formed_text(std::string_view text) const {
  return check_from(text, 0);
}

TextVerdict CompiledSchema::check_from(std::string_view text, std::size_t root) const {
  // After the first call only an atomic load stands before the program.
  const detail::TextProgram* program = impl_->text_ready.load(std::memory_order_acquire);
  if (program == nullptr) {
    // As is_valid(): a deferred schema that does not build accepts nothing.
    if (!impl_->ensure_built()) return TextVerdict::kInvalid;
    program = impl_->ensure_text_program();
    if (program == nullptr) return TextVerdict::kUnsupported;
  }
  return program->check(text, root);
}

bool CompiledSchema::valijson_verdict(const nlohmann::json& instance) const {
  if (!impl_->ensure_built()) return false;
  return impl_->verdict(instance, nullptr);
}

std::vector<Violation> CompiledSchema::validate(const nlohmann::json& instance) const {
  if (!impl_->ensure_built()) {
    return {Violation{"", "schema", "/: the schema cannot be used: " + impl_->build_error}};
  }
  const detail::ExplainContext context{impl_->index, impl_->regexes};
  std::vector<Violation> violations;
  try {
    if (detail::conforms(context, *impl_->schema.root(), instance)) return {};
    violations = detail::explain(context, *impl_->schema.root(), instance);
  } catch (const std::exception& e) {
    // The regex engine gives up when a pattern needs more backtracking than it allows.
    return {Violation{"", "schema",
                      std::string("/: the validator gave up on this value (") + e.what() +
                          "); simplify the value or the schema's patterns"}};
  }
  if (!violations.empty()) return violations;

  // The explanation found nothing where the verdict found a fault, which would be a bug here:
  // report valijson's own words rather than nothing, leaving out the echoes it adds at every
  // parent of a failure.
  valijson::ValidationResults results;
  try {
    impl_->verdict(instance, &results);
  } catch (const std::exception&) {
  }
  static constexpr std::string_view kEchoes[] = {
      "Failed to validate against schema associated with",
      "Failed to validate item #",
      "Failed to validate against child schema",
      "Failed to validate against any",
      "Failed to validate against additional properties schema",
      "Failed to validate against dependent schema",
      "Failed to validate against a conditional schema",
  };
  std::vector<Violation> all;
  for (const auto& error : results) {
    const std::string pointer = detail::pointer_from_valijson_context(error.context);
    Violation v{pointer, "schema", detail::display_pointer(pointer) + ": " + error.description};
    const bool echo = std::any_of(std::begin(kEchoes), std::end(kEchoes), [&](auto prefix) {
      return error.description.starts_with(prefix);
    });
    all.push_back(v);
    if (!echo && std::find(violations.begin(), violations.end(), v) == violations.end()) {
      violations.push_back(std::move(v));
    }
  }
  if (!violations.empty()) return violations;
  if (!all.empty()) return all;
  return {Violation{"", "schema", "/: the value does not match the schema"}};
}

}  // namespace skillrt::schema
