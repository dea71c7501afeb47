// operable 可操作: a reader can copy an example and it can work. Python examples parse (checked
// by python3's own parser, never run), the torch_npu APIs they import and call exist with the
// keywords they pass, and scripts that shell examples run are in the checkout.
#include <memory>
#include <set>

#include "checks.hpp"
#include "detail/api.hpp"
#include "detail/blocks.hpp"
#include "detail/python_syntax.hpp"
#include "detail/text.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::doc_review {

namespace fs = std::filesystem;

namespace {

using detail::ApiStatus;

std::string nearest_hint(const detail::ApiResolution& r) {
  if (r.nearest.empty()) return "";
  std::string out = "; the code has ";
  for (size_t k = 0; k < r.nearest.size(); ++k) out += (k ? ", " : "") + r.nearest[k];
  return out;
}

struct PythonBlock {
  const Page* page;
  const CodeBlock* block;
  std::string source;
  bool fragment = false;  // the page says it is not runnable as written
};

void check_calls(const ReviewScope& scope, const PythonBlock& pb,
                 const std::set<std::string>& defined_here, std::set<std::string>* reported) {
  const Page& page = *pb.page;
  const std::vector<std::string> lines = detail::split_lines(pb.source);
  for (const detail::ApiRef& ref : detail::find_api_refs(pb.source, pb.block->first_line)) {
    // Import lines are judged by check_imports.
    const size_t idx = static_cast<size_t>(ref.line - pb.block->first_line);
    if (idx < lines.size()) {
      const std::string_view t = ops::trim_view(lines[idx]);
      if (detail::starts_with(t, "from ") || detail::starts_with(t, "import ")) continue;
    }
    const std::string last = ref.name.substr(ref.name.rfind('.') + 1);
    if (defined_here.count(last)) {
      scope.skip("api-defined-on-page", "API names the page itself defines",
                 "the page defines them in its own code (a tutorial that adds them)",
                 page.rel + ":" + std::to_string(ref.line) + ": " + ref.name);
      continue;
    }
    const detail::ApiResolution r = detail::resolve_api(ref.name, *scope.code);
    if (r.status == ApiStatus::kUnknown) {
      scope.skip("example-api-outside-checkout", "API names in examples the checkout cannot judge",
                 r.reason, page.rel + ":" + std::to_string(ref.line) + ": " + ref.name);
      continue;
    }
    if (r.status == ApiStatus::kMissing) {
      if (!reported->insert(ref.name).second) continue;
      scope.add(
          {Axis::kOperable, Severity::kError, "example-api-not-in-code", page.rel, ref.line,
           "the example uses '" + ref.name + "', which the code does not define" + nearest_hint(r),
           detail::excerpt(page.line(ref.line)), "", "",
           r.nearest.empty() ? "use an API the code defines, or drop the call"
                             : "call " + r.nearest[0] + " instead"});
      continue;
    }
    for (const detail::Keyword& k : detail::unknown_keywords(ref, r)) {
      if (!reported->insert(ref.name + "/" + k.name).second) continue;
      const Signature* s = r.signatures.front();
      scope.add({Axis::kOperable, Severity::kError, "example-keyword-not-in-code", page.rel, k.line,
                 "the example passes '" + k.name + "=' to '" + ref.name +
                     "', which has no such parameter; the call raises TypeError",
                 detail::excerpt(page.line(k.line)), s->where.ref(), detail::excerpt(s->text, 200),
                 "use a parameter name from the code's signature"});
    }
  }
}

void check_imports(const ReviewScope& scope, const PythonBlock& pb,
                   std::set<std::string>* reported) {
  const Page& page = *pb.page;
  const CodeIndex& code = *scope.code;
  const std::vector<std::string> lines = detail::split_lines(pb.source);
  for (size_t k = 0; k < lines.size(); ++k) {
    const std::string_view t = ops::trim_view(lines[k]);
    const int line = pb.block->first_line + static_cast<int>(k);
    std::string module;
    std::vector<std::string> names;
    if (detail::starts_with(t, "import ")) {
      std::string_view rest = ops::trim_view(t.substr(7));
      size_t e = 0;
      while (e < rest.size() && (detail::is_ident_char(rest[e]) || rest[e] == '.')) ++e;
      module = std::string(rest.substr(0, e));
    } else if (detail::starts_with(t, "from ")) {
      std::string_view rest = ops::trim_view(t.substr(5));
      size_t e = 0;
      while (e < rest.size() && (detail::is_ident_char(rest[e]) || rest[e] == '.')) ++e;
      module = std::string(rest.substr(0, e));
      const size_t imp = rest.find(" import ");
      if (imp == std::string_view::npos) continue;
      std::string_view list = ops::trim_view(rest.substr(imp + 8));
      if (!list.empty() && list[0] == '(') list = list.substr(1);
      size_t b = 0;
      while (b < list.size()) {
        while (b < list.size() && !detail::is_ident_start(list[b])) ++b;
        size_t ne = b;
        while (ne < list.size() && detail::is_ident_char(list[ne])) ++ne;
        if (ne > b) names.emplace_back(list.substr(b, ne - b));
        // Skip "as alias".
        const size_t comma = list.find(',', ne);
        b = comma == std::string_view::npos ? list.size() : comma + 1;
      }
    }
    if (!detail::starts_with(module, "torch_npu")) continue;
    if (module.find('.') != std::string::npos) {
      if (code.kind != CodeKind::kTorchNpu) {
        scope.skip("example-import-outside-checkout", "torch_npu modules imported by examples",
                   "the checkout is not torch_npu",
                   page.rel + ":" + std::to_string(line) + ": " + module);
      } else {
        const std::string last = module.substr(module.rfind('.') + 1);
        if (!code.py_modules.count(module) && !code.has_word(last) &&
            reported->insert(module).second) {
          scope.add({Axis::kOperable, Severity::kError, "example-import-not-in-code", page.rel,
                     line,
                     "the example imports module '" + module + "', which the code does not have",
                     detail::excerpt(page.line(line)), "", "",
                     "import the module where the code defines it"});
          continue;
        }
      }
    }
    for (const std::string& n : names) {
      if (n == "*") continue;
      const std::string dotted = module + "." + n;
      const detail::ApiResolution r = detail::resolve_api(dotted, code);
      if (r.status != ApiStatus::kMissing || !reported->insert(dotted).second) continue;
      scope.add({Axis::kOperable, Severity::kError, "example-import-not-in-code", page.rel, line,
                 "the example imports '" + n + "' from '" + module +
                     "', which the code does not define" + nearest_hint(r),
                 detail::excerpt(page.line(line)), "", "", "import a name the code defines"});
    }
  }
}

// "bash ci/build.sh", "python3 setup.py": a relative script path run from the checkout's root
// (after "git clone ... && cd <repo>") must exist there.
void check_scripts(const ReviewScope& scope, const Page& page, const CodeBlock& block) {
  const CodeIndex& code = *scope.code;
  const std::vector<std::string> lines = detail::split_lines(block.text);
  bool at_root = true;
  for (size_t k = 0; k < lines.size(); ++k) {
    std::string_view t = ops::trim_view(lines[k]);
    if (detail::starts_with(t, "$ ")) t = ops::trim_view(t.substr(2));
    if (detail::starts_with(t, "cd ")) {
      // Only "cd <the checkout's folder name>" keeps us at a known place.
      const std::string_view dir = ops::trim_view(t.substr(3));
      at_root = dir == code.root.filename().string() || dir == "./" + code.root.filename().string();
      continue;
    }
    if (!at_root) continue;
    for (const char* runner : {"bash ", "sh ", "python ", "python3 ", "source ", ". "}) {
      if (!detail::starts_with(t, runner)) continue;
      std::string_view rest = ops::trim_view(t.substr(std::string_view(runner).size()));
      const size_t e = rest.find_first_of(" \t;&|");
      const std::string path(rest.substr(0, e));
      const bool script = detail::ends_with(path, ".sh") || detail::ends_with(path, ".py");
      if (!script || path.find_first_of("$<>{}*~`") != std::string::npos || path[0] == '/' ||
          path[0] == '-')
        break;
      // Only a path into the checkout's own folders ("ci/build.sh"): a bare "train.py" is the
      // reader's script, and "other-repo/x.py" another checkout's.
      const size_t slash = path.find('/');
      std::error_code ec;
      if (slash == std::string::npos || !fs::is_directory(code.root / path.substr(0, slash), ec))
        break;
      if (!fs::exists(code.root / path, ec)) {
        const int line = block.first_line + static_cast<int>(k);
        scope.add({Axis::kOperable, Severity::kWarning, "script-not-in-checkout", page.rel, line,
                   "the command runs '" + path + "', which is not in the checkout",
                   detail::excerpt(page.line(line)), "", "",
                   "correct the script's path (relative to the repository root) or say which "
                   "folder to run it from"});
      }
      break;
    }
  }
}

}  // namespace

void check_operable(const ReviewScope& scope) {
  std::vector<PythonBlock> python_blocks;
  for (const Page& page : scope.pages) {
    for (const CodeBlock& b : page.blocks) {
      const detail::BlockKind kind = detail::classify_block(page, b);
      if (kind == detail::BlockKind::kShell && detail::is_python_label(b.lang)) {
        scope.add(
            {Axis::kOperable, Severity::kWarning, "mislabelled-code-block", page.rel, b.first_line,
             "the block is labelled " + b.lang +
                 " but holds shell commands; a reader "
                 "pasting it into Python gets a SyntaxError",
             detail::excerpt(
                 page.line(std::min(b.first_line, static_cast<int>(page.lines.size())))),
             "", "", "label the block ```bash (or split the Python part into its own block)"});
      }
      if (kind == detail::BlockKind::kOutput) {
        scope.skip("output-block",
                   "blocks that show program output (a traceback) under a code "
                   "language",
                   "output is not code; not parsed", page.rel + ":" + std::to_string(b.fence_line));
      }
      if (kind == detail::BlockKind::kPython) {
        bool output_cut = false;
        PythonBlock pb{&page, &b, detail::python_source(b.text, &output_cut), false};
        if (output_cut) {
          scope.skip(
              "python-output", "output printed inside Python examples",
              "the lines after a comment announcing output (\"# 执行上述代码的输出类似如下\") "
              "are output, not code; not parsed",
              page.rel + ":" + std::to_string(b.fence_line));
        }
        if (detail::marked_as_fragment(page, b)) {
          pb.fragment = true;
          scope.skip("python-fragment", "Python examples the page marks as fragments",
                     "the page says the block is not runnable as written (仅供参考, pseudo-code); "
                     "its syntax is not judged, its API names are",
                     page.rel + ":" + std::to_string(b.fence_line));
        }
        python_blocks.push_back(std::move(pb));
      } else if (kind == detail::BlockKind::kShell && scope.code) {
        check_scripts(scope, page, b);
      }
    }
  }
  if (scope.python.empty()) {
    if (!python_blocks.empty()) {
      scope.skip("python-missing", std::to_string(python_blocks.size()) + " Python examples",
                 "python3 is not installed (neither /usr/bin/python3 nor python3 on PATH), so "
                 "their syntax was not checked; install python3 and run the review again");
    }
  } else if (!python_blocks.empty()) {
    std::vector<std::string> sources;
    std::vector<const PythonBlock*> parsed;
    for (const PythonBlock& pb : python_blocks) {
      if (pb.fragment) continue;
      sources.push_back(pb.source);
      parsed.push_back(&pb);
    }
    std::vector<std::optional<detail::SyntaxError>> results;
    try {
      results = detail::check_python_syntax(scope.python, sources);
    } catch (const std::exception& e) {
      scope.skip("python-failed", std::to_string(python_blocks.size()) + " Python examples",
                 std::string("their syntax was not checked: ") + e.what());
    }
    for (size_t k = 0; k < results.size(); ++k) {
      if (!results[k]) continue;
      const PythonBlock& pb = *parsed[k];
      const int rel_line = std::max(1, results[k]->line);
      const int line =
          std::min(pb.block->first_line + rel_line - 1, static_cast<int>(pb.page->lines.size()));
      scope.add({Axis::kOperable, Severity::kError, "python-syntax", pb.page->rel, line,
                 "the Python example does not parse: " + results[k]->message + " (line " +
                     std::to_string(rel_line) + " of the block)",
                 detail::excerpt(pb.page->line(line)), "", "",
                 "fix the example so that it is valid Python; readers copy it as written"});
    }
  }
  if (!scope.code) {
    scope.skip("no-code-operable", "API, keyword, import and script checks of examples",
               "no code checkout was given (input 'code')");
    return;
  }
  std::map<const Page*, std::set<std::string>> reported;
  std::map<const Page*, std::unique_ptr<std::set<std::string>>> defined_names;
  for (const PythonBlock& pb : python_blocks) {
    if (scope.cancelled && scope.cancelled()) return;
    auto& defined = defined_names[pb.page];
    if (!defined)
      defined = std::make_unique<std::set<std::string>>(detail::names_defined_on_page(*pb.page));
    check_calls(scope, pb, *defined, &reported[pb.page]);
    check_imports(scope, pb, &reported[pb.page]);
  }
}

}  // namespace skillrt::doc_review
