#include "markdown.hpp"

#include <algorithm>
#include <map>

#include "detail/text.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::doc_review {

namespace {

using detail::is_ident_start;

size_t indent_of(std::string_view l) {
  size_t n = 0;
  while (n < l.size() && (l[n] == ' ' || l[n] == '\t')) ++n;
  return n;
}

struct Fence {
  char ch = 0;
  size_t len = 0;
  size_t indent = 0;
  std::string info;
};

// "```python", "   ~~~~", "- ```bash" (a fence opening a list item) -> the fence.
bool open_fence(std::string_view l, Fence* f) {
  size_t i = indent_of(l);
  // A fence that opens a list item: "1. ```python", "- ```bash".
  if (i < l.size() && (l[i] == '-' || l[i] == '*' || l[i] == '+') && i + 1 < l.size() &&
      l[i + 1] == ' ') {
    i = i + 1 + indent_of(l.substr(i + 1));
  } else {
    size_t d = i;
    while (d < l.size() && detail::is_digit(l[d])) ++d;
    if (d > i && d + 1 < l.size() && (l[d] == '.' || l[d] == ')') && l[d + 1] == ' ')
      i = d + 1 + indent_of(l.substr(d + 1));
  }
  if (i >= l.size() || (l[i] != '`' && l[i] != '~')) return false;
  size_t run = 0;
  while (i + run < l.size() && l[i + run] == l[i]) ++run;
  if (run < 3) return false;
  std::string_view info = ops::trim_view(l.substr(i + run));
  if (l[i] == '`' && info.find('`') != std::string_view::npos) return false;
  f->ch = l[i];
  f->len = run;
  f->indent = indent_of(l);
  f->info = std::string(info);
  return true;
}

bool closes_fence(std::string_view l, const Fence& f) {
  const size_t i = indent_of(l);
  size_t run = 0;
  while (i + run < l.size() && l[i + run] == f.ch) ++run;
  return run >= f.len && ops::trim_view(l.substr(i + run)).empty();
}

bool is_delimiter_row(std::string_view l) {
  l = ops::trim_view(l);
  if (l.find('-') == std::string_view::npos) return false;
  bool pipe = false;
  for (char c : l) {
    if (c == '|') {
      pipe = true;
    } else if (c != '-' && c != ':' && c != ' ' && c != '\t') {
      return false;
    }
  }
  // "---" alone is a thematic break or a setext underline, not a table.
  return pipe;
}

// The list marker's end ("- ", "* ", "1. ", "1) ", "1、"), or 0 when the line is no list item.
size_t list_marker_end(std::string_view l) {
  size_t i = indent_of(l);
  if (i + 1 < l.size() && (l[i] == '-' || l[i] == '*' || l[i] == '+') &&
      (l[i + 1] == ' ' || l[i + 1] == '\t'))
    return i + 2;
  size_t d = i;
  while (d < l.size() && detail::is_digit(l[d])) ++d;
  if (d == i || d - i > 3 || d >= l.size()) return 0;
  if ((l[d] == '.' || l[d] == ')') && (d + 1 == l.size() || l[d + 1] == ' ')) return d + 1;
  if (l.substr(d, 3) == "\xE3\x80\x81") return d + 3;  // "、"
  return 0;
}

int atx_level(std::string_view l, std::string* text) {
  const size_t i = indent_of(l);
  if (i > 3) return 0;
  size_t n = 0;
  while (i + n < l.size() && l[i + n] == '#') ++n;
  if (n == 0 || n > 6) return 0;
  if (i + n < l.size() && l[i + n] != ' ' && l[i + n] != '\t') return 0;
  std::string_view rest = ops::trim_view(l.substr(i + n));
  // Closing #'s ("## Title ##").
  size_t e = rest.size();
  while (e > 0 && rest[e - 1] == '#') --e;
  if (e < rest.size() && (e == 0 || rest[e - 1] == ' ')) rest = ops::trim_view(rest.substr(0, e));
  *text = std::string(rest);
  return static_cast<int>(n);
}

// The line without blockquote markers ("> > text" -> "text"), trimmed.
std::string_view unquote(std::string_view l) {
  l = ops::trim_view(l);
  while (!l.empty() && l.front() == '>') l = ops::trim_view(l.substr(1));
  return l;
}

bool is_html_line(std::string_view l) {
  l = ops::trim_view(l);
  return l.size() > 1 && l[0] == '<' && (is_ident_start(l[1]) || l[1] == '/');
}

// Attribute values of id= and name= in the tags of a (code-masked) line.
void collect_ids(std::string_view l, std::vector<std::string>* out) {
  size_t i = 0;
  while ((i = l.find('<', i)) != std::string_view::npos) {
    if (i + 1 >= l.size() || !is_ident_start(l[i + 1])) {
      ++i;
      continue;
    }
    const size_t end = l.find('>', i);
    if (end == std::string_view::npos) return;
    const std::string_view tag = l.substr(i, end - i);
    for (const char* attr : {"id", "name"}) {
      size_t p = 0;
      const std::string key = attr;
      while ((p = tag.find(key, p)) != std::string_view::npos) {
        const bool word_start = p > 0 && (tag[p - 1] == ' ' || tag[p - 1] == '\t');
        size_t q = p + key.size();
        while (q < tag.size() && tag[q] == ' ') ++q;
        if (!word_start || q >= tag.size() || tag[q] != '=') {
          p += key.size();
          continue;
        }
        ++q;
        while (q < tag.size() && tag[q] == ' ') ++q;
        if (q < tag.size() && (tag[q] == '"' || tag[q] == '\'')) {
          const size_t close = tag.find(tag[q], q + 1);
          if (close != std::string_view::npos) out->emplace_back(tag.substr(q + 1, close - q - 1));
        }
        p = q;
      }
    }
    i = end + 1;
  }
}

std::string attribute(std::string_view tag, std::string_view key) {
  size_t p = 0;
  while ((p = tag.find(key, p)) != std::string_view::npos) {
    const bool word_start =
        p > 0 && (tag[p - 1] == ' ' || tag[p - 1] == '\t' || tag[p - 1] == '\n');
    size_t q = p + key.size();
    while (q < tag.size() && tag[q] == ' ') ++q;
    if (!word_start || q >= tag.size() || tag[q] != '=') {
      p += key.size();
      continue;
    }
    ++q;
    while (q < tag.size() && tag[q] == ' ') ++q;
    if (q < tag.size() && (tag[q] == '"' || tag[q] == '\'')) {
      const size_t close = tag.find(tag[q], q + 1);
      if (close != std::string_view::npos) return std::string(tag.substr(q + 1, close - q - 1));
    }
    return "";
  }
  return "";
}

// The index just past the ']' matching the '[' at `open`, or npos.
size_t match_bracket(std::string_view l, size_t open) {
  int depth = 0;
  for (size_t i = open; i < l.size(); ++i) {
    if (l[i] == '\\') {
      ++i;
      continue;
    }
    if (l[i] == '[') ++depth;
    if (l[i] == ']' && --depth == 0) return i + 1;
  }
  return std::string_view::npos;
}

// Parses "(target "title")" at `open`; returns the index past ')' or npos.
size_t parse_destination(std::string_view l, size_t open, std::string* target) {
  size_t i = open + 1;
  while (i < l.size() && l[i] == ' ') ++i;
  if (i < l.size() && l[i] == '<') {
    const size_t close = l.find('>', i);
    if (close == std::string_view::npos) return std::string_view::npos;
    *target = std::string(l.substr(i + 1, close - i - 1));
    i = close + 1;
  } else {
    int depth = 0;
    const size_t start = i;
    while (i < l.size()) {
      const char c = l[i];
      if (c == '\\' && i + 1 < l.size()) {
        i += 2;
        continue;
      }
      if (c == ' ' || c == '\t') break;
      if (c == '(') ++depth;
      if (c == ')') {
        if (depth == 0) break;
        --depth;
      }
      ++i;
    }
    *target = std::string(l.substr(start, i - start));
  }
  // Optional title, then ')'.
  while (i < l.size() && l[i] == ' ') ++i;
  if (i < l.size() && (l[i] == '"' || l[i] == '\'' || l[i] == '(')) {
    const char close_ch = l[i] == '(' ? ')' : l[i];
    const size_t close = l.find(close_ch, i + 1);
    if (close == std::string_view::npos) return std::string_view::npos;
    i = close + 1;
    while (i < l.size() && l[i] == ' ') ++i;
  }
  if (i >= l.size() || l[i] != ')') return std::string_view::npos;
  return i + 1;
}

void collect_links(std::string_view masked, std::string_view original, int line,
                   std::vector<Link>* out) {
  // Reference definition: "[ref]: target".
  {
    const size_t i = indent_of(masked);
    if (i <= 3 && i < masked.size() && masked[i] == '[') {
      const size_t close = match_bracket(masked, i);
      if (close != std::string_view::npos && close < masked.size() && masked[close] == ':' &&
          masked.substr(i, 2) != "[^") {
        std::string_view rest = ops::trim_view(masked.substr(close + 1));
        const size_t sp = rest.find_first_of(" \t");
        std::string target(rest.substr(0, sp));
        if (target.size() > 1 && target.front() == '<' && target.back() == '>')
          target = target.substr(1, target.size() - 2);
        if (!target.empty()) {
          out->push_back({line, std::string(original.substr(i + 1, close - i - 2)), target, false,
                          false, true});
          return;
        }
      }
    }
  }
  for (size_t i = 0; i < masked.size(); ++i) {
    const char c = masked[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    if (c == '[') {
      const size_t close = match_bracket(masked, i);
      if (close == std::string_view::npos || close >= masked.size() || masked[close] != '(')
        continue;
      std::string target;
      const size_t end = parse_destination(masked, close, &target);
      if (end == std::string_view::npos) continue;
      const bool image = i > 0 && masked[i - 1] == '!';
      // The text may hold an image ([![badge](img)](link)); its own link is read on its own.
      const std::string text(original.substr(i + 1, close - i - 2));
      out->push_back({line, text, target, image, false, false});
      const std::string_view inner = masked.substr(i + 1, close - i - 2);
      if (inner.find("](") != std::string_view::npos) {
        std::vector<Link> nested;
        collect_links(inner, original.substr(i + 1, close - i - 2), line, &nested);
        out->insert(out->end(), nested.begin(), nested.end());
      }
      i = end - 1;
      continue;
    }
    if (c == '<' && i + 1 < masked.size() && is_ident_start(masked[i + 1])) {
      const size_t end = masked.find('>', i);
      if (end == std::string_view::npos) break;
      const std::string_view tag = masked.substr(i, end - i + 1);
      const std::string name =
          detail::lower_ascii(tag.substr(1, std::min(tag.find_first_of(" \t>/"), tag.size()) - 1));
      if (name == "a") {
        const std::string href = attribute(tag, "href");
        if (!href.empty()) out->push_back({line, "", href, false, true, false});
      } else if (name == "img") {
        const std::string src = attribute(tag, "src");
        if (!src.empty()) out->push_back({line, "", src, true, true, false});
      }
      i = end;
    }
  }
}

}  // namespace

int Paragraph::line_at(size_t offset) const {
  int line = first_line;
  for (size_t k = 0; k < line_starts.size(); ++k)
    if (line_starts[k] <= offset) line = lines[k];
  return line;
}

int Page::heading_of(int line) const {
  int found = -1;
  for (size_t k = 0; k < headings.size(); ++k) {
    if (headings[k].line > line) break;
    found = static_cast<int>(k);
  }
  return found;
}

bool Page::has_anchor(std::string_view anchor) const {
  if (anchors.count(std::string(anchor))) return true;
  const std::string key = detail::loose_anchor_key(anchor);
  return !key.empty() && loose_anchors.count(key);
}

std::vector<std::string> table_cells(std::string_view row) {
  const std::string masked = detail::mask_code_spans(row, 'x');
  std::vector<std::string> cells;
  std::string_view m = ops::trim_view(masked);
  const size_t offset = static_cast<size_t>(m.data() - masked.data());
  std::string_view r = row.substr(offset, m.size());
  size_t start = 0;
  for (size_t i = 0; i <= m.size(); ++i) {
    if (i < m.size() && m[i] == '\\') {
      ++i;
      continue;
    }
    if (i == m.size() || m[i] == '|') {
      cells.emplace_back(ops::trim_view(r.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (!m.empty() && m.front() == '|' && !cells.empty()) cells.erase(cells.begin());
  if (!m.empty() && m.back() == '|' && m.size() > 1 && !cells.empty()) cells.pop_back();
  return cells;
}

Page parse_page(std::string_view text, std::filesystem::path path, std::string rel) {
  Page page;
  page.path = std::move(path);
  page.rel = std::move(rel);
  // A UTF-8 byte order mark would hide the first heading.
  if (detail::starts_with(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  page.lines = detail::split_lines(text);
  const size_t n = page.lines.size();
  page.kinds.assign(n, LineKind::kProse);

  size_t i = 0;
  if (n > 0 && ops::trim_view(page.lines[0]) == "---") {
    for (size_t k = 1; k < std::min(n, size_t{200}); ++k) {
      if (ops::trim_view(page.lines[k]) == "---" || ops::trim_view(page.lines[k]) == "...") {
        for (size_t j = 0; j <= k; ++j) page.kinds[j] = LineKind::kFrontMatter;
        i = k + 1;
        break;
      }
    }
  }

  bool in_fence = false, in_comment = false;
  Fence fence;
  CodeBlock block;
  std::vector<std::string> block_lines;
  for (; i < n; ++i) {
    const std::string& l = page.lines[i];
    const int line_no = static_cast<int>(i + 1);
    if (in_fence) {
      if (closes_fence(l, fence)) {
        page.kinds[i] = LineKind::kFence;
        in_fence = false;
        for (const auto& bl : block_lines) block.text += bl + "\n";
        page.blocks.push_back(block);
        continue;
      }
      page.kinds[i] = LineKind::kCode;
      const size_t strip = std::min(indent_of(l), fence.indent);
      block_lines.push_back(l.substr(strip));
      continue;
    }
    if (in_comment) {
      page.kinds[i] = LineKind::kComment;
      if (l.find("-->") != std::string::npos) in_comment = false;
      continue;
    }
    const std::string_view t = ops::trim_view(l);
    if (t.empty()) {
      page.kinds[i] = LineKind::kBlank;
      continue;
    }
    if (open_fence(l, &fence)) {
      page.kinds[i] = LineKind::kFence;
      in_fence = true;
      block = CodeBlock{};
      block.fence_line = line_no;
      block.first_line = line_no + 1;
      const std::string_view info = fence.info;
      std::string lang(info.substr(0, info.find_first_of(" \t{,")));
      if (!lang.empty() && lang.front() == '{') lang.clear();
      block.lang = detail::lower_ascii(lang);
      block_lines.clear();
      continue;
    }
    // A display formula: $$ on its own line opens and closes it; its text is not Markdown.
    if (detail::starts_with(t, "$$")) {
      page.kinds[i] = LineKind::kMath;
      if (t.size() > 2 && detail::ends_with(t, "$$") && t.size() >= 4) continue;  // $$ x $$
      size_t k = i + 1;
      while (k < n && !detail::ends_with(ops::trim_view(page.lines[k]), "$$"))
        page.kinds[k++] = LineKind::kMath;
      if (k < n) page.kinds[k] = LineKind::kMath;
      i = k;
      continue;
    }
    if (detail::starts_with(t, "<!--")) {
      page.kinds[i] = LineKind::kComment;
      if (t.find("-->") == std::string_view::npos) in_comment = true;
      continue;
    }
    std::string heading_text;
    if (const int level = atx_level(l, &heading_text)) {
      page.kinds[i] = LineKind::kHeading;
      page.headings.push_back({line_no, level, heading_text, "", ""});
      continue;
    }
    // Setext heading: a paragraph line underlined with === or ---.
    if (i > 0 && page.kinds[i - 1] == LineKind::kProse && list_marker_end(page.lines[i - 1]) == 0 &&
        !t.empty() &&
        (t.find_first_not_of('=') == std::string_view::npos ||
         t.find_first_not_of('-') == std::string_view::npos) &&
        indent_of(l) <= 3 && (i < 2 || page.kinds[i - 2] != LineKind::kProse)) {
      page.kinds[i - 1] = LineKind::kHeading;
      page.kinds[i] = LineKind::kHeading;
      page.headings.push_back({line_no - 1, t[0] == '=' ? 1 : 2,
                               std::string(ops::trim_view(page.lines[i - 1])), "", ""});
      continue;
    }
    // A thematic break (---, ***, ___) separates; it says nothing.
    if (t.size() >= 3 && t.find_first_not_of("-*_ ") == std::string_view::npos &&
        (t.find_first_not_of("- ") == std::string_view::npos ||
         t.find_first_not_of("* ") == std::string_view::npos ||
         t.find_first_not_of("_ ") == std::string_view::npos)) {
      page.kinds[i] = LineKind::kBlank;
      continue;
    }
    // A table, possibly inside a blockquote ("> | a | b |").
    if (l.find('|') != std::string::npos && i + 1 < n &&
        is_delimiter_row(unquote(page.lines[i + 1]))) {
      Table table;
      table.header_line = line_no;
      table.header_cells = static_cast<int>(table_cells(unquote(l)).size());
      table.delimiter_cells = static_cast<int>(table_cells(unquote(page.lines[i + 1])).size());
      page.kinds[i] = page.kinds[i + 1] = LineKind::kTable;
      size_t k = i + 2;
      for (; k < n; ++k) {
        const std::string_view row = unquote(page.lines[k]);
        if (row.empty() || row.find('|') == std::string_view::npos) break;
        if (open_fence(page.lines[k], &fence) || atx_level(page.lines[k], &heading_text)) break;
        page.kinds[k] = LineKind::kTable;
        table.rows.emplace_back(static_cast<int>(k + 1), static_cast<int>(table_cells(row).size()));
      }
      page.tables.push_back(table);
      i = k - 1;
      continue;
    }
    if (is_html_line(l)) {
      page.kinds[i] = LineKind::kHtml;
      continue;
    }
    page.kinds[i] = LineKind::kProse;
  }
  if (in_fence) {
    block.closed = false;
    for (const auto& bl : block_lines) block.text += bl + "\n";
    page.blocks.push_back(block);
  }

  // Headings: plain text and de-duplicated slugs.
  std::map<std::string, int> seen;
  for (Heading& h : page.headings) {
    h.plain = std::string(ops::trim_view(detail::strip_inline_markdown(h.raw)));
    std::string slug = detail::heading_slug(h.plain);
    const int count = seen[slug]++;
    if (count > 0) slug += "-" + std::to_string(count);
    h.slug = slug;
    page.anchors.insert(slug);
    if (page.title.empty() && h.level == 1) page.title = h.plain;
  }
  for (CodeBlock& b : page.blocks) b.heading = page.heading_of(b.fence_line);

  // Explicit anchors and links, from every line a renderer reads as Markdown or HTML.
  for (size_t k = 0; k < n; ++k) {
    const LineKind kind = page.kinds[k];
    if (kind == LineKind::kCode || kind == LineKind::kFence || kind == LineKind::kComment ||
        kind == LineKind::kFrontMatter || kind == LineKind::kBlank || kind == LineKind::kMath)
      continue;
    std::string masked = detail::mask_code_spans(page.lines[k]);
    // An inline comment hides what it holds.
    for (size_t c = masked.find("<!--"); c != std::string::npos; c = masked.find("<!--", c)) {
      const size_t e = masked.find("-->", c);
      const size_t stop = e == std::string::npos ? masked.size() : e + 3;
      for (size_t j = c; j < stop; ++j) masked[j] = ' ';
    }
    std::vector<std::string> ids;
    collect_ids(masked, &ids);
    for (auto& id : ids) page.anchors.insert(id);
    collect_links(masked, page.lines[k], static_cast<int>(k + 1), &page.links);
  }
  for (const auto& a : page.anchors) {
    const std::string key = detail::loose_anchor_key(a);
    if (!key.empty()) page.loose_anchors.insert(key);
  }

  // Paragraphs: runs of prose lines, a list item starting a new one.
  Paragraph para;
  bool para_quoted = false;
  auto flush = [&]() {
    if (!para.lines.empty()) page.paragraphs.push_back(para);
    para = Paragraph{};
  };
  for (size_t k = 0; k < n; ++k) {
    if (page.kinds[k] != LineKind::kProse) {
      flush();
      continue;
    }
    std::string_view l = page.lines[k];
    // Blockquote markers first ("> - item" is a list item inside a quote); entering or leaving
    // a quote starts a new paragraph.
    {
      std::string_view q = ops::trim_view(l);
      bool quoted = false;
      while (!q.empty() && q.front() == '>') {
        q = ops::trim_view(q.substr(1));
        quoted = true;
      }
      if (quoted) l = q;
      if (quoted != para_quoted) flush();
      para_quoted = quoted;
    }
    // "[!NOTE]" / "[!TIP]" admonition labels are not text.
    if (detail::starts_with(ops::trim_view(l), "[!") && detail::ends_with(ops::trim_view(l), "]")) {
      flush();
      continue;
    }
    const size_t marker = list_marker_end(l);
    if (marker > 0) flush();
    std::string_view body = marker > 0 ? l.substr(marker) : ops::trim_view(l);
    body = ops::trim_view(body);
    // Code spans and $math$ are kept between markers: one word each, never prose.
    const std::string masked = detail::mask_code_spans(body, '\x01');
    std::string compact;
    bool in_math = false;
    for (size_t c = 0; c < masked.size(); ++c) {
      if (masked[c] == '\x01') {
        // The span's own text, from the unmasked body, without its backticks.
        size_t e = c;
        while (e < masked.size() && masked[e] == '\x01') ++e;
        std::string_view span = std::string_view(body).substr(c, e - c);
        while (!span.empty() && span.front() == '`') span.remove_prefix(1);
        while (!span.empty() && span.back() == '`') span.remove_suffix(1);
        compact += kSpanOpen;
        compact += std::string(ops::trim_view(span));
        compact += kSpanClose;
        c = e - 1;
        continue;
      }
      if (masked[c] == '$' && (c == 0 || masked[c - 1] != '\\')) {
        compact += in_math ? kSpanClose : kSpanOpen;
        in_math = !in_math;
        continue;
      }
      compact.push_back(masked[c]);
    }
    if (in_math) compact += kSpanClose;
    if (para.lines.empty()) para.first_line = static_cast<int>(k + 1);
    para.line_starts.push_back(para.text.size());
    para.lines.push_back(static_cast<int>(k + 1));
    if (!para.text.empty()) para.text += ' ';
    para.text += detail::strip_inline_markdown(compact, true);
  }
  flush();
  return page;
}

}  // namespace skillrt::doc_review
