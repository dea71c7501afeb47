// readable 读得懂: the page renders as intended and reads without effort. Tables keep their
// columns, code fences close, headings stay in one language, sentences stay short.
#include <set>

#include "checks.hpp"
#include "detail/text.hpp"

namespace skillrt::doc_review {

namespace {

using detail::is_ident_char;

void check_tables(const ReviewScope& scope, const Page& page) {
  for (const Table& t : page.tables) {
    if (t.delimiter_cells != t.header_cells) {
      scope.add({Axis::kReadable, Severity::kWarning, "broken-table", page.rel, t.header_line,
                 "the table's header has " + std::to_string(t.header_cells) +
                     " cells but its delimiter row has " + std::to_string(t.delimiter_cells) +
                     "; renderers show it as plain text",
                 detail::excerpt(page.line(t.header_line)), "", "",
                 "give the |---| row one cell per header cell"});
      continue;
    }
    std::vector<int> bad_lines;
    int example_cells = 0;
    for (const auto& [line, cells] : t.rows) {
      if (cells == t.header_cells) continue;
      if (bad_lines.empty()) example_cells = cells;
      bad_lines.push_back(line);
    }
    if (bad_lines.empty()) continue;
    std::string lines;
    for (size_t k = 0; k < bad_lines.size() && k < 8; ++k)
      lines += (k ? ", " : "") + std::to_string(bad_lines[k]);
    if (bad_lines.size() > 8) lines += ", ...";
    scope.add({Axis::kReadable, Severity::kWarning, "broken-table", page.rel, bad_lines[0],
               std::to_string(bad_lines.size()) + " row(s) of the table at line " +
                   std::to_string(t.header_line) + " do not have the header's " +
                   std::to_string(t.header_cells) + " cells (line " + lines + "; the first has " +
                   std::to_string(example_cells) +
                   "); extra cells are dropped and missing ones "
                   "shift the columns",
               detail::excerpt(page.line(bad_lines[0])), "", "",
               "make every row have " + std::to_string(t.header_cells) +
                   " cells (escape a literal '|' inside a cell as '\\|')"});
  }
}

void check_fences(const ReviewScope& scope, const Page& page) {
  for (const CodeBlock& b : page.blocks) {
    if (b.closed) continue;
    scope.add({Axis::kReadable, Severity::kWarning, "unclosed-code-fence", page.rel, b.fence_line,
               "the code block opened here is never closed, so the rest of the page renders as "
               "code",
               detail::excerpt(page.line(b.fence_line)), "", "",
               "close the block with a matching fence line"});
  }
}

// Plain English words of a heading (identifiers, code spans, HTML tags and file names left out)
// and how many of them are function words (the, of, to, ...): function words are what make
// a heading a mix of two languages rather than a Chinese heading naming technical terms.
struct EnglishWords {
  int plain = 0;
  int function_words = 0;
};

EnglishWords english_words(std::string_view heading) {
  static const std::set<std::string> kFunction = {
      "the", "a",   "an", "of",   "to",   "for",  "with", "and",   "or",   "in", "on", "is",
      "are", "how", "by", "from", "your", "this", "that", "using", "into", "at", "be", "not"};
  std::string text = detail::mask_code_spans(heading, ' ');
  // HTML tags (<a id="...">) are not words a reader sees; a parenthesis holds an expansion
  // or a gloss ("MLA（Multi-head Latent Attention）"), which is meant to be the other language.
  for (const auto& [open, close] : {std::pair<std::string, std::string>{"<", ">"},
                                    {"(", ")"},
                                    {"\xEF\xBC\x88", "\xEF\xBC\x89"}}) {
    for (size_t p = text.find(open); p != std::string::npos; p = text.find(open, p)) {
      const size_t e = text.find(close, p);
      if (e == std::string::npos) break;
      for (size_t k = p; k < e + close.size(); ++k) text[k] = ' ';
    }
  }
  EnglishWords out;
  size_t i = 0;
  while (i < text.size()) {
    if (!detail::is_ident_start(text[i]) && text[i] != '\\') {
      ++i;
      continue;
    }
    size_t e = i;
    bool plain = true;
    while (e < text.size() && (is_ident_char(text[e]) || text[e] == '.' || text[e] == '-' ||
                               text[e] == '\\' || text[e] == '/')) {
      const char c = text[e];
      // Identifiers (torch_npu, npu.set_device, experimental\_config), numbers and paths.
      if (c == '_' || c == '.' || c == '\\' || c == '/' || detail::is_digit(c)) plain = false;
      // CamelCase and ALLCAPS are names, not words.
      if (e > i && detail::is_upper(c)) plain = false;
      ++e;
    }
    if (plain) {
      ++out.plain;
      if (kFunction.count(detail::lower_ascii(text.substr(i, e - i)))) ++out.function_words;
    }
    i = e;
  }
  return out;
}

void check_headings(const ReviewScope& scope, const Page& page) {
  for (const Heading& h : page.headings) {
    if (detail::count_han(h.raw) < 2) continue;
    // A quoted diagnostic ("问题2：ImportError: libhccl.so: cannot open ...") is not prose.
    bool quoted = false;
    for (const char* w : {"Error", "error:", "Exception", "Traceback", "Warning:", "failed"})
      quoted = quoted || h.raw.find(w) != std::string::npos;
    if (quoted) continue;
    const EnglishWords words = english_words(h.raw);
    if (!(words.function_words >= 1 && words.plain >= 2) && words.plain < 4) continue;
    scope.add({Axis::kReadable, Severity::kInfo, "mixed-language-heading", page.rel, h.line,
               "the heading mixes a Chinese phrase with an English one (" +
                   std::to_string(words.plain) +
                   " English words); readers scanning a table of "
                   "contents read one language",
               detail::excerpt(page.line(h.line)), "", "",
               "write the heading in the page's language; keep code names in backticks"});
  }
}

// Units: one per CJK character, two per Latin word, number or code span (a Latin word carries
// about as much as two Chinese characters).
int sentence_units(std::string_view s) {
  int units = 0;
  bool in_word = false;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == kSpanOpen) {
      const size_t close = s.find(kSpanClose, i);
      i = close == std::string_view::npos ? s.size() : close + 1;
      units += 2;
      in_word = false;
      continue;
    }
    const char32_t cp = detail::next_code_point(s, &i);
    if (detail::is_cjk(cp)) {
      ++units;
      in_word = false;
    } else if (cp < 0x80 && is_ident_char(static_cast<char>(cp))) {
      if (!in_word) units += 2;
      in_word = true;
    } else if (cp == '.' || cp == '-' || cp == '\'') {
      // inside a word or a number: same word
    } else {
      in_word = false;
    }
  }
  return units;
}

// The sentence as a reader sees it: code spans back in backticks.
std::string shown_text(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == kSpanOpen || c == kSpanClose) {
      out += '`';
    } else {
      out += c;
    }
  }
  return out;
}

void check_sentences(const ReviewScope& scope, const Page& page) {
  const int limit = scope.limits.long_sentence_units;
  for (const Paragraph& para : page.paragraphs) {
    const std::string& t = para.text;
    size_t start = 0;
    for (size_t i = 0; i <= t.size();) {
      if (i < t.size() && t[i] == kSpanOpen) {
        const size_t close = t.find(kSpanClose, i);
        i = close == std::string::npos ? t.size() : close + 1;
        continue;
      }
      bool end = i == t.size();
      size_t next = i + 1;
      if (!end) {
        const std::string_view rest = std::string_view(t).substr(i);
        // 。！？ end a sentence; so do . ! ? followed by a space or the end.
        for (const char* stop : {"\xE3\x80\x82", "\xEF\xBC\x81", "\xEF\xBC\x9F"}) {
          if (detail::starts_with(rest, stop)) {
            end = true;
            next = i + 3;
          }
        }
        if (!end && (t[i] == '.' || t[i] == '!' || t[i] == '?') &&
            (i + 1 == t.size() || t[i + 1] == ' ')) {
          end = true;
          next = i + 1;
        }
      }
      if (!end) {
        ++i;
        continue;
      }
      const std::string_view sentence = std::string_view(t).substr(start, i - start);
      const int units = sentence_units(sentence);
      if (units > limit) {
        const int line = para.line_at(start);
        const std::string shown = shown_text(sentence);
        scope.add({Axis::kReadable, Severity::kInfo, "long-sentence", page.rel, line,
                   "a sentence of " + std::to_string(units) + " units (limit " +
                       std::to_string(limit) +
                       "; one per Chinese character, two per English word or code span)",
                   detail::excerpt(shown, 120), "", "",
                   "split it: one statement per sentence, conditions and exceptions in their own "
                   "sentence or a list"});
      }
      start = next;
      i = next;
    }
  }
}

}  // namespace

void check_readable(const ReviewScope& scope) {
  for (const Page& page : scope.pages) {
    if (scope.cancelled && scope.cancelled()) return;
    check_tables(scope, page);
    check_fences(scope, page);
    check_headings(scope, page);
    check_sentences(scope, page);
  }
}

}  // namespace skillrt::doc_review
