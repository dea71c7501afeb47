// Round-trip fuzz target of the PyTorch operator-schema parser (plugins/common: optoolkit's
// parse_schema and print_schema), which reads the `func:` lines of native_functions.yaml and
// op_plugin_functions.yaml from the repositories the plugins analyse. The grammar is defined by
// the printer: a string is accepted iff it parses and prints back byte for byte (schema.hpp). The
// input is the schema text, parsed with each of the three grammars (permissive, upstream,
// torchnpugen). Whatever the bytes, the parser must not crash or trip ASan/UBSan, and:
// - a rejection names a column inside the text (1 to size + 1) and says what was expected;
// - an accepted schema prints back as the input, byte for byte; the printed text parses again to
//   an equal structure (every field, columns included) which prints the same text;
// - each argument and return prints as the slice of the input at its column, and a type's suffix
//   decodes (Type::suffixes) to what re-encodes as the same text;
// - what the upstream grammar accepts, the permissive one (a superset of its base types, the same
//   splitting) accepts as the same structure.
// Built as a libFuzzer target by `make fuzz`, and run over its corpus by ctest.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "optoolkit/schema.hpp"

namespace {

namespace ops = skillrt::ops;

[[noreturn]] void broken(const char* grammar, const std::string& what, std::string_view text) {
  std::fprintf(stderr, "torch_schema (%s grammar): %s on: %.*s\n", grammar, what.c_str(),
               static_cast<int>(text.size() > 2000 ? 2000 : text.size()), text.data());
  std::abort();
}

bool same_argument(const ops::Argument& a, const ops::Argument& b) {
  return a.name == b.name && a.type == b.type && a.default_value == b.default_value &&
         a.annotation == b.annotation && a.kwarg_only == b.kwarg_only && a.out == b.out &&
         a.column == b.column;
}

bool same_return(const ops::Return& a, const ops::Return& b) {
  return a.name == b.name && a.type == b.type && a.annotation == b.annotation &&
         a.column == b.column;
}

bool same_name(const ops::OperatorName& a, const ops::OperatorName& b) {
  return a.ns == b.ns && a.base == b.base && a.inplace == b.inplace && a.dunder == b.dunder &&
         a.functional_overload == b.functional_overload && a.overload == b.overload;
}

// Field-by-field equality of two parsed schemas; the first difference, or nullptr.
const char* difference(const ops::FunctionSchema& a, const ops::FunctionSchema& b) {
  if (!same_name(a.name, b.name)) return "operator name";
  if (a.arguments.size() != b.arguments.size()) return "argument count";
  for (size_t i = 0; i < a.arguments.size(); ++i) {
    if (!same_argument(a.arguments[i], b.arguments[i])) return "an argument";
  }
  if (a.returns.size() != b.returns.size()) return "return count";
  for (size_t i = 0; i < a.returns.size(); ++i) {
    if (!same_return(a.returns[i], b.returns[i])) return "a return";
  }
  if (a.kind != b.kind) return "kind";
  if (a.self_index != b.self_index) return "self_index";
  if (a.tensor_options_index != b.tensor_options_index) return "tensor_options_index";
  if (a.base_type_sets != b.base_type_sets) return "base_type_sets";
  return nullptr;
}

// The suffix text the decoded suffixes stand for.
std::string encode_suffixes(const std::vector<ops::TypeSuffix>& suffixes) {
  std::string out;
  for (const ops::TypeSuffix& s : suffixes) {
    if (s.kind == ops::TypeSuffix::kOptional) {
      out += '?';
    } else {
      out += '[';
      if (s.size != 0) out += std::to_string(s.size);
      out += ']';
    }
  }
  return out;
}

void check_piece(const char* grammar, const char* what, const std::string& printed, size_t column,
                 std::string_view text) {
  if (column == 0 || column - 1 > text.size() ||
      text.substr(column - 1, printed.size()) != printed) {
    broken(grammar,
           std::string(what) + " '" + printed + "' is not the text at its column " +
               std::to_string(column),
           text);
  }
}

void check_type(const char* grammar, const ops::Type& type, std::string_view text) {
  if (encode_suffixes(type.suffixes()) != type.suffix) {
    broken(grammar, "type suffix '" + type.suffix + "' does not decode to itself", text);
  }
}

// Parses `text` with `grammar` and checks the round trip; returns the parsed schema, if any.
std::optional<ops::FunctionSchema> round_trip(const char* name, const ops::Grammar& grammar,
                                              std::string_view text) {
  ops::SchemaParseResult first = ops::parse_schema(text, grammar);
  if (!first.ok()) {
    if (first.error.column == 0 || first.error.column > text.size() + 1) {
      broken(name, "error column " + std::to_string(first.error.column) + " outside the text",
             text);
    }
    if (first.error.message.empty()) broken(name, "error without a message", text);
    return std::nullopt;
  }
  const ops::FunctionSchema& schema = *first.schema;
  const std::string printed = ops::print_schema(schema);
  if (printed != text) broken(name, "accepted, but prints back as '" + printed + "'", text);
  const ops::SchemaParseResult second = ops::parse_schema(printed, grammar);
  if (!second.ok()) {
    broken(name, "the printed text does not parse: " + second.error.to_string(), text);
  }
  if (const char* what = difference(schema, *second.schema)) {
    broken(name, std::string("the printed text parses to another ") + what, text);
  }
  if (ops::print_schema(*second.schema) != printed) {
    broken(name, "the second print differs from the first", text);
  }
  for (const ops::Argument& a : schema.arguments) {
    check_piece(name, "argument", ops::print_argument(a), a.column, text);
    check_type(name, a.type, text);
  }
  for (const ops::Return& r : schema.returns) {
    check_piece(name, "return", ops::print_return(r), r.column, text);
    check_type(name, r.type, text);
  }
  return std::move(first.schema);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto permissive = round_trip("permissive", ops::Grammar::permissive(), text);
  const auto upstream = round_trip("upstream", ops::Grammar::upstream(), text);
  round_trip("torchnpugen", ops::Grammar::torchnpugen(), text);
  if (upstream) {
    if (!permissive) broken("permissive", "rejects what the upstream grammar accepts", text);
    if (const char* what = difference(*upstream, *permissive)) {
      broken("permissive", std::string("reads the upstream grammar's schema with another ") + what,
             text);
    }
  }
  return 0;
}
