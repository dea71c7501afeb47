#include "patch.hpp"

#include <algorithm>

namespace skillrt::ci_fix {
namespace {

// A change of whole lines: old lines [lo, hi) (1-based, half-open) become `new_lines`.
struct Change {
  uint32_t lo = 0, hi = 0;
  std::vector<std::string> new_lines;  // each with its terminator, except maybe the last
};

std::vector<std::string> cut_lines(std::string_view s) {
  std::vector<std::string> out;
  size_t b = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n' || (s[i] == '\r' && (i + 1 >= s.size() || s[i + 1] != '\n'))) {
      out.emplace_back(s.substr(b, i + 1 - b));
      b = i + 1;
    }
  }
  if (b < s.size()) out.emplace_back(s.substr(b));
  return out;
}

bool at_line_start(const LineIndex& lines, size_t off) {
  uint32_t l = lines.line_of(off);
  return lines.start(l) == off;
}

std::vector<Change> changes_of(std::string_view before, const LineIndex& lines,
                               const std::vector<Edit>& edits) {
  // Line span [lo, hi) of each edit, then merge overlapping spans and rebuild their text.
  struct Span {
    uint32_t lo, hi;
    size_t first, last;  // edit indexes
  };
  std::vector<Span> spans;
  auto total = static_cast<uint32_t>(lines.count());
  for (size_t k = 0; k < edits.size(); ++k) {
    const Edit& e = edits[k];
    uint32_t lo, hi;
    bool whole = at_line_start(lines, e.begin) && at_line_start(lines, e.end) &&
                 (e.text.empty() || e.text.back() == '\n');
    if (whole) {
      lo = lines.line_of(e.begin);
      hi = e.end >= before.size() ? total + 1 : lines.line_of(e.end);
    } else {
      lo = lines.line_of(e.begin);
      uint32_t last = e.end > e.begin ? lines.line_of(e.end - 1) : lo;
      if (lo > total) lo = total;  // appending to a last line without newline
      if (last > total) last = total;
      hi = last + 1;
    }
    if (!spans.empty() &&
        (lo < spans.back().hi ||
         (lo == spans.back().hi && (lo == hi || spans.back().lo == spans.back().hi)))) {
      spans.back().hi = std::max(spans.back().hi, hi);
      spans.back().last = k;
    } else {
      spans.push_back({lo, hi, k, k});
    }
  }
  std::vector<Change> out;
  for (const Span& s : spans) {
    size_t b = lines.start(s.lo);
    size_t e = s.hi > total ? before.size() : lines.start(s.hi);
    std::string text;
    size_t pos = b;
    for (size_t k = s.first; k <= s.last; ++k) {
      text.append(before.substr(pos, edits[k].begin - pos));
      text.append(edits[k].text);
      pos = edits[k].end;
    }
    text.append(before.substr(pos, e - pos));
    Change c;
    c.lo = s.lo;
    c.hi = std::min(s.hi, total + 1);
    c.new_lines = cut_lines(text);
    out.push_back(std::move(c));
  }
  return out;
}

void emit_line(std::string* out, char sign, std::string_view line) {
  *out += sign;
  *out += line;
  if (line.empty() || (line.back() != '\n' && line.back() != '\r')) {
    *out += "\n\\ No newline at end of file\n";
  }
}

std::string range(uint32_t start, uint32_t count) {
  if (count == 1) return std::to_string(start);
  return std::to_string(start) + "," + std::to_string(count);
}

}  // namespace

std::string diff_hunks(std::string_view before, const LineIndex& lines,
                       const std::vector<Edit>& edits, int context) {
  std::vector<Change> changes = changes_of(before, lines, edits);
  std::string out;
  auto total = static_cast<uint32_t>(lines.count());
  auto ctx = static_cast<uint32_t>(context);
  auto old_line = [&](uint32_t l) {
    size_t b = lines.start(l);
    return before.substr(b, lines.end(l) - b);
  };
  long shift = 0;  // new line number - old line number before the current change
  size_t i = 0;
  while (i < changes.size()) {
    // Group changes whose context overlaps.
    size_t j = i;
    while (j + 1 < changes.size() && changes[j + 1].lo <= changes[j].hi + 2 * ctx) ++j;
    uint32_t from = changes[i].lo > ctx ? changes[i].lo - ctx : 1;
    uint32_t to = std::min(total + 1, changes[j].hi + ctx);  // exclusive
    std::string body;
    uint32_t old_count = 0, new_count = 0;
    uint32_t l = from;
    long group_shift = shift;
    for (size_t k = i; k <= j; ++k) {
      for (; l < changes[k].lo; ++l) {
        emit_line(&body, ' ', old_line(l));
        ++old_count;
        ++new_count;
      }
      for (; l < changes[k].hi; ++l) {
        emit_line(&body, '-', old_line(l));
        ++old_count;
      }
      for (const std::string& nl : changes[k].new_lines) {
        emit_line(&body, '+', nl);
        ++new_count;
      }
      shift += static_cast<long>(changes[k].new_lines.size()) -
               static_cast<long>(changes[k].hi - changes[k].lo);
    }
    for (; l < to; ++l) {
      emit_line(&body, ' ', old_line(l));
      ++old_count;
      ++new_count;
    }
    auto new_from = static_cast<uint32_t>(static_cast<long>(from) + group_shift);
    out += "@@ -" + range(old_count == 0 ? from - 1 : from, old_count) + " +" +
           range(new_count == 0 ? new_from - 1 : new_from, new_count) + " @@\n";
    out += body;
    i = j + 1;
  }
  return out;
}

std::string file_diff(const std::string& path, std::string_view before, const LineIndex& lines,
                      const std::vector<Edit>& edits, int context) {
  std::string hunks = diff_hunks(before, lines, edits, context);
  if (hunks.empty()) return "";
  return "diff --git a/" + path + " b/" + path + "\n--- a/" + path + "\n+++ b/" + path + "\n" +
         hunks;
}

uint32_t map_line(const LineIndex& before_lines, const std::vector<Edit>& edits,
                  const LineIndex& after_lines, uint32_t line) {
  size_t off = before_lines.start(line);
  long delta = 0;
  for (const Edit& e : edits) {
    if (e.begin > off) break;
    if (e.end <= off) {
      bool same_line_prefix =
          e.begin == e.end && e.begin == off && (e.text.empty() || e.text.back() != '\n');
      if (!same_line_prefix) {
        delta += static_cast<long>(e.text.size()) - static_cast<long>(e.end - e.begin);
      }
      continue;
    }
    // The line starts inside a rewritten region: it now lies where the region's text ends.
    long mapped = static_cast<long>(e.begin) + delta + static_cast<long>(e.text.size());
    return after_lines.line_of(static_cast<size_t>(std::max(0L, mapped)));
  }
  long mapped = static_cast<long>(off) + delta;
  return after_lines.line_of(static_cast<size_t>(std::max(0L, mapped)));
}

}  // namespace skillrt::ci_fix
