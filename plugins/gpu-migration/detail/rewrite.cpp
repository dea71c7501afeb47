#include "detail/rewrite.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include "optoolkit/text.hpp"

namespace skillrt::gpu_migration::detail {
namespace {

struct Splice {
  size_t begin;
  size_t end;
  std::string text;
};

std::string indent_of(std::string_view line) {
  const size_t b = line.find_first_not_of(" \t");
  return std::string(line.substr(0, b == std::string_view::npos ? line.size() : b));
}

}  // namespace

Rewrite rewrite_python(std::string_view text, const PythonScan& scan, RewriteMode mode,
                       ImportPlacement imports) {
  Rewrite out;
  LineIndex lines(text);
  const int n = lines.line_count();
  std::map<int, std::vector<Splice>> edits;             // by line, in that line
  std::map<int, std::vector<std::string>> inserts;      // lines inserted before a line
  std::map<int, std::vector<const Match*>> by_comment;  // comment anchor line -> changes

  if (mode == RewriteMode::kRewrite) {
    std::vector<const Match*> ms;
    for (const Match& m : scan.matches) {
      if (m.has_edit && !m.marked_data && !m.rule->suggestion) ms.push_back(&m);
    }
    std::sort(ms.begin(), ms.end(),
              [](const Match* a, const Match* b) { return a->edit_begin < b->edit_begin; });
    size_t last_end = 0;
    for (const Match* m : ms) {
      if (m->edit_begin < last_end) continue;  // overlapping: the first rule wins
      last_end = m->edit_end;
      const int line = lines.line_of(m->edit_begin);
      edits[line].push_back({m->edit_begin - lines.line_begin(line),
                             m->edit_end - lines.line_begin(line), m->replacement});
      by_comment[lines.line_of(m->logical_begin)].push_back(m);
    }
  }

  std::vector<std::string> new_lines(static_cast<size_t>(n) + 1);
  for (int l = 1; l <= n; ++l) {
    std::string s(lines.line_text(l));
    auto it = edits.find(l);
    if (it != edits.end()) {
      for (auto e = it->second.rbegin(); e != it->second.rend(); ++e) {
        s.replace(e->begin, e->end - e->begin, e->text);
      }
    }
    new_lines[static_cast<size_t>(l)] = s;
  }

  // One comment per changed physical line, above the statement, stating the original and why.
  for (const auto& [anchor, ms] : by_comment) {
    const std::string indent = indent_of(lines.line_text(anchor));
    std::vector<std::pair<int, const Rule*>> seen;
    for (const Match* m : ms) {
      const int line = lines.line_of(m->edit_begin);
      if (std::find(seen.begin(), seen.end(), std::make_pair(line, m->rule)) != seen.end())
        continue;
      seen.emplace_back(line, m->rule);
      const std::string original = ops::trim(lines.line_text(line));
      inserts[anchor].push_back(indent + "# gpu-migration " + m->rule->id + ": was `" + original +
                                "`; " + m->rule->reason);
      out.changes.push_back(
          {line, m->rule, original, ops::trim(new_lines[static_cast<size_t>(line)])});
    }
  }

  const bool wants_npu = imports == ImportPlacement::kHere ||
                         (imports == ImportPlacement::kIfChanged &&
                          (mode == RewriteMode::kTransferToNpu || !out.changes.empty()));
  if (wants_npu && scan.imports_torch) {
    std::vector<std::string> add;
    if (!scan.imports_torch_npu) {
      add.push_back("# gpu-migration " + std::string(kImportRuleId) +
                    ": added; importing torch_npu registers the NPU device, torch.npu and hccl");
      add.push_back("import torch_npu");
    }
    if (mode == RewriteMode::kTransferToNpu && !scan.imports_transfer_to_npu) {
      add.push_back(
          "# gpu-migration TRANSFER-TO-NPU: added; maps torch.cuda, 'cuda' device "
          "arguments and nccl to their NPU counterparts at run time");
      add.push_back("from torch_npu.contrib import transfer_to_npu  # noqa: F401");
    }
    if (!add.empty()) {
      if (scan.torch_import_end == std::string::npos) {
        out.torch_npu_import_missing = true;
      } else {
        const int before =
            scan.torch_import_end >= text.size() ? n + 1 : lines.line_of(scan.torch_import_end);
        for (const std::string& a : add) {
          if (a.rfind("#", 0) != 0) out.added.push_back(a);
        }
        // Before any change comment anchored on the same line, which must stay next to its line.
        std::vector<std::string>& at = inserts[before];
        at.insert(at.begin(), add.begin(), add.end());
      }
    }
  }

  // Inserted lines take the file's line ending; assemble the text and the edit script together,
  // so the diff is exact.
  const size_t first_nl = text.find('\n');
  const std::string eol =
      first_nl != std::string_view::npos && first_nl > 0 && text[first_nl - 1] == '\r' ? "\r\n"
                                                                                       : "\n";
  // Diff lines keep a CR before their newline, as diff -u prints a CRLF file, so that the patch
  // applies to the file as it is.
  const std::string inserted_cr = eol == "\r\n" ? "\r" : "";
  std::string result;
  result.reserve(text.size() + 256);
  for (int l = 1; l <= n + 1; ++l) {
    auto ins = inserts.find(l);
    const bool has_inserts = ins != inserts.end();
    if (l > n) {
      if (has_inserts) {
        if (!result.empty() && result.back() != '\n') result += eol;
        for (const std::string& s : ins->second) {
          result += s + eol;
          out.script.push_back({'+', s + inserted_cr});
        }
      }
      break;
    }
    const std::string_view old_line = lines.line_text(l);
    const std::string& new_line = new_lines[static_cast<size_t>(l)];
    // Keep the file's own terminator (\n, \r\n or none at the end).
    const size_t b = lines.line_begin(l);
    const size_t next = l < n ? lines.line_begin(l + 1) : text.size();
    const std::string_view terminator =
        text.substr(b + old_line.size(), next - b - old_line.size());
    // Lines added after an unterminated last line give it a terminator: for the diff, it changes.
    const bool gains_eol = l == n && terminator.empty() && inserts.count(n + 1) != 0;
    const bool changed = new_line != old_line || gains_eol;
    // The diff reads best as: the old line, then the comment and the new line that replace it.
    const std::string cr = !terminator.empty() && terminator.front() == '\r' ? "\r" : "";
    if (changed) out.script.push_back({'-', std::string(old_line) + cr});
    if (has_inserts) {
      for (const std::string& s : ins->second) {
        result += s + eol;
        out.script.push_back({'+', s + inserted_cr});
      }
    }
    result += new_line;
    result += terminator;
    out.script.push_back({changed ? '+' : ' ', new_line + (gains_eol ? inserted_cr : cr)});
  }
  if (text.empty()) result.clear();
  out.text = std::move(result);
  mark_open_ends(&out.script, text, out.text);
  return out;
}

void mark_open_ends(std::vector<DiffLine>* script, std::string_view before,
                    std::string_view after) {
  auto mark_last = [script](char skip) {
    for (auto it = script->rbegin(); it != script->rend(); ++it) {
      if (it->op == skip) continue;
      it->no_eol = true;
      return;
    }
  };
  if (!before.empty() && before.back() != '\n') mark_last('+');
  if (!after.empty() && after.back() != '\n') mark_last('-');
}

std::string unified_diff(const std::string& path, const std::vector<DiffLine>& script) {
  constexpr size_t kContext = 3;
  std::vector<size_t> changed;
  for (size_t i = 0; i < script.size(); ++i) {
    if (script[i].op != ' ') changed.push_back(i);
  }
  if (changed.empty()) return {};
  std::ostringstream out;
  out << "--- a/" << path << "\n+++ b/" << path << "\n";
  // Line numbers before each script entry.
  std::vector<int> old_no(script.size() + 1), new_no(script.size() + 1);
  int o = 1, nn = 1;
  for (size_t i = 0; i < script.size(); ++i) {
    old_no[i] = o;
    new_no[i] = nn;
    if (script[i].op != '+') ++o;
    if (script[i].op != '-') ++nn;
  }
  old_no[script.size()] = o;
  new_no[script.size()] = nn;
  size_t k = 0;
  while (k < changed.size()) {
    size_t first = changed[k] >= kContext ? changed[k] - kContext : 0;
    size_t last = changed[k];
    while (k + 1 < changed.size() && changed[k + 1] <= last + 2 * kContext + 1) last = changed[++k];
    ++k;
    last = std::min(script.size() - 1, last + kContext);
    int old_count = 0, new_count = 0;
    for (size_t i = first; i <= last; ++i) {
      if (script[i].op != '+') ++old_count;
      if (script[i].op != '-') ++new_count;
    }
    out << "@@ -" << (old_count ? old_no[first] : old_no[first] - 1) << "," << old_count << " +"
        << (new_count ? new_no[first] : new_no[first] - 1) << "," << new_count << " @@\n";
    for (size_t i = first; i <= last; ++i) {
      out << script[i].op << script[i].text << "\n";
      if (script[i].no_eol) out << "\\ No newline at end of file\n";
    }
  }
  return out.str();
}

}  // namespace skillrt::gpu_migration::detail
