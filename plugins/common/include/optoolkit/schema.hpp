// The PyTorch function-schema language ("add.Tensor(Tensor self, Tensor other, *, Scalar
// alpha=1) -> Tensor") as a typed model, with a parser and a printer.
//
// The grammar is defined by torchgen's printer: a string is accepted iff it parses and prints
// back byte for byte. parse_schema() follows torchgen's splitting rules exactly (so it accepts and
// rejects the same strings) and accepts each part only in the spelling the printer writes, so
// every accepted schema satisfies print_schema(parse_schema(s)) == s without printing it.
#ifndef SKILLRT_OPTOOLKIT_SCHEMA_HPP_
#define SKILLRT_OPTOOLKIT_SCHEMA_HPP_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::ops {

// Which base type names a grammar accepts. Upstream PyTorch and op-plugin's vendored torchgen
// ("torchnpugen") disagree on a few names, so the set is a parameter.
enum BaseTypeSet : uint32_t {
  kUpstreamBaseTypes = 1u << 0,     // torchgen as shipped with PyTorch 2.x
  kTorchnpugenBaseTypes = 1u << 1,  // Ascend/op-plugin torchnpugen/model.py
};

// How an argument with a default is split into type, name and default.
enum class DefaultSplit {
  kEqualsFirst,  // upstream: split at the single '=', then the left part at its last space
  kLastSpace,    // torchnpugen: split at the last space, then the tail at '='
};

struct Grammar {
  uint32_t base_types = kUpstreamBaseTypes | kTorchnpugenBaseTypes;
  DefaultSplit default_split = DefaultSplit::kEqualsFirst;
  bool namespaces = true;  // "aten::f" parsed into namespace + name (upstream); else opaque
  // Further base type names to accept, e.g. one a newer torch adds before this table knows it.
  std::vector<std::string> extra_base_types;

  // Accepts what either reference parser accepts for base types, with upstream splitting.
  static Grammar permissive() { return Grammar{}; }
  static Grammar upstream() {
    return Grammar{kUpstreamBaseTypes, DefaultSplit::kEqualsFirst, true, {}};
  }
  static Grammar torchnpugen() {
    return Grammar{kTorchnpugenBaseTypes, DefaultSplit::kLastSpace, false, {}};
  }
};

// The base type names of one set, in torchgen's declaration order.
const std::vector<std::string_view>& base_type_names(BaseTypeSet set);
// Which sets contain `name` (0 when none).
uint32_t base_type_sets_containing(std::string_view name);

// `a`, `a!`, `a|b`, `a -> *`, `a! -> a|b`.
struct Annotation {
  std::string alias_set;  // one char per alias letter ("ab" for a|b); short, so never allocates
  bool is_write = false;
  std::string alias_set_after;  // '*' is the wildcard

  bool operator==(const Annotation& o) const {
    return alias_set == o.alias_set && is_write == o.is_write &&
           alias_set_after == o.alias_set_after;
  }
  bool operator!=(const Annotation& o) const { return !(*this == o); }
};

// A type is a base name followed by suffixes applied left to right: "int[]?" is
// Optional(List(int)), "int?[]" is List(Optional(int)).
struct TypeSuffix {
  enum Kind : uint8_t { kOptional, kList };
  Kind kind = kOptional;
  uint32_t size = 0;  // list size, 0 when unsized
  bool operator==(const TypeSuffix& o) const { return kind == o.kind && size == o.size; }
};

struct Type {
  std::string base;  // BaseTy name, or the full "__torch__.torch.classes.X" text
  bool custom_class = false;
  // The suffixes exactly as printed, e.g. "[]?" or "[2]"; empty for a plain type. Kept as text
  // (short, so stored inline) because types are built for every argument of every schema.
  std::string suffix;

  // The suffixes decoded, left to right.
  std::vector<TypeSuffix> suffixes() const;
  bool is_optional() const { return !suffix.empty() && suffix.back() == '?'; }
  bool is_list() const { return !suffix.empty() && suffix.back() == ']'; }
  bool is_plain(std::string_view name) const { return suffix.empty() && base == name; }
  bool operator==(const Type& o) const {
    return base == o.base && custom_class == o.custom_class && suffix == o.suffix;
  }
  bool operator!=(const Type& o) const { return !(*this == o); }
};

// Argument, Return and FunctionSchema have empty user-provided constructors so that
// value-initialization (vector::emplace_back(), optional::emplace()) runs only the member
// initializers; with implicit ones it first zeroes the whole struct, a measurable share of
// parsing, which builds one of each per argument, return and schema.
struct Argument {
  Argument() {}

  std::string name;
  Type type;
  std::optional<std::string> default_value;  // exactly as written, never evaluated
  std::optional<Annotation> annotation;
  bool kwarg_only = false;
  bool out = false;
  size_t column = 0;  // 1-based column of the argument in the parsed text

  bool is_write() const { return annotation && annotation->is_write; }
};

struct Return {
  Return() {}

  std::optional<std::string> name;
  Type type;
  std::optional<Annotation> annotation;
  size_t column = 0;  // 1-based column of the return in the parsed text

  bool is_write() const { return annotation && annotation->is_write; }
};

enum class SchemaKind { kFunctional, kInplace, kOut, kMutable, kScratch };
std::string_view to_string(SchemaKind kind);

struct OperatorName {
  std::string ns;    // "aten" in "aten::add"; empty when absent
  std::string base;  // "add" for "add_", "__iadd__" and "add_functional"
  bool inplace = false;
  bool dunder = false;
  bool functional_overload = false;
  std::string overload;

  // The name as written before the overload, e.g. "add_" or "__iadd__" (with namespace).
  std::string full_base() const;
  // "add_.Tensor" style: full_base() plus ".overload" when there is one.
  std::string qualified() const;
};

struct FunctionSchema {
  FunctionSchema() {}

  OperatorName name;
  // In schema order: positional, then kwarg-only, then out (the order torchgen prints).
  std::vector<Argument> arguments;
  std::vector<Return> returns;
  SchemaKind kind = SchemaKind::kFunctional;
  // Index of the positional argument torchgen treats as `self`, if any.
  std::optional<size_t> self_index;
  // Index of the first of the four TensorOptions kwarg-only arguments, if grouped.
  std::optional<size_t> tensor_options_index;
  // Base type sets whose names cover every type of this schema (0 when it uses a name only
  // Grammar::extra_base_types knows).
  uint32_t base_type_sets = kUpstreamBaseTypes | kTorchnpugenBaseTypes;

  bool has_kwarg_only_or_out() const;
};

// A rejected schema: 1-based column in the input and what was expected there.
struct SchemaError {
  size_t column = 0;
  std::string message;  // without the column prefix
  std::string to_string() const { return "column " + std::to_string(column) + ": " + message; }
};

class SchemaParseError : public std::runtime_error {
 public:
  explicit SchemaParseError(SchemaError error)
      : std::runtime_error(error.to_string()), error_(std::move(error)) {}
  const SchemaError& error() const { return error_; }

 private:
  SchemaError error_;
};

struct SchemaParseResult {
  std::optional<FunctionSchema> schema;
  SchemaError error;  // meaningful only when !schema
  bool ok() const { return schema.has_value(); }
};

SchemaParseResult parse_schema(std::string_view text, const Grammar& grammar = Grammar{});
// Throws SchemaParseError.
FunctionSchema parse_schema_or_throw(std::string_view text, const Grammar& grammar = Grammar{});

std::string print_type(const Type& type);
std::string print_annotation(const Annotation& annotation);
// The type as torchgen prints it inside an argument: "Tensor(a!)[]".
std::string print_annotated_type(const Type& type, const std::optional<Annotation>& annotation);
std::string print_argument(const Argument& argument);
std::string print_return(const Return& ret);
std::string print_schema(const FunctionSchema& schema);

}  // namespace skillrt::ops

#endif  // SKILLRT_OPTOOLKIT_SCHEMA_HPP_
