// Loaders for the YAML files that carry operator schemas, upstream and in op-plugin:
//   native_functions.yaml   (PyTorch)   a list of `- func: ...` entries
//   derivatives.yaml        (PyTorch)   a list of `- name: ...` entries
//   op_plugin_functions.yaml (op-plugin) all_version + sections
//   official/autograd/custom/symint/quant derivatives.yaml        (op-plugin) all_version +
//   backward: list of `- name: ...` entries
// Every entry keeps the file and line of its schema key and of every other key, so a tool can
// cite its evidence. Values are kept as written (scalars as strings), never evaluated.
#ifndef SKILLRT_OPTOOLKIT_SOURCES_HPP_
#define SKILLRT_OPTOOLKIT_SOURCES_HPP_

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "optoolkit/schema.hpp"

namespace skillrt::ops {

using Json = nlohmann::json;

enum class SourceFormat {
  kUnknown,
  kNativeFunctions,      // upstream native_functions.yaml
  kDerivatives,          // upstream tools/autograd/derivatives.yaml
  kOpPluginFunctions,    // op-plugin op_plugin/config/op_plugin_functions.yaml
  kOpPluginDerivatives,  // op-plugin op_plugin/config/derivatives.yaml
};
std::string_view to_string(SourceFormat format);

struct SourceLocation {
  std::string file;
  size_t line = 0;  // 1-based
};

struct SourceIssue {
  SourceLocation where;
  std::string message;
};

// A version field of op-plugin (acl_op, op_api, exposed, internal_format_opapi, dvm, sparse,
// derivatives' version) in one of its four written forms, expanded against all_version the way
// op-plugin's codegen does.
struct VersionSpec {
  enum class Form { kKeyword, kRange, kSingle, kCommaList, kInvalid };
  Form form = Form::kInvalid;
  std::string written;                // as written, e.g. "[v2.1, newest]"
  std::vector<std::string> versions;  // expanded
  std::string problem;                // why it could not be expanded; empty when fine
};
std::string_view to_string(VersionSpec::Form form);
VersionSpec parse_version_spec(const Json& value, const std::vector<std::string>& all_version);

// One entry that carries a schema (`func:` or `name:`).
struct OpEntry {
  std::string schema_text;
  SchemaParseResult parsed;
  SourceLocation where;  // the line of the schema key
  std::string section;   // op-plugin section ("official", "custom", ...) or "backward"; else ""
  Json keys;             // every key of the entry with its value as written
  std::map<std::string, size_t> key_lines;

  // "add.Tensor": the parsed name, or the text before '(' when the schema did not parse.
  std::string op_name() const;
  const Json* key(std::string_view name) const;
  // A scalar key as text; empty when absent or not a scalar.
  std::string text(std::string_view name) const;
  // A key that holds a list, a single scalar or a ", "-separated scalar (variants, tags,
  // autogen): the items.
  std::vector<std::string> items(std::string_view name) const;
  // dispatch: one (dispatch key, kernel) pair per key, "CPU, CUDA: f" split into two pairs.
  std::vector<std::pair<std::string, std::string>> dispatch() const;
  // structured / manual_cpp_binding style booleans: nullopt when absent or not a YAML boolean.
  std::optional<bool> flag(std::string_view name) const;
};

struct OpSource {
  SourceFormat format = SourceFormat::kUnknown;
  std::string file;                      // as given to the loader (or the embedded name)
  std::vector<std::string> all_version;  // op-plugin files only
  std::vector<OpEntry> entries;
  std::vector<SourceIssue> issues;  // entries that do not parse, unknown sections, bad versions
  Json top_level;                   // top-level keys other than the entry lists (op-plugin)

  // Entries whose op_name() equals `name` (several for op-plugin's version-split duplicates).
  std::vector<const OpEntry*> find(std::string_view name) const;
  // Up to `limit` op names closest to `name` (edit distance, then shared prefix).
  std::vector<std::string> nearest(std::string_view name, size_t limit = 5) const;
};

class SourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses YAML text. `file` names it in evidence. The format is detected from the structure
// unless given. Schema grammar: upstream formats use Grammar::upstream() plus torchnpugen's
// extra base types; op-plugin formats use Grammar::torchnpugen(). Throws SourceError when the
// text is not YAML or has none of the known shapes.
OpSource load_source_text(std::string_view text, std::string file,
                          SourceFormat format = SourceFormat::kUnknown);
OpSource load_source_file(const std::string& path, SourceFormat format = SourceFormat::kUnknown);

// A file path, or a checkout in which one of the known files exists at its usual place
// (aten/src/ATen/native/native_functions.yaml, op_plugin/config/op_plugin_functions.yaml,
// torchgen/packaged/ATen/native/native_functions.yaml). Throws SourceError naming what was tried.
std::string resolve_source_path(const std::string& path_or_checkout);

// The grammar the loaders use for a format.
Grammar grammar_for(SourceFormat format);

}  // namespace skillrt::ops

#endif  // SKILLRT_OPTOOLKIT_SOURCES_HPP_
