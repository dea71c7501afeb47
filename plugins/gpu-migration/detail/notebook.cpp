#include "detail/notebook.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <skillrt/sdk.hpp>

namespace skillrt::gpu_migration::detail {
namespace {

// Just enough of a JSON reader to know where values start and end; what they contain is left to
// nlohmann, which decodes the few values that matter (keys, cell types).
class JsonCursor {
 public:
  JsonCursor(std::string_view text, const std::string& path) : s_(text), path_(path) {}

  size_t pos() const { return i_; }

  void skip_ws() {
    while (i_ < s_.size() &&
           (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) {
      ++i_;
    }
  }

  bool peek(char c) {
    skip_ws();
    return i_ < s_.size() && s_[i_] == c;
  }

  void expect(char c) {
    if (!peek(c)) fail(std::string("expected '") + c + "'");
    ++i_;
  }

  // After '[' or '{' and each member: true while another member follows.
  bool more(char close, bool first) {
    if (peek(close)) {
      ++i_;
      return false;
    }
    if (!first) expect(',');
    return true;
  }

  std::string string_value() {
    skip_ws();
    const size_t b = i_;
    skip_string();
    try {
      return nlohmann::json::parse(s_.substr(b, i_ - b)).get<std::string>();
    } catch (const nlohmann::json::exception&) {
      fail("a string that does not decode");
    }
    return {};
  }

  void skip_value(int depth = 0) {
    if (depth > 512) fail("values nested too deeply");
    skip_ws();
    if (i_ >= s_.size()) fail("unexpected end");
    const char c = s_[i_];
    if (c == '"') {
      skip_string();
    } else if (c == '{') {
      ++i_;
      for (bool first = true; more('}', first); first = false) {
        skip_ws();
        skip_string();
        expect(':');
        skip_value(depth + 1);
      }
    } else if (c == '[') {
      ++i_;
      for (bool first = true; more(']', first); first = false) skip_value(depth + 1);
    } else {
      const size_t b = i_;
      while (i_ < s_.size() && std::string_view(",]} \n\r\t").find(s_[i_]) == std::string::npos) {
        ++i_;
      }
      if (i_ == b) fail("a value");
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw invalid_argument("notebook '" + path_ + "' cannot be rewritten: " + what + " at byte " +
                           std::to_string(i_) +
                           "; it does not read as nbformat 4 JSON. Nothing was changed; fix it "
                           "in Jupyter or leave it out of the scope.");
  }

 private:
  void skip_string() {
    if (i_ >= s_.size() || s_[i_] != '"') fail("expected a string");
    ++i_;
    while (i_ < s_.size() && s_[i_] != '"') i_ += s_[i_] == '\\' ? 2 : 1;
    if (i_ >= s_.size()) fail("an unterminated string");
    ++i_;
  }

  std::string_view s_;
  const std::string& path_;
  size_t i_ = 0;
};

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t e = text.find('\n', pos);
    if (e == std::string_view::npos) e = text.size();
    out.push_back(text.substr(pos, e - pos));
    pos = e + 1;
  }
  return out;
}

size_t line_start(std::string_view text, size_t offset) {
  const size_t nl = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

size_t line_end(std::string_view text, size_t offset) {
  const size_t nl = text.find('\n', offset);
  return nl == std::string_view::npos ? text.size() : nl + 1;
}

}  // namespace

std::vector<CellSourceSpan> locate_cell_sources(std::string_view json, const std::string& path) {
  std::vector<CellSourceSpan> out;
  JsonCursor c(json, path);
  c.expect('{');
  bool saw_cells = false;
  for (bool first = true; c.more('}', first); first = false) {
    const std::string key = c.string_value();
    c.expect(':');
    if (key != "cells") {
      c.skip_value();
      continue;
    }
    saw_cells = true;
    out.clear();
    c.expect('[');
    size_t index = 0;
    for (bool first_cell = true; c.more(']', first_cell); first_cell = false, ++index) {
      if (!c.peek('{')) {
        c.skip_value();
        continue;
      }
      c.expect('{');
      CellSourceSpan span;
      span.cell = index;
      bool has_source = false;
      for (bool first_key = true; c.more('}', first_key); first_key = false) {
        const std::string k = c.string_value();
        c.expect(':');
        if (k == "cell_type" && c.peek('"')) {
          span.cell_type = c.string_value();
        } else if (k == "source") {
          c.skip_ws();
          span.begin = c.pos();
          span.is_array = c.peek('[');
          c.skip_value();
          span.end = c.pos();
          has_source = true;
        } else {
          c.skip_value();
        }
      }
      if (has_source) out.push_back(span);
    }
  }
  c.skip_ws();
  if (c.pos() != json.size()) c.fail("text after the top-level object");
  if (!saw_cells) c.fail("no 'cells' array");
  return out;
}

std::vector<std::string> notebook_lines(std::string_view source) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < source.size()) {
    size_t e = source.find('\n', pos);
    e = e == std::string_view::npos ? source.size() : e + 1;
    out.emplace_back(source.substr(pos, e - pos));
    pos = e;
  }
  return out;
}

std::string render_cell_source(std::string_view original, std::string_view source) {
  const auto quoted = [](std::string_view s) { return nlohmann::json(std::string(s)).dump(); };
  if (original.empty() || original.front() != '[') return quoted(source);
  // The original's layout: what lies between '[' and the first element, and between the last
  // element and ']' (Jupyter writes a newline and the indentation there).
  const size_t first = original.find_first_not_of(" \t\r\n", 1);
  const size_t last = original.find_last_not_of(" \t\r\n", original.size() - 2);
  std::string lead = "\n";
  std::string trail = "\n";
  if (first != std::string_view::npos && original[first] != ']') {
    lead = std::string(original.substr(1, first - 1));
    trail = std::string(original.substr(last + 1, original.size() - 1 - (last + 1)));
  }
  const std::vector<std::string> lines = notebook_lines(source);
  if (lines.empty()) return "[]";
  std::string out = "[";
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) out += ',';
    out += lead;
    out += quoted(lines[i]);
  }
  out += trail;
  out += ']';
  return out;
}

std::vector<DiffLine> diff_lines(const std::vector<std::string_view>& a,
                                 const std::vector<std::string_view>& b, size_t max_cells) {
  std::vector<DiffLine> out;
  const size_t n = a.size(), m = b.size();
  if ((n + 1) * (m + 1) > max_cells) {
    for (std::string_view l : a) out.push_back({'-', std::string(l)});
    for (std::string_view l : b) out.push_back({'+', std::string(l)});
    return out;
  }
  // lcs[i][j]: longest common subsequence of a[i..] and b[j..].
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      at(i, j) = a[i] == b[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    }
  }
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      out.push_back({' ', std::string(a[i])});
      ++i;
      ++j;
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
      // Removals first within a change, as the rewrite's own script does.
      out.push_back({'-', std::string(a[i++])});
    } else {
      out.push_back({'+', std::string(b[j++])});
    }
  }
  return out;
}

NotebookEdit edit_notebook(std::string_view text, const std::vector<CellSourceSpan>& spans,
                           const std::map<size_t, std::string>& sources) {
  // Regions of whole lines around the changed values; values that share a line (a notebook
  // written on one line) share a region.
  struct Region {
    size_t begin;
    size_t end;
    std::vector<const CellSourceSpan*> spans;
  };
  std::vector<Region> regions;
  for (const CellSourceSpan& s : spans) {
    if (sources.count(s.cell) == 0) continue;
    const size_t b = line_start(text, s.begin);
    const size_t e = line_end(text, s.end);
    if (!regions.empty() && b < regions.back().end) {
      regions.back().end = std::max(regions.back().end, e);
      regions.back().spans.push_back(&s);
    } else {
      regions.push_back({b, e, {&s}});
    }
  }
  NotebookEdit out;
  size_t pos = 0;
  for (const Region& r : regions) {
    for (std::string_view l : split_lines(text.substr(pos, r.begin - pos))) {
      out.script.push_back({' ', std::string(l)});
    }
    out.text += text.substr(pos, r.begin - pos);
    std::string replaced;
    size_t at = r.begin;
    for (const CellSourceSpan* s : r.spans) {
      replaced += text.substr(at, s->begin - at);
      replaced += render_cell_source(text.substr(s->begin, s->end - s->begin), sources.at(s->cell));
      at = s->end;
    }
    replaced += text.substr(at, r.end - at);
    const std::vector<DiffLine> d =
        diff_lines(split_lines(text.substr(r.begin, r.end - r.begin)), split_lines(replaced));
    out.script.insert(out.script.end(), d.begin(), d.end());
    out.text += replaced;
    pos = r.end;
  }
  for (std::string_view l : split_lines(text.substr(pos))) {
    out.script.push_back({' ', std::string(l)});
  }
  out.text += text.substr(pos);
  mark_open_ends(&out.script, text, out.text);
  return out;
}

}  // namespace skillrt::gpu_migration::detail
