// What the fixer families share: token and line lookups, the candidate constructor, the check
// that a fix keeps a Python line within max-line-length, and the fixers run_fixer dispatches to
// (each defined in the engine/fix_<family>.cpp of its family).
#ifndef SKILLRT_CI_FIX_ENGINE_FIXER_KIT_HPP_
#define SKILLRT_CI_FIX_ENGINE_FIXER_KIT_HPP_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fixers.hpp"

namespace skillrt::ci_fix::detail {

bool is_word_char(unsigned char c);
std::string lower(std::string_view s);
Candidate make(const Finding&, size_t id, const Rule& rule, const FixClass& klass, uint32_t line,
               std::string what);

// The significant or comment token that starts exactly at `offset`, or nullptr.
const Token* token_at(const FileContext& ctx, size_t offset, bool comments);
// The significant token that ends exactly at `offset`.
const Token* token_ending_at(const FileContext& ctx, size_t offset);
// Comment tokens that begin on `line`.
std::vector<const Token*> comments_on(const FileContext& ctx, uint32_t line);
// The maximal run of blanks around `offset` within the line [lb, le).
std::pair<size_t, size_t> blank_run(std::string_view text, size_t offset, size_t lb, size_t le);
// Resolves a finding's 1-based character column to a byte offset in the file.
bool offset_of(const FileContext& ctx, const Finding& f, size_t* off);

LineKind kind_of(const FileContext& ctx, uint32_t line);
// Column width of leading whitespace, tabs to the next multiple of 8 as Python counts them.
int width_of(std::string_view ws);
std::string_view leading_ws(std::string_view line);
// UTF-8 characters in `s`.
size_t char_count(std::string_view s);
// Python: would the edits push `line` past max-line-length (it was within before)? Returns the
// refusal reason, or empty.
std::string too_long_impl(const FileContext& ctx, uint32_t line, const std::vector<Edit>& edits);

// Whether [b, e) of `t` is a whole word (no word character on either side).
bool word_boundary(std::string_view t, size_t b, size_t e);
// What a byte of the file belongs to, for typo and tab fixes.
enum class Region { kComment, kDirective, kString, kCode, kLayout };
Region region_at(const FileContext& ctx, size_t off);

// ---- the fixers, by family ----

// fix_whitespace.cpp
void strip_trailing(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                    const FixClass& klass, FixerOutput* out);
void final_newline(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                   const FixClass& klass, FixerOutput* out, bool only_add, bool trim_blank);
void crlf(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
          const FixClass& klass, FixerOutput* out);
void tabs_to_spaces(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                    const FixClass& klass, FixerOutput* out);
// fix_blank_lines.cpp
void blank_lines(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                 const FixClass& klass, FixerOutput* out);
// fix_indentation.cpp
void reindent(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
              const FixClass& klass, FixerOutput* out);
void comment_indent(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                    const FixClass& klass, FixerOutput* out);
// fix_spacing.cpp
void token_spacing(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                   const FixClass& klass, FixerOutput* out);
// fix_comments.cpp
void comment_prefix(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                    const FixClass& klass, FixerOutput* out);
void typo(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
          const FixClass& klass, FixerOutput* out);
// fix_tool_edits.cpp
void clang_format_edit(const FileContext& ctx, const Finding& f, const Finding& repl, size_t id,
                       const Rule& rule, const FixClass& klass, FixerOutput* out);
void replacement_hunks(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                       const FixClass& klass, FixerOutput* out);
// fix_continuation.cpp
void continuation_indent(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                         const FixClass& klass, FixerOutput* out);
void redundant_backslash(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                         const FixClass& klass, FixerOutput* out);
void escape_backslash(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                      const FixClass& klass, FixerOutput* out);
void move_operator(const FileContext& ctx, const Finding& f, size_t id, const Rule& rule,
                   const FixClass& klass, FixerOutput* out);

}  // namespace skillrt::ci_fix::detail

#endif  // SKILLRT_CI_FIX_ENGINE_FIXER_KIT_HPP_
