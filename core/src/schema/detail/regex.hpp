// The `pattern` and `patternProperties` regular expressions of a schema, compiled once with
// PCRE2 (JIT where the machine allows) to ECMA-262 semantics as far as PCRE2 offers them.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace skillrt::schema::detail {

// The engine stopped before deciding (its match or depth limit on a pathological pattern).
struct RegexGaveUp : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Empty when `text` is a regular expression in ECMA-262's strict (Unicode) grammar as far as
// PCRE2 checks it, with no escape of a letter ECMA-262 does not define (\Z, \A, \z, \G, \h);
// otherwise what is wrong and where.
std::string ecma_regex_problem(std::string_view text);

class Regex {
 public:
  // Throws std::invalid_argument naming the offset and PCRE2's reason when `pattern` does not
  // compile.
  explicit Regex(std::string_view pattern);

  // True when some part of `text` matches (JSON Schema patterns are not anchored). Throws
  // RegexGaveUp. Safe to call from any number of threads at once.
  bool search(std::string_view text) const;

 private:
  struct Code;
  std::shared_ptr<const Code> code_;  // shared: valijson copies the rules that hold one
};

}  // namespace skillrt::schema::detail
