// Unified diffs built from edits (no general diff needed: the edits say what changed).
#ifndef SKILLRT_CI_FIX_ENGINE_PATCH_HPP_
#define SKILLRT_CI_FIX_ENGINE_PATCH_HPP_

#include <string>
#include <string_view>
#include <vector>

#include "text.hpp"

namespace skillrt::ci_fix {

// The hunks ("@@ -a,b +c,d @@" and their lines) turning `before` into apply_edits(before, edits).
// `edits` sorted and non-overlapping. Lines keep their own terminators; a last line without one
// is followed by "\ No newline at end of file".
std::string diff_hunks(std::string_view before, const LineIndex& lines,
                       const std::vector<Edit>& edits, int context);

// A git-style file diff: "diff --git a/p b/p", "--- a/p", "+++ b/p" and the hunks.
std::string file_diff(const std::string& path, std::string_view before, const LineIndex& lines,
                      const std::vector<Edit>& edits, int context);

// Maps a 1-based line of `before` to its line after the edits (the line holding the same
// first byte, or the line where the content moved to).
uint32_t map_line(const LineIndex& before_lines, const std::vector<Edit>& edits,
                  const LineIndex& after_lines, uint32_t line);

}  // namespace skillrt::ci_fix

#endif  // SKILLRT_CI_FIX_ENGINE_PATCH_HPP_
