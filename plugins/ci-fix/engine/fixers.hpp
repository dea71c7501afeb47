// The whitelisted fixers: each turns one finding into edits of the original text (candidates),
// or explains why it will not (a refusal). Candidates are proven by the engine, not here.
#ifndef SKILLRT_CI_FIX_ENGINE_FIXERS_HPP_
#define SKILLRT_CI_FIX_ENGINE_FIXERS_HPP_

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model.hpp"
#include "text.hpp"
#include "tokens.hpp"

namespace skillrt::ci_fix {

enum class LineKind : uint8_t { kBlank, kComment, kCode, kInToken };

// Everything a fixer may look at for one file (all of it about the original text).
struct FileContext {
  std::string rel_path;
  Language lang = Language::kNone;
  std::string_view text;
  const LineIndex* lines = nullptr;
  const TokenStream* tokens = nullptr;
  std::vector<LineKind> line_kinds;  // index 0 is line 1
  std::vector<uint32_t> sig_index;   // indexes of significant tokens in `tokens`
  std::string eol = "\n";            // terminator for inserted lines
  const TypoTable* typos = nullptr;
  std::set<std::string> identifier_words;  // lower-case identifiers and their _-separated parts
  // clang-format's replacements for this file, when clang-format ran on it.
  const std::vector<Finding>* clang_format = nullptr;
  // pycodestyle's max-line-length from the repository's config (79 by default): a Python spacing
  // fix that would push a line past it trades one finding for another (E501) and is refused.
  int max_line_length = 79;
  std::string clang_format_error;  // why it did not run, when it did not
  // Python: the continuation-line findings (E12x, E131) of this file as (line, code); the
  // continuation fixer re-indents these rows together, carrying the rows that hang from them.
  std::vector<std::pair<uint32_t, std::string>> continuation;
  // Whether the repository's flake8 config reports W503 / W504: moving an operator to the other
  // side of a break trades one for the other when both are on.
  bool w503_enabled = false;
  bool w504_enabled = false;
};

// Builds line kinds, identifier words and the significant-token index from `tokens`.
void prepare_context(FileContext* ctx);

struct Candidate {
  std::vector<size_t> findings;  // finding ids it fixes
  std::string klass;
  std::string fixer;
  ProofLevel level = ProofLevel::kWhitespace;
  std::vector<Edit> edits;  // sorted, non-overlapping, in original coordinates
  uint32_t line = 0;        // first line touched
  std::string what;         // one line: what the fix does
  bool file_level = false;  // one candidate covers every finding of this fixer in the file
};

struct Refusal {
  std::string why;
  std::string suggestion;
  uint32_t line = 0;  // when the refusal is about part of a finding (a hunk), its line
};

struct FixerOutput {
  std::vector<Candidate> candidates;
  std::vector<Refusal> refusals;
  std::string nothing_to_do;  // set when the finding no longer applies to the file
};

FixerOutput run_fixer(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                      const FixClass& klass);

// Findings of the built-in checks for one file: trailing whitespace, final newline, CRLF, tabs,
// and comment/prose typos from the typo table.
std::vector<Finding> builtin_check(const FileContext& ctx, const std::string& check);

// Python: whether the edits (all of them, sorted: the accepted ones and a candidate) push `line`
// past max-line-length when it was within it. Returns the reason, or empty.
std::string too_long(const FileContext& ctx, uint32_t line, const std::vector<Edit>& edits);

// The order in which fix classes are applied (structural edits first, so that smaller edits
// inside a region they rewrote are recognised as already done).
int class_priority(const std::string& klass);

}  // namespace skillrt::ci_fix

#endif  // SKILLRT_CI_FIX_ENGINE_FIXERS_HPP_
