// Small text helpers the plugins share, so each does not keep its own copy: trimming, splitting
// an argument list at its top-level commas or a log into lines, and edit distance for "did you
// mean".
#ifndef SKILLRT_OPTOOLKIT_TEXT_HPP_
#define SKILLRT_OPTOOLKIT_TEXT_HPP_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::ops {

// `s` without leading and trailing whitespace (space, tab, CR, LF, VT, FF).
std::string trim(std::string_view s);
// The same, as a view into `s` (no copy): valid as long as the text `s` points into.
std::string_view trim_view(std::string_view s);

// "a, b=[1, 2], c='x,y'" -> {"a", "b=[1, 2]", "c='x,y'"}: split at commas outside (), [], {}
// and quotes (a backslash escapes the next character inside quotes), each part trimmed; empty
// parts dropped.
std::vector<std::string> split_top_level(std::string_view s);

// `text` split at '\n', each line without its trailing '\r' (logs pasted from Windows and
// terminals keep them); no empty last line for a text that ends in '\n'. The views point into
// `text`.
std::vector<std::string_view> split_lines(std::string_view text);

// Levenshtein distance (insertions, deletions, substitutions each cost 1).
size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace skillrt::ops

#endif  // SKILLRT_OPTOOLKIT_TEXT_HPP_
