// The skill's findings: the lint report ingested, and flake8, pycodestyle, clang-format and the
// built-in checks run on the scope.
#include <algorithm>
#include <cctype>

#include "optoolkit/text.hpp"
#include "session.hpp"

namespace skillrt::ci_fix::detail {

void Session::collect_findings() {
  if (req_.report_text) {
    try {
      IngestResult ir = ingest_report(*req_.report_text, req_.report_format);
      for (Finding& f : ir.findings) findings_.push_back(std::move(f));
      ingest_formats_ = ir.formats;
      unparsed_ = ir.unparsed;
      unparsed_count_ = ir.unparsed_count;
    } catch (const std::invalid_argument& e) {
      throw RequestError(e.what());
    }
  }
  if (req_.run.empty()) return;
  std::vector<std::string> files = scope_files();
  std::vector<std::string> py, cpp, text;
  for (const std::string& f : files) {
    std::string full = req_.repo + "/" + f;
    if (is_symlink(full) || !is_regular_file(full)) continue;
    Language lang = language_for(f);
    if (lang == Language::kPython) py.push_back(f);
    if (lang == Language::kCpp) cpp.push_back(f);
    text.push_back(f);
  }
  for (const std::string& linter : req_.run) {
    if (hooks_.cancelled && hooks_.cancelled()) throw Cancelled("cancelled while running linters");
    if (linter == "flake8" || linter == "pycodestyle") {
      auto got = run_pep8(linter, filter_flake8_excludes(py), req_.repo, true);
      for (Finding& f : got) findings_.push_back(std::move(f));
      ran_.insert(linter);
    } else if (linter == "clang-format") {
      run_clang_format_all(cpp, true);
      ran_.insert(linter);
    } else {
      std::vector<std::string> checks;
      if (linter == "whitespace") checks = {"trailing-whitespace", "final-newline", "crlf"};
      if (linter == "tabs") checks = {"tabs"};
      if (linter == "typos") checks = {"typos"};
      for (const std::string& f : text) {
        for (const std::string& c : checks) builtin_checks_.insert(c);
        const FileData* fd = load(f);
        if (fd == nullptr || !fd->ok) continue;
        for (const std::string& c : checks) {
          for (Finding& x : builtin_check(fd->ctx, c)) {
            // The built-in checks follow the whitelist's exclusions, as the gates do.
            Verdict v = whitelist_.judge(x, f);
            if (!v.fixable && v.why_not.find("never touches") != std::string::npos) continue;
            findings_.push_back(std::move(x));
          }
        }
      }
      ran_.insert("builtin");
    }
  }
}

std::vector<std::string> Session::filter_flake8_excludes(const std::vector<std::string>& files) {
  // flake8 applies its `exclude` only to files it discovers, not to files named on the command
  // line; the gate (lintrunner, pre-commit) does the same filtering before calling it.
  std::vector<std::string> patterns;
  for (const char* cfg : {".flake8", "setup.cfg", "tox.ini"}) {
    auto text = read_file(req_.repo + "/" + cfg);
    if (!text) continue;
    bool in_section = false;
    std::string key;
    for (const std::string& line : split_lines(*text)) {
      std::string t = ops::trim(line);
      if (t.empty() || t[0] == '#' || t[0] == ';') continue;
      if (t[0] == '[') {
        in_section = t == "[flake8]";
        key.clear();
        continue;
      }
      if (!in_section) continue;
      bool continuation = !line.empty() && is_hspace(line[0]);
      std::string value = t;
      if (!continuation) {
        size_t eq = t.find_first_of("=:");
        if (eq == std::string::npos) continue;
        key = ops::trim(t.substr(0, eq));
        value = ops::trim(t.substr(eq + 1));
      }
      if (key != "exclude" && key != "extend-exclude" && key != "extend_exclude") continue;
      size_t b = 0;
      while (b <= value.size()) {
        size_t e = value.find(',', b);
        if (e == std::string::npos) e = value.size();
        std::string pat = ops::trim(value.substr(b, e - b));
        while (starts_with(pat, "./")) pat = pat.substr(2);
        if (!pat.empty() && pat[0] != '#') patterns.push_back(pat);
        b = e + 1;
      }
    }
    break;  // flake8 reads the first config file that has a [flake8] section... close enough
  }
  if (patterns.empty()) return files;
  std::vector<std::string> out;
  for (const std::string& f : files) {
    bool excluded = false;
    for (const std::string& p : patterns) {
      if (glob_match(p, f) || f == p || starts_with(f, p + "/")) excluded = true;
      // flake8 also matches each parent directory's name.
      size_t b = 0;
      while (!excluded && (b = f.find('/', b)) != std::string::npos) {
        std::string dir = f.substr(0, b);
        size_t s = dir.rfind('/');
        std::string name = s == std::string::npos ? dir : dir.substr(s + 1);
        if (glob_match(p, name) || glob_match(p, dir)) excluded = true;
        ++b;
      }
    }
    if (!excluded) out.push_back(f);
  }
  return out;
}

CommandResult Session::run_logged(const std::vector<std::string>& argv, const std::string& dir,
                                  const std::string& purpose) {
  CommandResult r = run_command(argv, dir);
  Command c;
  c.result = r;
  c.result.out.clear();  // keep reports small: outputs are parsed, not echoed
  c.result.err = ops::trim(r.err).substr(0, 400);
  c.purpose = purpose;
  commands_.push_back(std::move(c));
  return r;
}

// Runs a text-reporting linter on files (relative to dir) and parses what it prints.
std::vector<Finding> Session::run_pep8(const std::string& tool,
                                       const std::vector<std::string>& files,
                                       const std::string& dir, bool record_ran) {
  std::vector<Finding> out;
  (void)record_ran;
  if (files.empty()) return out;
  if (find_program(tool).empty()) {
    unavailable_[tool] =
        tool + " is not on PATH" +
        (tool == "flake8" || tool == "pycodestyle" ? " (Debian package " + tool + ")" : "");
    return out;
  }
  std::vector<std::string> prefix = {tool};
  std::string format = tool;
  if (tool == "flake8") prefix.push_back("--format=default");
  if (tool == "cpplint") prefix.push_back("--quiet");
  if (tool == "typos") prefix = {"typos", "--format", "brief"};
  const size_t kChunk = 400;
  for (size_t b = 0; b < files.size(); b += kChunk) {
    std::vector<std::string> argv = prefix;
    size_t e = std::min(files.size(), b + kChunk);
    for (size_t k = b; k < e; ++k) argv.push_back(files[k]);
    std::string purpose = tool + " on " + std::to_string(e - b) + " file(s)" +
                          (dir == req_.repo ? "" : " (fixed copies)");
    CommandResult r = run_logged(argv, dir, purpose);
    // flake8/pycodestyle: 1 means findings; codespell 65; cpplint 1; anything else is a failure.
    bool ok = r.started &&
              (r.exit_code == 0 || r.exit_code == 1 || (tool == "codespell" && r.exit_code == 65) ||
               (tool == "typos" && r.exit_code == 2));
    if (!ok) {
      unavailable_[tool] = "`" + shell_quote(argv).substr(0, 120) + "` failed: " +
                           (r.error.empty() ? ops::trim(r.err).substr(0, 300) : r.error);
      continue;
    }
    // cpplint writes its findings to stderr.
    IngestResult ir = ingest_report(tool == "cpplint" ? r.err : r.out, format);
    for (Finding& f : ir.findings) {
      if (tool == "flake8" || tool == "pycodestyle") f.tool = tool;
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::string Session::clang_format_style_arg() {
  if (req_.clang_format_style == "file") return "--style=file";
  if (req_.clang_format_style == "op-plugin" || req_.clang_format_style == "torch_npu") {
    if (bundled_style_.empty()) {
      scratch_ = scratch_.empty() ? make_temp_dir("ci-fix-style-") : scratch_;
      bundled_style_ = scratch_ + "/op-plugin.clang-format";
      write_file(bundled_style_, std::string(embedded_data("op-plugin.clang-format")));
    }
    return "--style=file:" + bundled_style_;
  }
  std::string p = absolute(req_.clang_format_style, req_.repo);
  if (!is_regular_file(p)) {
    throw RequestError("clang_format_style: " + p +
                       " is not a file; use file, op-plugin or a path to a .clang-format");
  }
  return "--style=file:" + p;
}

// Runs clang-format on files (relative to dir), returning replacements per file.
std::map<std::string, std::vector<Finding>> Session::clang_format(
    const std::vector<std::string>& files, const std::string& dir,
    const std::map<std::string, std::string>& sources, const std::string& purpose) {
  std::map<std::string, std::vector<Finding>> out;
  if (files.empty()) return out;
  if (find_program("clang-format").empty()) {
    unavailable_["clang-format"] = "clang-format is not on PATH (Debian package clang-format)";
    return out;
  }
  std::string style = clang_format_style_arg();
  const size_t kChunk = 200;
  for (size_t b = 0; b < files.size(); b += kChunk) {
    // --Wno-error=unknown: op-plugin's .clang-format has keys newer than clang-format 14
    // (Macros).
    std::vector<std::string> argv = {"clang-format", style, "--Wno-error=unknown",
                                     "--output-replacements-xml"};
    size_t e = std::min(files.size(), b + kChunk);
    for (size_t k = b; k < e; ++k) argv.push_back(files[k]);
    CommandResult r = run_logged(argv, dir, purpose + " (" + std::to_string(e - b) + " file(s))");
    if (!r.started || r.exit_code != 0) {
      unavailable_["clang-format"] =
          "`clang-format` failed: " + (r.error.empty() ? ops::trim(r.err).substr(0, 300) : r.error);
      continue;
    }
    // One XML document per file, in order.
    std::vector<std::string> docs;
    size_t p = r.out.find("<?xml");
    while (p != std::string::npos) {
      size_t q = r.out.find("<?xml", p + 5);
      docs.push_back(r.out.substr(p, q == std::string::npos ? std::string::npos : q - p));
      p = q;
    }
    if (docs.size() != e - b) {
      unavailable_["clang-format"] = "clang-format printed " + std::to_string(docs.size()) +
                                     " replacement lists for " + std::to_string(e - b) + " files";
      continue;
    }
    for (size_t k = b; k < e; ++k) {
      auto src = sources.find(files[k]);
      if (src == sources.end()) continue;
      std::string err;
      auto reps = parse_clang_format_xml(docs[k - b], files[k], src->second, &err);
      if (!err.empty()) {
        unavailable_["clang-format"] = files[k] + ": " + err;
        continue;
      }
      out[files[k]] = std::move(reps);
    }
  }
  return out;
}

void Session::run_clang_format_all(const std::vector<std::string>& files, bool as_findings) {
  std::vector<std::string> ok;
  std::map<std::string, std::string> sources;
  for (const std::string& f : files) {
    const FileData* fd = load(f);
    if (fd == nullptr || !fd->ok) continue;
    ok.push_back(f);
    sources[f] = fd->text;
  }
  auto reps = clang_format(ok, req_.repo, sources, "clang-format replacements");
  for (auto& [path, list] : reps) {
    clang_replacements_[path] = list;
    if (as_findings) {
      for (const Finding& f : list) findings_.push_back(f);
    }
  }
}

}  // namespace skillrt::ci_fix::detail
