// Text helpers for doc-review: UTF-8 walking, CJK classes, URL decoding, heading slugs.
// Documentation in this field mixes Chinese and English in one line, so every length and
// language decision here works on code points, not bytes.
#ifndef SKILLRT_DOC_REVIEW_DETAIL_TEXT_HPP_
#define SKILLRT_DOC_REVIEW_DETAIL_TEXT_HPP_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::doc_review::detail {

// The code point at `*i`, advancing `*i` past it; an invalid byte reads as U+FFFD and advances
// by one, so a damaged page never stops a scan.
char32_t next_code_point(std::string_view s, size_t* i);
void append_utf8(std::string* out, char32_t cp);

// Han ideographs (what a Chinese reader counts as characters).
bool is_han(char32_t cp);
// Han plus kana and Hangul: characters that carry a word's worth of meaning each.
bool is_cjk(char32_t cp);
// Full-width and CJK punctuation (。，、：（）【】 ...).
bool is_cjk_punct(char32_t cp);
size_t count_han(std::string_view s);

bool is_ident_start(char c);
bool is_ident_char(char c);
bool is_upper(char c);
bool is_lower(char c);
bool is_digit(char c);

std::string lower_ascii(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);
bool iequals(std::string_view a, std::string_view b);
// Case-insensitive (ASCII) substring test.
bool icontains(std::string_view haystack, std::string_view needle);
std::vector<std::string> split_lines(std::string_view text);

// "%E4%BD%BF" -> UTF-8 bytes; malformed escapes stay as written.
std::string percent_decode(std::string_view s);

// At most `max_chars` code points of `s`, with "..." when cut; whitespace runs collapsed.
std::string excerpt(std::string_view s, size_t max_chars = 160);

// The anchor GitHub and GitCode give a heading: lower-case ASCII, punctuation (ASCII and
// full-width) dropped except '-' and '_', spaces to '-'. Letters and digits of any script stay.
std::string heading_slug(std::string_view plain_heading);
// A looser key for anchors: lower-case, every character that is not a letter or digit dropped.
// Renderers disagree on punctuation; two anchors with the same loose key are the same anchor.
std::string loose_anchor_key(std::string_view anchor);

// Replaces each inline code span (`...`, ``...``) with `fill` repeated to the span's byte
// length, so byte offsets stay valid for the rest of the line.
std::string mask_code_spans(std::string_view line, char fill = ' ');

// A heading or sentence without Markdown: code spans keep their content, links keep their text,
// images and HTML tags go, emphasis markers go. With `spans_marked`, text between '\x02' and
// '\x03' (code spans a caller already marked) is copied as it is.
std::string strip_inline_markdown(std::string_view text, bool spans_marked = false);

}  // namespace skillrt::doc_review::detail

#endif  // SKILLRT_DOC_REVIEW_DETAIL_TEXT_HPP_
