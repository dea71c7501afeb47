// A Python tokenizer and a reader of Meta/fake registrations (op_plugin/python/meta/*.py):
// decorated functions, their parameters (positional, keyword-only, defaults as written) and
// what each top-level return statement returns.
#ifndef SKILLRT_OP_ADAPTATION_PY_SCAN_HPP_
#define SKILLRT_OP_ADAPTATION_PY_SCAN_HPP_

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::opa {

struct PyToken {
  enum class Kind { kName, kNumber, kString, kOp, kNewline };
  Kind kind = Kind::kOp;
  std::string text;
  size_t line = 0;
  size_t indent = 0;        // indentation of the logical line the token belongs to
  bool line_start = false;  // first token of a logical line
};

// Tokens of a Python source. Comments are dropped; newlines inside brackets and after a
// backslash do not end a logical line; strings keep their prefix and quotes.
std::vector<PyToken> tokenize_python(std::string_view source);

struct PyParam {
  std::string name;
  std::optional<std::string> default_text;
  bool kwonly = false;
  bool varargs = false;  // *args or **kwargs
};

struct PyReturn {
  size_t line = 0;
  // Number of items returned; -1 when the statement returns one name or call whose arity
  // cannot be read from the text (a tuple variable, a helper's result).
  int count = -1;
  bool is_none = false;
  bool is_single_expression = false;
};

struct PyRegistration {
  std::string op;       // "npu_x" or "npu_x.overload", without "npu::"
  std::string library;  // "m", "m_aten" (impl) or "fake" (register_fake)
  size_t decorator_line = 0;
  std::string function;
  size_t def_line = 0;
  std::vector<PyParam> params;
  std::vector<PyReturn> returns;
  std::set<std::string> body_names;  // every name the body mentions
};

std::vector<PyRegistration> scan_registrations(std::string_view source);

}  // namespace skillrt::opa

#endif  // SKILLRT_OP_ADAPTATION_PY_SCAN_HPP_
