// Token streams for the proofs: a fix is accepted only when the file's significant tokens (no
// whitespace, no comments) are identical before and after it. One tokenizer per language the
// skill can prove: Python, C/C++ and prose documents (Markdown, reStructuredText).
#ifndef SKILLRT_CI_FIX_ENGINE_TOKENS_HPP_
#define SKILLRT_CI_FIX_ENGINE_TOKENS_HPP_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::ci_fix {

// What kind of file a path is, as far as the proofs are concerned.
enum class Language { kPython, kCpp, kMarkdown, kRst, kJson, kYaml, kNone };

const char* language_name(Language lang);

enum class TokKind : uint8_t {
  // Significant: compared by every proof.
  kName,
  kNumber,
  kString,  // every literal with its prefix and quotes; raw strings and f-strings whole
  kOp,
  kNewline,           // Python: end of a logical line
  kIndent,            // Python
  kDedent,            // Python
  kEnd,               // end of input
  kError,             // anything the language would reject; compared like any token
  kDirectiveEnd,      // C/C++: the newline that ends a preprocessor directive (empty at the end)
  kHeaderName,        // C/C++: <...> after #include
  kDirectiveComment,  // a comment tools obey: coding:, type:, noqa, NOLINT, clang-format off...
  kBom,
  // Layout: ignored by the proofs.
  kComment,  // also prose in documents
  kNl,       // a newline that ends no statement
};

inline bool is_significant(TokKind k) { return k != TokKind::kComment && k != TokKind::kNl; }
const char* kind_name(TokKind k);

enum TokFlag : uint8_t {
  kTokSpliced = 1,     // C/C++: contains a backslash-newline that phase 2 removes
  kTokAdjacent = 2,    // no whitespace or comment between the previous significant token and this
  kTokSensitive = 4,   // C/C++: whether whitespace separates this token from the previous one is
                       // observable (macro argument that may be stringified, directive text)
  kTokPositional = 8,  // its line is part of its meaning (Python shebang, coding cookie)
};

struct Token {
  uint32_t begin = 0;  // byte offsets into the source
  uint32_t end = 0;
  uint32_t line = 1;  // 1-based line of `begin`
  TokKind kind = TokKind::kError;
  uint8_t flags = 0;
};

struct TokenStream {
  Language lang = Language::kNone;
  std::vector<Token> tokens;
};

TokenStream tokenize_python(std::string_view src);
TokenStream tokenize_cpp(std::string_view src);
TokenStream tokenize_doc(std::string_view src, Language lang);  // kMarkdown or kRst
TokenStream tokenize(std::string_view src, Language lang);      // dispatch; empty for others

// The text a token stands for: splices removed (C/C++), line endings normalised inside Python
// strings (Python reads source with universal newlines, so "\r\n" in a literal is "\n").
std::string token_text(std::string_view src, const Token& tok, Language lang);

// Whether `text` (a comment's text) is one that tools obey, so that changing it could change
// what a tool or interpreter does. `line` is the comment's line (coding cookies count only on 1-2).
bool is_directive_comment(std::string_view text, uint32_t line, Language lang);

}  // namespace skillrt::ci_fix

#endif  // SKILLRT_CI_FIX_ENGINE_TOKENS_HPP_
