// A reader of op-plugin kernel sources: function definitions at namespace scope (op_api,
// acl_op), their parameter types in a canonical spelling, and the aclnn names their bodies use.
#ifndef SKILLRT_OP_ADAPTATION_CPP_SCAN_HPP_
#define SKILLRT_OP_ADAPTATION_CPP_SCAN_HPP_

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "optoolkit/schema.hpp"

namespace skillrt::opa {

struct CppParam {
  std::string type;  // canonical: namespaces dropped, no spaces except after "const"
  std::string name;
};

struct CppFunction {
  std::string ns;  // innermost named namespace ("op_api", "acl_op")
  std::string name;
  std::string return_type;  // canonical
  std::vector<CppParam> params;
  size_t line = 0;
  std::vector<std::pair<std::string, size_t>> exec_calls;    // EXEC_NPU_CMD* first argument
  std::vector<std::pair<std::string, size_t>> compat_calls;  // DO_COMPATIBILITY first argument
  std::set<std::string> body_identifiers;
  // Scalar locals declared without a value (`aclDataType y_acltype;`), passed to EXEC_NPU_CMD,
  // and read where some path from the declaration has not assigned them.
  struct MaybeUninitialized {
    std::string name;
    size_t decl_line = 0;
    size_t read_line = 0;
  };
  std::vector<MaybeUninitialized> maybe_uninitialized;
};

std::vector<CppFunction> scan_cpp(std::string_view source);

// Type aliases a source declares (`using name = type;`, `typedef type name;`), canonical.
using TypeAliases = std::map<std::string, std::string>;
TypeAliases scan_cpp_aliases(std::string_view source);

// "const at::Tensor &" -> "const Tensor&"; "c10::optional<at::Tensor>" -> "optional<Tensor>".
std::string canonical_cpp_type(std::string_view text);

// The C++ parameter type torchgen's native signature gives a schema argument, canonical; empty
// when the type has no known mapping.
std::string expected_cpp_type(const ops::Argument& arg);
std::string expected_cpp_return(const ops::FunctionSchema& schema);
// The type as the compiler sees it, for comparing a definition with a declaration: aliases
// expanded (the source's own and c10's IntArrayRef, TensorList, OptionalIntArrayRef, ...),
// `T const&` written `const T&`, and top-level const of a by-value parameter dropped (it is not
// part of the function's type).
std::string cpp_type_key(std::string_view canonical_type, const TypeAliases& aliases);

// Parameter types equal under the mapping (value vs const reference is not significant for
// non-tensor types; OptionalIntArrayRef and optional<IntArrayRef> are one type).
bool cpp_types_match(const std::string& expected, const std::string& found);
// The C++ function name: base name (with in-place '_'), "_out" for out overloads, "_symint"
// when any argument is a SymInt.
std::string expected_cpp_name(const ops::FunctionSchema& schema);
bool has_symint(const ops::FunctionSchema& schema);

}  // namespace skillrt::opa

#endif  // SKILLRT_OP_ADAPTATION_CPP_SCAN_HPP_
