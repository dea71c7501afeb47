// Reading one Markdown page into what the checks need: line kinds, headings with their anchors,
// fenced code blocks, links (Markdown and HTML), explicit anchors, tables and prose paragraphs.
// The reader is line-based and forgiving: documentation pages are often half Markdown and half
// HTML exported from another tool, and a review must read them as a renderer would, not reject
// them.
#ifndef SKILLRT_DOC_REVIEW_MARKDOWN_HPP_
#define SKILLRT_DOC_REVIEW_MARKDOWN_HPP_

#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::doc_review {

enum class LineKind {
  kProse,
  kBlank,
  kHeading,
  kFence,    // an opening or closing ``` / ~~~ line
  kCode,     // inside a fenced block
  kTable,    // a table row, its header or its delimiter row
  kComment,  // inside <!-- ... -->
  kFrontMatter,
  kHtml,  // a line that is only HTML tags (exported tables, anchors)
  kMath,  // inside a $$ ... $$ display formula
};

struct Heading {
  int line = 0;  // 1-based
  int level = 0;
  std::string raw;    // as written, without the #'s
  std::string plain;  // without Markdown
  std::string slug;   // GitHub-style anchor, de-duplicated with -1, -2 ...
};

struct CodeBlock {
  int fence_line = 0;  // the opening fence, 1-based
  int first_line = 0;  // the first content line
  std::string lang;    // info string's first word, lower-case
  std::string text;    // content with the fence's indentation removed
  int heading = -1;    // index of the heading above it, -1 when none
  bool closed = true;
};

struct Link {
  int line = 0;
  std::string text;    // link text or alt text
  std::string target;  // as written (before decoding)
  bool image = false;
  bool html = false;        // <a href> / <img src>
  bool definition = false;  // [ref]: target
};

struct Table {
  int header_line = 0;
  int header_cells = 0;
  int delimiter_cells = 0;
  std::vector<std::pair<int, int>> rows;  // (line, cells) of the body rows
};

// Consecutive prose lines read as one paragraph (or one list item).
constexpr char kSpanOpen = '\x02';
constexpr char kSpanClose = '\x03';

struct Paragraph {
  int first_line = 0;
  std::vector<int> lines;  // 1-based line numbers
  // Plain text, lines joined. Code spans and $math$ are kept between kSpanOpen and kSpanClose,
  // so checks can skip them (acronyms) or count each as one word (sentence length).
  std::string text;
  std::vector<size_t> line_starts;  // offset in `text` where each line begins
  int line_at(size_t offset) const;
};

struct Page {
  std::filesystem::path path;  // as found on disk
  std::string rel;             // shown in findings: relative to the docs root, '/'-separated
  std::vector<std::string> lines;
  std::vector<LineKind> kinds;
  std::vector<Heading> headings;
  std::vector<CodeBlock> blocks;
  std::vector<Link> links;
  std::vector<Table> tables;
  std::vector<Paragraph> paragraphs;
  std::set<std::string> anchors;        // heading slugs and explicit ids/names
  std::set<std::string> loose_anchors;  // loose_anchor_key() of each of them
  std::string title;                    // the first level-1 heading's plain text, else ""

  // The heading a line belongs to (-1 before the first heading).
  int heading_of(int line) const;
  const std::string& line(int n) const { return lines[static_cast<size_t>(n - 1)]; }
  LineKind kind(int n) const { return kinds[static_cast<size_t>(n - 1)]; }
  bool has_anchor(std::string_view anchor) const;
};

Page parse_page(std::string_view text, std::filesystem::path path, std::string rel);

// The cells of a table row, split at unescaped '|' outside code spans, outer pipes dropped.
std::vector<std::string> table_cells(std::string_view row);

}  // namespace skillrt::doc_review

#endif  // SKILLRT_DOC_REVIEW_MARKDOWN_HPP_
