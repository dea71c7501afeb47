// Text utilities shared by the fixers, the patch writer and the proofs: line index, UTF-8 checks,
// character columns, edits, globs.
#ifndef SKILLRT_CI_FIX_ENGINE_TEXT_HPP_
#define SKILLRT_CI_FIX_ENGINE_TEXT_HPP_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::ci_fix {

// Byte offsets of every line of a text. Lines are 1-based in the API.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  size_t count() const { return starts_.size(); }  // a final line without newline counts
  // Offset of the first byte of line `line` (1-based); text size for line count()+1.
  size_t start(uint32_t line) const;
  // Offset just past the line's content (before "\n" or "\r\n"); start() for empty lines.
  size_t content_end(uint32_t line) const;
  // Offset just past the line's terminator (start of the next line).
  size_t end(uint32_t line) const;
  std::string_view content(uint32_t line) const;
  std::string_view terminator(uint32_t line) const;
  // The line holding `offset` (1-based); count()+1 for the end of a text ending in a newline.
  uint32_t line_of(size_t offset) const;
  bool ends_with_newline() const { return ends_with_newline_; }

 private:
  std::string_view text_;
  std::vector<size_t> starts_;
  bool ends_with_newline_ = false;
};

// An edit of the original text: replace [begin, end) with `text`.
struct Edit {
  uint32_t begin = 0;
  uint32_t end = 0;
  std::string text;
  bool operator==(const Edit& o) const {
    return begin == o.begin && end == o.end && text == o.text;
  }
};

// Applies sorted, non-overlapping edits.
std::string apply_edits(std::string_view text, const std::vector<Edit>& edits);
// Whether two edits overlap (two insertions at one point with different text count as overlap).
bool edits_overlap(const Edit& a, const Edit& b);

bool valid_utf8(std::string_view s);
// Byte offset, within `line`, of the 1-based character column `col` (flake8 counts code points).
size_t byte_of_column(std::string_view line, uint32_t col);
bool is_blank(std::string_view s);  // only spaces, tabs, form feeds
bool is_hspace(char c);

// fnmatch-style glob: '*' (no '/'), '**' (any depth), '?'. A pattern without '/' matches the
// file name; one with '/' matches the whole relative path.
bool glob_match(std::string_view pattern, std::string_view path);

// The dominant line terminator of a text ("\n" unless CRLF lines outnumber LF lines).
std::string_view dominant_eol(std::string_view text);

// Tabs and line breaks written as \t, \n, \r, for messages that quote source text.
std::string shown(std::string_view s);
std::vector<std::string> split_lines(std::string_view s);  // without terminators
bool starts_with(std::string_view s, std::string_view p);
bool ends_with(std::string_view s, std::string_view p);

}  // namespace skillrt::ci_fix

#endif  // SKILLRT_CI_FIX_ENGINE_TEXT_HPP_
