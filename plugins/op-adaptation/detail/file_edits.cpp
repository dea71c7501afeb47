#include "detail/file_edits.hpp"

#include <algorithm>
#include <cctype>

#include "detail/text.hpp"
#include "optoolkit/sources.hpp"

namespace skillrt::opa::detail {

std::string version_text(const Json& spec) {
  if (spec.is_string()) return spec.get<std::string>();
  std::vector<std::string> parts;
  for (const Json& v : spec) parts.push_back(v.get<std::string>());
  return "[" + detail::join(parts, ", ") + "]";
}

std::string json_list(const Json& list) {
  std::vector<std::string> parts;
  for (const Json& v : list) parts.push_back(v.dump());
  return "[" + detail::join(parts, ", ") + "]";
}

Json baseline_versions(const Json& spec, const std::vector<std::string>& all) {
  if (spec.is_string() && spec.get<std::string>() == "all_version")
    return Json::array({"all_version"});
  if (spec.is_array() && spec.size() == 2 && spec[1] == "newest") return spec;
  return Json(ops::parse_version_spec(spec, all).versions);
}

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) != 0) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

}  // namespace

std::string yaml_scalar(const std::string& s) {
  if (is_identifier(s)) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// Inserts `block` (full lines) at the end of top-level section `section`, creating it at the
// end of the file when absent. Item indentation follows the section's first item.
std::string insert_in_section(const std::string& text, const std::string& section,
                              const std::string& entry_lines_at_indent0, std::string* indent_used) {
  const std::vector<std::string> lines = detail::split_lines(text);
  size_t sec = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == section + ":" || detail::starts_with(lines[i], section + ": ")) sec = i;
  }
  std::string indent = "  ";
  if (sec == lines.size()) {
    std::string out = text;
    if (!out.empty() && out.back() != '\n') out += '\n';
    out += "\n" + section + ":\n";
    for (const std::string& l : detail::split_lines(entry_lines_at_indent0)) {
      out += (l.empty() ? "" : indent + l) + "\n";
    }
    *indent_used = indent;
    return out;
  }
  size_t end = lines.size();
  for (size_t i = sec + 1; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (!l.empty() && l[0] != ' ' && l[0] != '#' && l[0] != '-' && l[0] != '\t') {
      end = i;
      break;
    }
    if (detail::trim(l).rfind("- ", 0) == 0 && indent == "  " && i == sec + 1) {
      indent = l.substr(0, l.find('-'));
    }
  }
  for (size_t i = sec + 1; i < end; ++i) {
    const std::string t = detail::trim(lines[i]);
    if (detail::starts_with(t, "- ")) {
      indent = lines[i].substr(0, lines[i].find('-'));
      break;
    }
  }
  size_t last = end;
  while (last > sec + 1 && detail::trim(lines[last - 1]).empty()) --last;
  std::vector<std::string> out(lines.begin(), lines.begin() + static_cast<long>(last));
  out.push_back("");
  for (const std::string& l : detail::split_lines(entry_lines_at_indent0)) {
    out.push_back(l.empty() ? "" : indent + l);
  }
  out.insert(out.end(), lines.begin() + static_cast<long>(last), lines.end());
  *indent_used = indent;
  std::string joined = detail::join(out, "\n");
  if (!text.empty() && text.back() == '\n') joined += '\n';
  return joined;
}

// [open, close] offsets of the JSON array that is the value of "key" inside the text range.
bool find_json_list(const std::string& text, const std::string& key, size_t from, size_t* open,
                    size_t* close) {
  const size_t k = text.find("\"" + key + "\"", from);
  if (k == std::string::npos) return false;
  size_t p = k + key.size() + 2;
  while (p < text.size() &&
         (std::isspace(static_cast<unsigned char>(text[p])) != 0 || text[p] == ':'))
    ++p;
  if (p >= text.size() || text[p] != '[') return false;
  *open = p;
  *close = text.find(']', p);
  return *close != std::string::npos;
}

std::string line_indent(const std::string& text, size_t pos) {
  const size_t b = text.rfind('\n', pos);
  const size_t start = b == std::string::npos ? 0 : b + 1;
  size_t e = start;
  while (e < text.size() && (text[e] == ' ' || text[e] == '\t')) ++e;
  return text.substr(start, e - start);
}

// Adds "name" to the list of `version` in the allowlist text; adds the version key when absent.
std::string allowlist_add(std::string text, const std::string& version, const std::string& name) {
  size_t open = 0;
  size_t close = 0;
  if (find_json_list(text, version, 0, &open, &close)) {
    const std::string inner = text.substr(open + 1, close - open - 1);
    if (inner.find("\"" + name + "\"") != std::string::npos) return text;
    if (detail::trim(inner).empty()) {
      const std::string ind = line_indent(text, open);
      text.replace(open, close - open + 1, "[\n" + ind + "  \"" + name + "\"\n" + ind + "]");
      return text;
    }
    const size_t last_quote = text.rfind('"', close);
    const std::string ind = line_indent(text, last_quote);
    text.insert(last_quote + 1, ",\n" + ind + "\"" + name + "\"");
    return text;
  }
  // A new version key after the last list of the torch_npu object.
  const size_t last_close = text.rfind(']');
  if (last_close == std::string::npos) return text;
  const std::string ind = line_indent(text, last_close);
  text.insert(last_close + 1,
              ",\n" + ind + "\"" + version + "\": [\n" + ind + "  \"" + name + "\"\n" + ind + "]");
  return text;
}

std::string allowlist_remove(std::string text, const std::string& version,
                             const std::string& name) {
  size_t open = 0;
  size_t close = 0;
  if (!find_json_list(text, version, 0, &open, &close)) return text;
  const size_t item = text.find("\"" + name + "\"", open);
  if (item == std::string::npos || item > close) return text;
  size_t item_end = item + name.size() + 2;
  size_t after = item_end;
  while (after < close && std::isspace(static_cast<unsigned char>(text[after])) != 0) ++after;
  if (text[after] == ',') {
    // Not the last item: drop it, its comma and the whitespace up to the next item.
    size_t next = after + 1;
    while (next < close && std::isspace(static_cast<unsigned char>(text[next])) != 0) ++next;
    size_t start = item;
    text.erase(start, next - start);
    return text;
  }
  // The last item: drop the comma before it as well.
  size_t prev = item;
  while (prev > open + 1 && std::isspace(static_cast<unsigned char>(text[prev - 1])) != 0) --prev;
  if (text[prev - 1] == ',') {
    text.erase(prev - 1, item_end - (prev - 1));
  } else {
    text.erase(open + 1, item_end - (open + 1));
  }
  return text;
}

std::string relative_inside(const std::string& suggested) {
  if (suggested.empty() || suggested[0] == '/' || suggested.find("..") != std::string::npos) {
    return "";
  }
  return suggested;
}

}  // namespace skillrt::opa::detail
