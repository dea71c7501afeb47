// The proof that a fix changes no behaviour: the file before and after the fix must give identical
// significant token streams (whitespace and comments ignored), or for comment-only fixes,
// identical everything outside comments. JSON and YAML have no token proof; their parsed values
// must be equal instead.
#ifndef SKILLRT_CI_FIX_ENGINE_PROOF_HPP_
#define SKILLRT_CI_FIX_ENGINE_PROOF_HPP_

#include <cstdint>
#include <string>
#include <string_view>

#include "tokens.hpp"

namespace skillrt::ci_fix {

enum class ProofLevel {
  kWhitespace,  // significant tokens identical (comments and whitespace may change)
  kComment,     // significant tokens identical and every byte outside comments identical
  // Python: significant tokens identical except string literals, whose values must be equal (an
  // invalid escape keeps its backslash, so a backslash + d and an escaped backslash + d agree).
  kStringValue,
};

const char* proof_level_name(ProofLevel level);

struct ProofResult {
  bool passed = false;
  std::string method;   // "tokens", "json-value", "yaml-value" or "none"
  std::string detail;   // why it failed: the first differing tokens, with lines
  uint32_t line = 0;    // line of the first difference in the text before the fix (0: none)
  size_t compared = 0;  // significant tokens (or values) compared
};

// Compares two tokenized versions of a file. `before` and `after` are the texts the streams index.
ProofResult compare_streams(std::string_view before, const TokenStream& tb, std::string_view after,
                            const TokenStream& ta, ProofLevel level);

// Whole proof for languages without token streams (JSON, YAML) and a refusal for kNone.
ProofResult prove_values(Language lang, std::string_view before, std::string_view after);

// Whether `lang` can be proven at all (token stream or parsed value).
bool provable(Language lang);

}  // namespace skillrt::ci_fix

#endif  // SKILLRT_CI_FIX_ENGINE_PROOF_HPP_
