#include "cli/detail/indent.hpp"

namespace skillrt::cli::detail {
namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void new_line(std::string& out, int indent, int depth) {
  out += '\n';
  out.append(static_cast<size_t>(indent) * static_cast<size_t>(depth), ' ');
}

}  // namespace

std::string indent_json(std::string_view text, int indent) {
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  int depth = 0;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (is_ws(c)) {
      ++i;
      continue;
    }
    if (c == '"') {
      // Copied as written, escapes and all, up to the closing quote.
      size_t end = i + 1;
      while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
      out.append(text.substr(i, end + 1 - i));
      i = end + 1;
      continue;
    }
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      size_t next = i + 1;
      while (next < text.size() && is_ws(text[next])) ++next;
      if (next < text.size() && text[next] == close) {
        out += c;
        out += close;
        i = next + 1;
        continue;
      }
      out += c;
      new_line(out, indent, ++depth);
      ++i;
      continue;
    }
    if (c == '}' || c == ']') {
      new_line(out, indent, --depth);
      out += c;
      ++i;
      continue;
    }
    if (c == ',') {
      out += ',';
      new_line(out, indent, depth);
      ++i;
      continue;
    }
    if (c == ':') {
      out += ": ";
      ++i;
      continue;
    }
    // Numbers and literals.
    size_t end = i;
    while (end < text.size() && !is_ws(text[end]) && text[end] != ',' && text[end] != '}' &&
           text[end] != ']' && text[end] != ':') {
      ++end;
    }
    out.append(text.substr(i, end - i));
    i = end;
  }
  return out;
}

}  // namespace skillrt::cli::detail
