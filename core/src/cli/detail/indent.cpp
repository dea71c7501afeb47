#include "cli/detail/indent.hpp"

#include "common/json_scan.hpp"

namespace skillrt::cli::detail {
namespace {

void new_line(std::string& out, int indent, int depth) {
  out += '\n';
  out.append(static_cast<size_t>(indent) * static_cast<size_t>(depth), ' ');
}

}  // namespace

std::string indent_json(std::string_view text, int indent) {
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  int depth = 0;
  size_t i = json_scan::skip_space(text, 0);
  while (i < text.size()) {
    const char c = text[i];
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      const size_t next = json_scan::skip_space(text, i + 1);
      out += c;
      if (next < text.size() && text[next] == close) {
        out += close;
        i = next + 1;
      } else {
        new_line(out, indent, ++depth);
        i = next;
      }
    } else if (c == '}' || c == ']') {
      new_line(out, indent, --depth);
      out += c;
      ++i;
    } else if (c == ',') {
      out += ',';
      new_line(out, indent, depth);
      ++i;
    } else if (c == ':') {
      out += ": ";
      ++i;
    } else {
      // A string, number or literal, copied as written.
      const size_t end = json_scan::skip_value(text, i);
      out.append(text.substr(i, end - i));
      i = end;
    }
    i = json_scan::skip_space(text, i);
  }
  return out;
}

}  // namespace skillrt::cli::detail
