#include "detail/op_excerpt.hpp"

#include <algorithm>
#include <set>
#include <string_view>

namespace skillrt::pr_analysis::detail {
namespace {

struct EntrySpan {
  size_t first = 0;  // index into the version's lines
  size_t last = 0;   // inclusive
  std::string name;
};

bool starts_entry(std::string_view text, std::string_view* rest) {
  for (std::string_view key : {"- func:", "- name:"}) {
    if (text.substr(0, key.size()) == key) {
      *rest = text.substr(key.size());
      return true;
    }
  }
  return false;
}

std::string entry_name(std::string_view rest) {
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  const size_t paren = rest.find('(');
  std::string_view name = rest.substr(0, paren);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  return std::string(name);
}

// Entries are a `- func:`/`- name:` line followed by indented key lines; a blank line, a comment
// at column 0 or a gap in the known lines ends one.
std::vector<EntrySpan> find_entries(const std::vector<NumberedLine>& lines) {
  std::vector<EntrySpan> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view rest;
    if (!starts_entry(lines[i].text, &rest)) continue;
    EntrySpan e{i, i, entry_name(rest)};
    while (e.last + 1 < lines.size() && lines[e.last + 1].line == lines[e.last].line + 1 &&
           !lines[e.last + 1].text.empty() && lines[e.last + 1].text.front() == ' ') {
      ++e.last;
    }
    out.push_back(std::move(e));
    i = e.last;
  }
  return out;
}

bool touches(const EntrySpan& e, const std::vector<NumberedLine>& lines,
             const std::vector<size_t>& changed) {
  const size_t lo = lines[e.first].line;
  const size_t hi = lines[e.last].line;
  auto it = std::lower_bound(changed.begin(), changed.end(), lo);
  return it != changed.end() && *it <= hi;
}

struct Excerpt {
  std::string text;
  std::vector<size_t> line_map;  // excerpt line (0-based) -> file line
};

Excerpt cut(const std::vector<NumberedLine>& lines, const std::vector<EntrySpan>& entries,
            const std::set<std::string>& names) {
  Excerpt x;
  for (const EntrySpan& e : entries) {
    if (names.count(e.name) == 0) continue;
    for (size_t i = e.first; i <= e.last; ++i) {
      x.text += lines[i].text;
      x.text += '\n';
      x.line_map.push_back(lines[i].line);
    }
  }
  return x;
}

ops::OpSource load(const Excerpt& x, const std::string& file, ops::SourceFormat format) {
  if (x.text.empty()) {
    ops::OpSource empty;
    empty.format = format;
    empty.file = file;
    return empty;
  }
  return ops::load_source_text(x.text, file, format);
}

size_t map_line(const Excerpt& x, size_t line) {
  return line >= 1 && line <= x.line_map.size() ? x.line_map[line - 1] : 0;
}

std::string classify(ops::SourceFormat format, const ops::OpChange& c) {
  if (format == ops::SourceFormat::kDerivatives) return "derivative_changed";
  if (c.what == "argument_default") return "default_changed";
  if (c.what.rfind("key_", 0) == 0)
    return c.subject == "dispatch" ? "dispatch_changed" : "metadata_changed";
  return "signature_changed";
}

}  // namespace

ops::SourceFormat operator_file_format(const std::string& path) {
  if (path == "aten/src/ATen/native/native_functions.yaml") {
    return ops::SourceFormat::kNativeFunctions;
  }
  if (path == "tools/autograd/derivatives.yaml") return ops::SourceFormat::kDerivatives;
  return ops::SourceFormat::kUnknown;
}

OpDiffResult diff_touched_ops(const FileDiff& file, ops::SourceFormat format) {
  OpDiffResult r;
  std::vector<size_t> old_changed;
  std::vector<size_t> new_changed;
  for (const Hunk& h : file.hunks) {
    for (const DiffLine& l : h.lines) {
      if (l.origin == '-') old_changed.push_back(l.old_line);
      if (l.origin == '+') new_changed.push_back(l.new_line);
    }
  }
  std::sort(old_changed.begin(), old_changed.end());
  std::sort(new_changed.begin(), new_changed.end());
  const std::vector<EntrySpan> old_entries = find_entries(file.old_version);
  const std::vector<EntrySpan> new_entries = find_entries(file.new_version);
  std::set<std::string> names;
  for (const EntrySpan& e : old_entries) {
    if (touches(e, file.old_version, old_changed)) names.insert(e.name);
  }
  for (const EntrySpan& e : new_entries) {
    if (touches(e, file.new_version, new_changed)) names.insert(e.name);
  }
  if (names.empty()) {
    // A patch shows three lines of context: a change deep inside a long entry (a dispatch line
    // far below its `- func:` line) cannot be tied to its operator from the patch alone.
    if (file.partial_versions && (!old_changed.empty() || !new_changed.empty())) {
      const size_t line = new_changed.empty() ? old_changed.front() : new_changed.front();
      r.problem = file.path + ":" + std::to_string(line) +
                  ": the patch does not show the operator entry around this change; read the "
                  "file at the merge commit to name the operator";
    }
    return r;
  }
  const Excerpt old_x = cut(file.old_version, old_entries, names);
  const Excerpt new_x = cut(file.new_version, new_entries, names);
  ops::SourceDiff d;
  try {
    d = ops::diff_sources(load(old_x, file.old_path, format), load(new_x, file.path, format));
  } catch (const std::exception& e) {
    r.problem = std::string("operator diff of ") + file.path + " failed: " + e.what();
    return r;
  }
  const std::string added_kind =
      format == ops::SourceFormat::kDerivatives ? "derivative_changed" : "op_added";
  const std::string removed_kind =
      format == ops::SourceFormat::kDerivatives ? "derivative_changed" : "op_removed";
  for (const ops::OpRef& a : d.added) {
    OpFinding f;
    f.kind = added_kind;
    f.op = a.op;
    f.change = "op_added";
    f.new_schema = a.schema;
    f.new_line = map_line(new_x, a.where.line);
    r.findings.push_back(std::move(f));
  }
  for (const ops::OpRef& a : d.removed) {
    OpFinding f;
    f.kind = removed_kind;
    f.op = a.op;
    f.change = "op_removed";
    f.old_schema = a.schema;
    f.old_line = map_line(old_x, a.where.line);
    r.findings.push_back(std::move(f));
  }
  for (const ops::ChangedOp& c : d.changed) {
    for (const ops::OpChange& ch : c.changes) {
      OpFinding f;
      f.kind = classify(format, ch);
      f.op = c.new_op.op;
      f.change = ch.what;
      f.subject = ch.subject;
      f.old_value = ch.old_value.value_or("");
      f.new_value = ch.new_value.value_or("");
      f.old_schema = c.old_op.schema;
      f.new_schema = c.new_op.schema;
      f.old_line = map_line(old_x, c.old_op.where.line);
      f.new_line = map_line(new_x, c.new_op.where.line);
      r.findings.push_back(std::move(f));
    }
  }
  return r;
}

}  // namespace skillrt::pr_analysis::detail
