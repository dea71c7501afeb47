#include "passage.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

#include "segmenter.hpp"

namespace skillrt::torchnpu_helper {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

bool blank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

// "## Title<a name=...>" -> level 2, "Title".
size_t heading_level(std::string_view line, std::string& title) {
  size_t level = 0;
  while (level < line.size() && line[level] == '#') ++level;
  if (level == 0 || level > 6 || level >= line.size() || line[level] != ' ') return 0;
  std::string_view rest = line.substr(level + 1);
  const size_t anchor = rest.find("<a ");
  if (anchor != std::string_view::npos) rest = rest.substr(0, anchor);
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '#')) rest.remove_suffix(1);
  title.assign(rest);
  return level;
}

std::string join_path(const std::vector<std::string>& stack) {
  std::string out;
  for (const std::string& part : stack) {
    if (part.empty()) continue;
    if (!out.empty()) out += " > ";
    out += part;
  }
  return out;
}

struct Section {
  std::string heading;
  size_t first = 0;  // 0-based index of the first body line
  size_t last = 0;   // exclusive
};

std::vector<Section> sections_of(const std::vector<std::string_view>& lines) {
  std::vector<Section> sections;
  std::vector<std::string> stack;
  Section current;
  bool fenced = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].substr(0, 3) == "```") fenced = !fenced;
    std::string title;
    const size_t level = fenced ? 0 : heading_level(lines[i], title);
    if (level == 0) continue;
    current.last = i;
    sections.push_back(current);
    stack.resize(level - 1);
    stack.push_back(title);
    current = Section{join_path(stack), i, i};
  }
  current.last = lines.size();
  sections.push_back(current);
  return sections;
}

// A line that says something: not blank, not a fence, not a figure or its caption.
bool content_line(std::string_view line) {
  const size_t start = line.find_first_not_of(" \t>");
  if (start == std::string_view::npos) return false;
  const std::string_view rest = line.substr(start);
  return !rest.starts_with("```") && !rest.starts_with("![") && !rest.starts_with("**图");
}

size_t content_lines(const std::vector<std::string_view>& lines, size_t first, size_t last) {
  size_t count = 0;
  for (size_t i = first; i < last; ++i) count += content_line(lines[i]) ? 1 : 0;
  return count;
}

// The last part of "A > B > C".
std::string_view leaf(std::string_view heading) {
  const size_t cut = heading.rfind(" > ");
  return cut == std::string_view::npos ? heading : heading.substr(cut + 3);
}

// A section too thin to stand alone (a page title, a two-line example) joins the one after it,
// so a passage holds a statement with its subject: "# OOM_SNAPSHOT_ENABLE" and the description
// under it are one passage, and a quote of the description can show the name.
std::vector<Section> join_thin(const std::vector<std::string_view>& lines,
                               std::vector<Section> sections) {
  std::vector<Section> out;
  for (Section& section : sections) {
    if (!out.empty()) {
      Section& open = out.back();
      const bool thin = content_lines(lines, open.first, open.last) < kThinSectionLines;
      const bool fits = content_lines(lines, open.first, section.last) <= kMaxPassageLines;
      if (thin && fits) {
        if (section.heading.starts_with(open.heading) || open.heading.empty()) {
          open.heading = section.heading;
        } else {
          open.heading += "; " + std::string(leaf(section.heading));
        }
        open.last = section.last;
        continue;
      }
    }
    out.push_back(std::move(section));
  }
  return out;
}

// Cuts one section into chunks at blank lines where possible, within the size limits.
constexpr size_t kMaxContextNames = 24;

// Code names of `text`: tokens with '_' or '.' and a letter, as the docs write them.
void add_code_names(std::string_view text, std::vector<std::string>& names) {
  const std::string clean = normalize_markdown(text);
  size_t pos = 0;
  while (pos < clean.size() && names.size() < kMaxContextNames) {
    const auto word = [&](size_t i) {
      const auto c = static_cast<unsigned char>(clean[i]);
      return std::isalnum(c) != 0 || c == '_' || c == '.';
    };
    if (!word(pos)) {
      ++pos;
      continue;
    }
    size_t end = pos;
    while (end < clean.size() && word(end)) ++end;
    std::string token = clean.substr(pos, end - pos);
    while (!token.empty() && token.back() == '.') token.pop_back();
    const bool code = token.find_first_of("_.") != std::string::npos &&
                      std::any_of(token.begin(), token.end(), [](char c) {
                        return std::isalpha(static_cast<unsigned char>(c));
                      });
    if (code && token.size() >= 4 && std::find(names.begin(), names.end(), token) == names.end()) {
      names.push_back(std::move(token));
    }
    pos = end;
  }
}

bool fence_line(std::string_view line) {
  const size_t start = line.find_first_not_of(" \t>");
  return start != std::string_view::npos && line.substr(start).starts_with("```");
}

void chunk_section(const std::vector<std::string_view>& lines, const Section& section,
                   std::vector<Passage>& out) {
  size_t start = section.first;
  bool fenced = false;             // inside a ``` block at `start`
  std::vector<std::string> names;  // code names of the chunks so far
  while (start < section.last) {
    size_t end = start;
    size_t bytes = 0;
    size_t cut = 0;  // the best place to end this chunk: after a blank line outside code
    bool inside = fenced;
    while (end < section.last && end - start < kMaxPassageLines &&
           (bytes < kMaxPassageBytes || end == start)) {
      bytes += lines[end].size() + 1;
      if (fence_line(lines[end])) inside = !inside;
      if (!inside && end > start + 4 && (blank(lines[end]) || fence_line(lines[end]))) cut = end;
      ++end;
    }
    if (end < section.last && cut > start) end = cut + 1;
    size_t first = start;
    size_t last = end;
    while (first < last && blank(lines[first])) ++first;
    while (last > first && blank(lines[last - 1])) --last;
    if (first < last) {
      Passage passage{"doc", section.heading, first + 1, last, {}, fenced, {}};
      for (size_t i = first; i < last; ++i) {
        passage.text.append(lines[i]);
        passage.text.push_back('\n');
      }
      for (const std::string& name : names)
        passage.context += (passage.context.empty() ? "" : " ") + name;
      add_code_names(passage.text, names);
      out.push_back(std::move(passage));
    }
    for (size_t i = start; i < end; ++i) fenced = fence_line(lines[i]) ? !fenced : fenced;
    start = end;
  }
}

Passage lines_passage(const std::vector<std::string_view>& lines, size_t first, size_t last,
                      std::string kind, std::string heading) {
  Passage passage{std::move(kind), std::move(heading), first + 1, last, {}, false, {}};
  for (size_t i = first; i < last; ++i) {
    passage.text.append(lines[i]);
    passage.text.push_back('\n');
  }
  return passage;
}

void extract_env_reads(const std::vector<std::string_view>& lines, std::vector<Passage>& out) {
  static const std::regex kReader(
      R"(getenv|environ|GetEnv|get_env|OptionsManager|REGISTER_OPTION|env_var)");
  static const std::regex kName(R"re(["']([A-Z][A-Z0-9_]{3,})["'])re");
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string line(lines[i]);
    if (line.size() > 400 || !std::regex_search(line, kReader)) continue;
    for (std::sregex_iterator it(line.begin(), line.end(), kName), end; it != end; ++it) {
      const size_t first = i >= 2 ? i - 2 : 0;
      const size_t last = std::min(lines.size(), i + 3);
      out.push_back(lines_passage(lines, first, last, "env",
                                  (*it)[1].str() + " (environment variable read in source)"));
    }
  }
}

void extract_checks(const std::vector<std::string_view>& lines, std::vector<Passage>& out) {
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t at = lines[i].find("TORCH_CHECK(");
    if (at == std::string_view::npos) continue;
    // The message usually follows on the next lines; take the call up to its closing ');'.
    size_t last = i + 1;
    while (last < lines.size() && last < i + 6 &&
           lines[last - 1].find(");") == std::string_view::npos) {
      ++last;
    }
    out.push_back(lines_passage(lines, i, last, "check", "TORCH_CHECK"));
  }
}

void extract_yaml_ops(const std::vector<std::string_view>& lines, std::vector<Passage>& out) {
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const size_t at = line.find("- func:");
    if (at == std::string_view::npos) continue;
    size_t last = i + 1;
    while (last < lines.size() && last < i + 16 &&
           lines[last].find("- func:") == std::string_view::npos && !blank(lines[last]) &&
           lines[last].find_first_not_of(' ') > at) {
      ++last;
    }
    std::string_view schema = line.substr(at + 7);
    schema.remove_prefix(std::min(schema.find_first_not_of(' '), schema.size()));
    const std::string name(schema.substr(0, schema.find('(')));
    out.push_back(lines_passage(lines, i, last, "yaml", name + " (op entry)"));
  }
}

}  // namespace

std::vector<Passage> split_markdown(std::string_view text) {
  const std::vector<std::string_view> lines = split_lines(text);
  std::vector<Passage> out;
  for (const Section& section : join_thin(lines, sections_of(lines))) {
    chunk_section(lines, section, out);
  }
  return out;
}

std::vector<Passage> extract_source(std::string_view path, std::string_view text) {
  const std::vector<std::string_view> lines = split_lines(text);
  std::vector<Passage> out;
  if (path.ends_with(".yaml") || path.ends_with(".yml")) {
    extract_yaml_ops(lines, out);
    return out;
  }
  extract_env_reads(lines, out);
  if (!path.ends_with(".py")) extract_checks(lines, out);
  return out;
}

}  // namespace skillrt::torchnpu_helper
