// The skill's flow: scope -> findings (ingested and/or produced by running linters) -> per-file
// fixes with proofs -> verification by running the linters again -> patch or atomic writes ->
// Markdown and JSON reports.
#include "skill.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <tuple>

#include "engine.hpp"
#include "ingest.hpp"
#include "patch.hpp"
#include "report.hpp"
#include "system.hpp"

namespace skillrt::ci_fix {

using nlohmann::json;

namespace {

const std::set<std::string> kLinters = {"flake8",     "pycodestyle", "clang-format",
                                        "whitespace", "tabs",        "typos"};

struct Request {
  std::string repo_given;  // absolute, normalised
  std::string repo;        // realpath
  std::optional<std::string> report_text;
  std::string report_source;  // the file, or "inline"
  std::string report_format = "auto";
  std::vector<std::string> run;
  std::string scope_kind = "all";  // all, files, diff
  std::vector<std::string> scope_files;
  std::string diff;
  bool apply = false;
  bool verify = true;
  std::vector<std::string> classes, disable, exclude;
  std::string clang_format_style = "file";
  std::string report_dir;
  int context = 3;
  bool patch_by_class = false;  // also one patch per fix class, each against the original tree
};

std::string absolute(const std::string& p, const std::string& base) {
  if (!p.empty() && p[0] == '/') return normalize_path(p);
  return normalize_path(base + "/" + p);
}

std::string cwd() {
  char buf[4096];
  return getcwd(buf, sizeof buf) ? buf : "/";
}

Request parse_request(const json& in) {
  Request r;
  if (!in.is_object() || !in.contains("repo") || !in.at("repo").is_string()) {
    throw RequestError("repo: a repository path is required");
  }
  r.repo_given = absolute(in.at("repo").get<std::string>(), cwd());
  r.repo = real_path(r.repo_given);
  if (r.repo.empty() || !is_directory(r.repo)) {
    throw RequestError("repo: " + r.repo_given + " is not a directory; pass the repository's root");
  }
  if (in.contains("report")) {
    std::string p = absolute(in.at("report").get<std::string>(), r.repo);
    auto text = read_file(p);
    if (!text)
      throw RequestError("report: cannot read " + p + "; pass a readable lint report file");
    r.report_text = *text;
    r.report_source = p;
  }
  if (in.contains("report_text")) {
    if (r.report_text) throw RequestError("report and report_text: give one of them, not both");
    r.report_text = in.at("report_text").get<std::string>();
    r.report_source = "inline";
  }
  r.report_format = in.value("report_format", "auto");
  if (in.contains("run")) {
    for (const auto& v : in.at("run")) {
      std::string l = v.get<std::string>();
      if (kLinters.count(l) == 0) {
        throw RequestError("run: unknown linter '" + l +
                           "'; known: flake8, pycodestyle, clang-format, whitespace, tabs, typos");
      }
      r.run.push_back(l);
    }
  }
  if (!r.report_text && r.run.empty()) r.run = {"flake8", "clang-format", "whitespace"};
  if (in.contains("scope")) {
    const json& s = in.at("scope");
    if (s.contains("files")) {
      r.scope_kind = "files";
      for (const auto& f : s.at("files")) r.scope_files.push_back(f.get<std::string>());
    } else if (s.contains("diff")) {
      r.scope_kind = "diff";
      r.diff = s.at("diff").get<std::string>();
      if (r.diff.empty() || r.diff[0] == '-') {
        throw RequestError("scope.diff: '" + r.diff +
                           "' is not a revision range such as origin/master..HEAD");
      }
    }
  }
  r.apply = in.value("apply", false);
  r.verify = in.value("verify", true);
  auto narrow_from = [&](const json& w) {
    if (w.contains("classes")) {
      for (const auto& c : w.at("classes")) r.classes.push_back(c.get<std::string>());
    }
    if (w.contains("disable")) {
      for (const auto& c : w.at("disable")) r.disable.push_back(c.get<std::string>());
    }
    if (w.contains("exclude")) {
      for (const auto& c : w.at("exclude")) r.exclude.push_back(c.get<std::string>());
    }
  };
  if (in.contains("whitelist_file")) {
    std::string p = absolute(in.at("whitelist_file").get<std::string>(), r.repo);
    auto text = read_file(p);
    if (!text) throw RequestError("whitelist_file: cannot read " + p);
    auto w = json::parse(*text, nullptr, false);
    if (w.is_discarded() || !w.is_object()) {
      throw RequestError("whitelist_file: " + p +
                         " is not a JSON object with classes/disable/exclude");
    }
    narrow_from(w);
  }
  if (in.contains("whitelist")) narrow_from(in.at("whitelist"));
  r.clang_format_style = in.value("clang_format_style", "file");
  if (in.contains("report_dir"))
    r.report_dir = absolute(in.at("report_dir").get<std::string>(), r.repo);
  r.context = in.value("context_lines", 3);
  r.patch_by_class = in.value("patch_by_class", false);
  return r;
}

struct Command {
  CommandResult result;
  std::string purpose;
};

struct SkippedFile {
  std::string path;
  std::string reason;
  std::vector<size_t> findings;
};

class Session {
 public:
  Session(Request req, const Hooks& hooks) : req_(std::move(req)), hooks_(hooks) {}

  json run() {
    whitelist_ = Whitelist::parse(embedded_data("whitelist.json"));
    try {
      whitelist_.narrow(req_.classes, req_.disable, req_.exclude);
    } catch (const std::invalid_argument& e) {
      throw RequestError(std::string("whitelist: ") + e.what());
    }
    typos_ = TypoTable::parse(embedded_data("typos.tsv"));
    load_spelling_config();
    load_line_length();
    resolve_scope();
    collect_findings();
    fix_files();
    if (req_.verify) verify_before();
    if (req_.apply) apply();
    if (req_.verify) verify_after();
    return output();
  }

 private:
  // ---- scope -----------------------------------------------------------------------------------

  void resolve_scope() {
    if (req_.scope_kind == "files") {
      for (const std::string& f : req_.scope_files) {
        std::string why;
        std::string rel = relative(f, &why);
        if (rel.empty()) throw RequestError("scope.files: " + f + " is " + why);
        scope_entries_.push_back(rel);
      }
    } else if (req_.scope_kind == "diff") {
      std::vector<std::string> argv = {
          "git",     "-C", req_.repo, "diff", "--name-only", "-z", "--diff-filter=ACMR",
          req_.diff, "--"};
      CommandResult r = run_logged(argv, req_.repo, "list the files changed in " + req_.diff);
      if (!r.started || r.exit_code != 0) {
        throw RequestError("scope.diff: `" + shell_quote(argv) +
                           "` failed: " + (r.error.empty() ? trim(r.err) : r.error) +
                           "; check the revision range and that repo is a git checkout");
      }
      size_t b = 0;
      while (b < r.out.size()) {
        size_t e = r.out.find('\0', b);
        if (e == std::string::npos) e = r.out.size();
        if (e > b) scope_entries_.push_back(normalize_path(r.out.substr(b, e - b)));
        b = e + 1;
      }
    }
  }

  bool in_scope(const std::string& rel) const {
    if (req_.scope_kind == "all") return true;
    for (const std::string& s : scope_entries_) {
      if (rel == s || (s == ".") || starts_with(rel, s + "/")) return true;
    }
    return false;
  }

  // Files of the scope that exist (for running linters).
  std::vector<std::string> scope_files() {
    std::vector<std::string> out;
    if (req_.scope_kind == "all") {
      if (is_directory(req_.repo + "/.git")) {
        CommandResult r = run_logged({"git", "-C", req_.repo, "ls-files", "-z", "--cached",
                                      "--others", "--exclude-standard"},
                                     req_.repo, "list the repository's files");
        if (r.started && r.exit_code == 0) {
          size_t b = 0;
          while (b < r.out.size()) {
            size_t e = r.out.find('\0', b);
            if (e == std::string::npos) e = r.out.size();
            if (e > b) out.push_back(r.out.substr(b, e - b));
            b = e + 1;
          }
          std::sort(out.begin(), out.end());
          out.erase(std::unique(out.begin(), out.end()), out.end());
          return out;
        }
      }
      walk("", &out);
    } else {
      for (const std::string& s : scope_entries_) {
        if (is_directory(req_.repo + "/" + s)) {
          walk(s, &out);
        } else {
          out.push_back(s);
        }
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  void walk(const std::string& rel, std::vector<std::string>* out) {
    std::string dir = rel.empty() ? req_.repo : req_.repo + "/" + rel;
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return;
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n == "." || n == ".." || n == ".git" || n == ".hg" || n == ".svn") continue;
      names.push_back(n);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) {
      std::string r = rel.empty() ? n : rel + "/" + n;
      std::string full = req_.repo + "/" + r;
      struct stat st {};
      if (lstat(full.c_str(), &st) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        walk(r, out);
      } else {
        out->push_back(r);
      }
    }
  }

  // Repository-relative path for a reported path, or empty with the reason.
  std::string relative(const std::string& reported, std::string* why) const {
    std::string p = reported;
    while (starts_with(p, "./")) p = p.substr(2);
    if (p.empty()) {
      *why = "an empty path";
      return "";
    }
    for (const std::string& root : {req_.repo_given, req_.repo}) {
      std::string abs = absolute(p, root);
      if (abs == root) {
        *why = "the repository itself, not a file";
        return "";
      }
      if (path_inside(root, abs)) return abs.substr(root.size() + (root == "/" ? 0 : 1));
      if (p[0] != '/') break;
    }
    *why = "outside the repository";
    return "";
  }

  // ---- findings --------------------------------------------------------------------------------

  void collect_findings() {
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
      if (hooks_.cancelled && hooks_.cancelled())
        throw Cancelled("cancelled while running linters");
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

  std::vector<std::string> filter_flake8_excludes(const std::vector<std::string>& files) {
    // flake8 applies its `exclude` only to files it discovers, not to files named on the command
    // line; the gate (lintrunner, pre-commit) does the same filtering before calling it.
    std::vector<std::string> patterns;
    for (const char* cfg : {".flake8", "setup.cfg", "tox.ini"}) {
      auto text = read_file(req_.repo + "/" + cfg);
      if (!text) continue;
      bool in_section = false;
      std::string key;
      for (const std::string& line : split_lines(*text)) {
        std::string t = trim(line);
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
          key = trim(t.substr(0, eq));
          value = trim(t.substr(eq + 1));
        }
        if (key != "exclude" && key != "extend-exclude" && key != "extend_exclude") continue;
        size_t b = 0;
        while (b <= value.size()) {
          size_t e = value.find(',', b);
          if (e == std::string::npos) e = value.size();
          std::string pat = trim(value.substr(b, e - b));
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

  CommandResult run_logged(const std::vector<std::string>& argv, const std::string& dir,
                           const std::string& purpose) {
    CommandResult r = run_command(argv, dir);
    Command c;
    c.result = r;
    c.result.out.clear();  // keep reports small: outputs are parsed, not echoed
    c.result.err = trim(r.err).substr(0, 400);
    c.purpose = purpose;
    commands_.push_back(std::move(c));
    return r;
  }

  // Runs a text-reporting linter on files (relative to dir) and parses what it prints.
  std::vector<Finding> run_pep8(const std::string& tool, const std::vector<std::string>& files,
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
      bool ok = r.started && (r.exit_code == 0 || r.exit_code == 1 ||
                              (tool == "codespell" && r.exit_code == 65) ||
                              (tool == "typos" && r.exit_code == 2));
      if (!ok) {
        unavailable_[tool] = "`" + shell_quote(argv).substr(0, 120) + "` failed: " +
                             (r.error.empty() ? trim(r.err).substr(0, 300) : r.error);
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

  std::string clang_format_style_arg() {
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
  std::map<std::string, std::vector<Finding>> clang_format(
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
            "`clang-format` failed: " + (r.error.empty() ? trim(r.err).substr(0, 300) : r.error);
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

  void run_clang_format_all(const std::vector<std::string>& files, bool as_findings) {
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

  // ---- files -----------------------------------------------------------------------------------

  struct FileData {
    bool ok = false;
    std::string skip;  // why the file is left untouched
    std::string text;
    std::unique_ptr<LineIndex> lines;
    TokenStream tokens;
    FileContext ctx;
  };

  const FileData* load(const std::string& rel) {
    auto it = files_.find(rel);
    if (it != files_.end()) return it->second.get();
    auto fd = std::make_unique<FileData>();
    fd->skip = check_file(rel, &fd->text);
    if (fd->skip.empty()) {
      fd->ok = true;
      fd->lines = std::make_unique<LineIndex>(fd->text);
      Language lang = language_for(rel);
      fd->tokens = tokenize(fd->text, lang);
      FileContext& c = fd->ctx;
      c.rel_path = rel;
      c.lang = lang;
      c.text = fd->text;
      c.lines = fd->lines.get();
      c.tokens = &fd->tokens;
      c.typos = &typos_;
      c.eol = std::string(dominant_eol(fd->text));
      c.max_line_length = max_line_length_;
      c.w503_enabled = w503_enabled_;
      c.w504_enabled = w504_enabled_;
      prepare_context(&c);
    }
    FileData* raw = fd.get();
    files_[rel] = std::move(fd);
    return raw;
  }

  // Why a file is left untouched, or empty. Fills `text` when it can be fixed.
  std::string check_file(const std::string& rel, std::string* text) {
    if (!in_scope(rel)) return "outside the requested scope (" + req_.scope_kind + ")";
    std::string full = req_.repo + "/" + rel;
    struct stat st {};
    if (lstat(full.c_str(), &st) != 0) return "does not exist in the repository";
    if (S_ISLNK(st.st_mode)) {
      std::string target = real_path(full);
      if (target.empty()) return "a dangling symbolic link";
      if (!path_inside(req_.repo, target))
        return "a symbolic link pointing outside the repository (" + target + ")";
      return "a symbolic link to " + target.substr(req_.repo.size() + 1) +
             " inside the repository: only the target's own path is edited";
    }
    std::string real = real_path(full);
    if (real.empty() || !path_inside(req_.repo, real)) {
      return "resolves outside the repository through a symbolically linked directory";
    }
    if (!S_ISREG(st.st_mode)) return "not a regular file";
    auto content = read_file(full);
    if (!content) return "cannot be read";
    if (content->find('\0') != std::string::npos) return "a binary file (contains NUL bytes)";
    if (!valid_utf8(*content)) return "not valid UTF-8 (the tokenizers read UTF-8 only)";
    *text = std::move(*content);
    return "";
  }

  // pycodestyle's max-line-length as the repository sets it for flake8 or pycodestyle. Where the
  // config ignores E501 and selects flake8-bugbear's B950 (torch_npu does), the gate's limit is
  // B950's: max-line-length plus 10%.
  void load_line_length() {
    for (const char* cfg : {".flake8", "setup.cfg", "tox.ini", ".pycodestyle"}) {
      auto text = read_file(req_.repo + "/" + cfg);
      if (!text) continue;
      bool in_section = false;
      std::map<std::string, std::string> values;  // key -> value with continuation lines
      std::string key;
      for (const std::string& line : split_lines(*text)) {
        std::string t = trim(line);
        if (t.empty() || t[0] == '#' || t[0] == ';') continue;
        if (t[0] == '[') {
          in_section = t == "[flake8]" || t == "[pycodestyle]" || t == "[pep8]";
          key.clear();
          continue;
        }
        if (!in_section) continue;
        const size_t hash = t.find(" #");
        if (hash != std::string::npos) t = trim(t.substr(0, hash));
        if (!line.empty() && (line[0] == ' ' || line[0] == '\t') && !key.empty()) {
          values[key] += "," + t;  // a continuation line of the previous key
          continue;
        }
        size_t eq = t.find_first_of("=:");
        if (eq == std::string::npos) continue;
        key = trim(t.substr(0, eq));
        std::replace(key.begin(), key.end(), '_', '-');
        values[key] = trim(t.substr(eq + 1));
      }
      // flake8: a code is reported when its longest matching prefix in select (or flake8's
      // default select) is longer than its longest in ignore (or the default ignore list, which
      // holds W503 and W504).
      const auto longest = [&](std::initializer_list<const char*> keys, const std::string& code,
                               const std::string& fallback) {
        const auto in_list = [&](const std::string& list) {
          size_t best = 0, b = 0;
          while (b <= list.size()) {
            size_t e = list.find(',', b);
            if (e == std::string::npos) e = list.size();
            const std::string item = trim(list.substr(b, e - b));
            if (!item.empty() && code.rfind(item, 0) == 0) best = std::max(best, item.size());
            b = e + 1;
          }
          return best;
        };
        size_t best = 0;
        bool replaced = false;  // select/ignore replace the defaults; extend-* add to them
        for (const char* k : keys) {
          auto f = values.find(k);
          if (f == values.end()) continue;
          replaced = replaced || std::string(k).rfind("extend", 0) != 0;
          best = std::max(best, in_list(f->second));
        }
        return replaced ? best : std::max(best, in_list(fallback));
      };
      const auto reported = [&](const std::string& code) {
        return longest({"select", "extend-select"}, code, "E,F,W,C90") >
               longest({"ignore", "extend-ignore"}, code, "E121,E123,E126,E226,E24,E704,W503,W504");
      };
      w503_enabled_ = reported("W503");
      w504_enabled_ = reported("W504");
      auto it = values.find("max-line-length");
      if (it == values.end()) continue;
      int v = std::atoi(it->second.c_str());
      if (v <= 0) continue;
      max_line_length_ = v;
      line_length_source_ = std::string(cfg);
      if (!reported("E501") && reported("B950")) {
        max_line_length_ = v + v / 10;
        line_length_source_ += " (E501 not reported, B950 is: max-line-length + 10%)";
      }
      return;
    }
  }

  void load_spelling_config() {
    // Words the repository keeps on purpose (typos.toml, codespell's -L list) are never "fixed".
    for (const char* cfg : {"typos.toml", "_typos.toml", ".typos.toml", "pre-commit/typos.toml"}) {
      auto text = read_file(req_.repo + "/" + cfg);
      if (!text) continue;
      std::string section;
      bool in_array = false;
      for (const std::string& line : split_lines(*text)) {
        std::string t = trim(line);
        if (t.empty() || t[0] == '#') continue;
        if (t[0] == '[' && !in_array) {
          section = t;
          continue;
        }
        bool words_array = starts_with(t, "extend-ignore-words-re") || in_array;
        if (starts_with(t, "extend-ignore-words-re"))
          in_array = t.find(']') == std::string::npos;
        else if (in_array && t.find(']') != std::string::npos)
          in_array = false;
        if (words_array) {
          size_t p = 0;
          while ((p = t.find('"', p)) != std::string::npos) {
            size_t q = t.find('"', p + 1);
            if (q == std::string::npos) break;
            std::string w = t.substr(p + 1, q - p - 1);
            if (!w.empty() &&
                std::all_of(w.begin(), w.end(), [](unsigned char c) { return std::isalpha(c); })) {
              ignore_word(w);
            }
            p = q + 1;
          }
          continue;
        }
        if (section.find("extend-words") != std::string::npos ||
            section.find("extend-identifiers") != std::string::npos) {
          size_t eq = t.find('=');
          if (eq != std::string::npos) ignore_word(trim(t.substr(0, eq)));
        }
      }
      spelling_configs_.push_back(cfg);
    }
    for (const char* cfg : {".pre-commit-config.yaml", ".codespellrc", "setup.cfg"}) {
      auto text = read_file(req_.repo + "/" + cfg);
      if (!text) continue;
      bool found = false;
      for (std::string key : {"\"-L\"", "ignore-words-list", "--ignore-words-list"}) {
        size_t p = text->find(key);
        if (p == std::string::npos) continue;
        size_t b = text->find_first_of("\"=", p + key.size());
        if (b == std::string::npos) continue;
        if ((*text)[b] == '=') {
          size_t e = text->find_first_of("\n\"", b + 1);
          parse_word_list(text->substr(b + 1, e - b - 1));
        } else {
          size_t e = text->find('"', b + 1);
          parse_word_list(text->substr(b + 1, e - b - 1));
        }
        found = true;
      }
      if (found) spelling_configs_.push_back(cfg);
    }
  }
  void parse_word_list(const std::string& s) {
    size_t b = 0;
    while (b <= s.size()) {
      size_t e = s.find(',', b);
      if (e == std::string::npos) e = s.size();
      std::string w = trim(s.substr(b, e - b));
      if (!w.empty()) ignore_word(w);
      b = e + 1;
    }
  }
  void ignore_word(std::string w) {
    std::transform(w.begin(), w.end(), w.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    typos_.ignore(w);
    ignored_words_.insert(w);
  }

  // ---- fixing ----------------------------------------------------------------------------------

  void fix_files() {
    // Group findings by file.
    std::map<std::string, std::vector<size_t>> by_file;
    for (size_t id = 0; id < findings_.size(); ++id) {
      const Finding& f = findings_[id];
      if (f.path.empty()) {
        general_.push_back(id);
        continue;
      }
      std::string why;
      std::string rel = relative(f.path, &why);
      if (rel.empty()) {
        outside_[f.path].push_back(id);
        outside_why_[f.path] = why;
        continue;
      }
      rel_of_[id] = rel;
      by_file[rel].push_back(id);
    }
    // cpplint whitespace findings are fixed through clang-format's edits: run it where needed.
    std::vector<std::string> need_cf;
    for (const auto& [rel, ids] : by_file) {
      if (clang_replacements_.count(rel) || language_for(rel) != Language::kCpp) continue;
      bool need = std::any_of(ids.begin(), ids.end(), [&](size_t id) {
        Verdict v = whitelist_.judge(findings_[id], rel);
        return v.fixable && v.rule->fixer == "clang-format-line";
      });
      if (need) need_cf.push_back(rel);
    }
    if (!need_cf.empty()) run_clang_format_all(need_cf, false);

    // Load (sequential: the file cache is shared), then fix files in parallel: process_file reads
    // only its own file's context and the shared, read-only whitelist and typo table.
    struct Job {
      std::string rel;
      std::vector<size_t> ids;
      FileContext ctx;
    };
    std::vector<Job> jobs;
    for (auto& [rel, ids] : by_file) {
      if (hooks_.cancelled && hooks_.cancelled()) throw Cancelled("cancelled while reading files");
      const FileData* fd = load(rel);
      if (!fd->ok) {
        skipped_.push_back({rel, fd->skip, ids});
        continue;
      }
      if (whitelist_.is_protected(rel)) {
        FileResult fr;
        fr.path = rel;
        fr.original = fd->text;
        fr.fixed = fd->text;
        for (size_t id : ids) {
          fr.residual.push_back(
              {id, findings_[id].line, "protected",
               "generated or vendored file (" + rel + "): " + whitelist_.protected_why(),
               "Fix the generator's input or the upstream project.", std::nullopt, ""});
        }
        results_.push_back(std::move(fr));
        continue;
      }
      Job job{rel, ids, fd->ctx};
      for (size_t id : ids) {
        const Finding& f = findings_[id];
        if (tool_family(f.tool) == "pep8" &&
            ((f.code.size() == 4 && f.code.rfind("E12", 0) == 0) || f.code == "E131")) {
          job.ctx.continuation.emplace_back(f.line, f.code);
        }
      }
      auto cf = clang_replacements_.find(rel);
      if (cf != clang_replacements_.end()) job.ctx.clang_format = &cf->second;
      if (job.ctx.clang_format == nullptr && unavailable_.count("clang-format")) {
        job.ctx.clang_format_error = unavailable_["clang-format"];
      }
      // Inserted lines use LF when the file's CRLF endings are being converted.
      bool converting = std::any_of(ids.begin(), ids.end(), [&](size_t id) {
        Verdict v = whitelist_.judge(findings_[id], rel);
        return v.fixable && v.klass->name == "line-endings";
      });
      if (converting) job.ctx.eol = "\n";
      jobs.push_back(std::move(job));
    }
    std::vector<FileResult> fixed(jobs.size());
    std::atomic<size_t> next{0};
    std::atomic<size_t> done{0};
    std::atomic<bool> stop{false};
    EngineOptions opt;
    opt.hunk_context = 1;
    auto worker = [&] {
      while (!stop.load()) {
        size_t k = next.fetch_add(1);
        if (k >= jobs.size()) break;
        fixed[k] = process_file(jobs[k].ctx, findings_, jobs[k].ids, whitelist_, opt);
        done.fetch_add(1);
      }
    };
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    size_t threads = std::min<size_t>({hw, 8, jobs.size() / 16 + 1});
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
    // The calling thread works too, and alone talks to the host (progress, cancellation).
    while (!stop.load()) {
      size_t k = next.fetch_add(1);
      if (k >= jobs.size()) break;
      fixed[k] = process_file(jobs[k].ctx, findings_, jobs[k].ids, whitelist_, opt);
      done.fetch_add(1);
      if (hooks_.cancelled && hooks_.cancelled()) stop = true;
      if (hooks_.progress) {
        hooks_.progress(static_cast<double>(done.load()), static_cast<double>(jobs.size()),
                        jobs[k].rel);
      }
    }
    for (std::thread& t : pool) t.join();
    if (stop.load()) throw Cancelled("cancelled while fixing files");
    for (FileResult& r : fixed) results_.push_back(std::move(r));
    for (size_t k = 0; k < results_.size(); ++k) result_index_[results_[k].path] = k;
    prove_syntax_trees();
  }

  // ---- the syntax-tree proof
  // ---------------------------------------------------------------------

  // The second, independent proof for Python: the syntax tree of every changed file, as Python's
  // own ast module reads it (through the interpreter the linters already need), is the same before
  // and after the fixes. A file whose tree changed, or whose fixed text no longer parses, keeps
  // none of its fixes; each finding says why.
  void prove_syntax_trees() {
    std::vector<size_t> changed;
    for (size_t k = 0; k < results_.size(); ++k) {
      const FileResult& r = results_[k];
      if (r.lang == Language::kPython && !r.fixes.empty() && r.fixed != r.original) {
        changed.push_back(k);
      }
    }
    if (changed.empty()) return;
    const std::string python = find_program("python3");
    if (python.empty()) {
      syntax_note_ = "python3 is not on PATH: the token proofs stand alone";
      return;
    }
    static const char* kScript =
        "import ast, sys\n"
        "d, n = sys.argv[1], int(sys.argv[2])\n"
        "for i in range(n):\n"
        "    try:\n"
        "        a = ast.dump(ast.parse(open('%s/%d.before' % (d, i), 'rb').read()))\n"
        "    except (SyntaxError, ValueError):\n"
        "        print(i, 'skip'); continue\n"
        "    try:\n"
        "        b = ast.dump(ast.parse(open('%s/%d.after' % (d, i), 'rb').read()))\n"
        "    except (SyntaxError, ValueError) as e:\n"
        "        print(i, 'the fixed text does not parse: %s' % e); continue\n"
        "    print(i, 'same' if a == b else 'the syntax tree differs')\n";
    const std::string dir = make_temp_dir("ci-fix-ast");
    write_file(dir + "/check.py", kScript);
    for (size_t i = 0; i < changed.size(); ++i) {
      write_file(dir + "/" + std::to_string(i) + ".before", results_[changed[i]].original);
      write_file(dir + "/" + std::to_string(i) + ".after", results_[changed[i]].fixed);
    }
    CommandResult cr =
        run_command({python, dir + "/check.py", dir, std::to_string(changed.size())}, dir, 600);
    remove_tree(dir);
    std::map<size_t, std::string> verdict;
    for (const std::string& line : split_lines(cr.out)) {
      const size_t sp = line.find(' ');
      if (sp == std::string::npos) continue;
      verdict[static_cast<size_t>(std::atol(line.substr(0, sp).c_str()))] = line.substr(sp + 1);
    }
    if (!cr.error.empty() || verdict.size() != changed.size()) {
      syntax_note_ = "the syntax-tree check did not complete (" +
                     (cr.error.empty() ? "exit code " + std::to_string(cr.exit_code) : cr.error) +
                     "): the token proofs stand alone";
    }
    for (size_t i = 0; i < changed.size(); ++i) {
      auto v = verdict.find(i);
      if (v == verdict.end() || v->second == "skip") continue;
      ++syntax_checked_;
      if (v->second == "same") continue;
      ++syntax_failed_;
      revert_file(results_[changed[i]], v->second);
    }
  }

  // Moves every fix of a file back to the residual list with the reason.
  static void revert_file(FileResult& r, const std::string& why) {
    const std::string reason = "the file's fixes were reverted: " + why +
                               " (Python's ast before and after the fixes, the second proof)";
    for (const AppliedFix& f : r.fixes) {
      for (size_t id : f.findings) {
        r.residual.push_back({id, f.line, "proof-failed", reason,
                              "Fix by hand; report the case, since the token proof passed.",
                              std::nullopt, ""});
      }
    }
    r.fixes.clear();
    r.covered.clear();
    r.edits.clear();
    r.fixed = r.original;
  }

  // ---- verification ----------------------------------------------------------------------------

  struct ToolCheck {
    std::string tool;
    std::vector<std::string> files;  // changed files it applies to
    bool available = true;
    std::string note;
    std::vector<Finding> before, after;
    bool have_before = false, have_after = false;
  };

  const FileResult* result_for(const std::string& rel) const {
    auto it = result_index_.find(rel);
    return it == result_index_.end() ? nullptr : &results_[it->second];
  }

  // Which verifier re-checks a finding's tool.
  std::string verifier_for(const Finding& f) const {
    std::string fam = tool_family(f.tool);
    if (f.tool == "flake8" || (fam == "pep8" && f.tool != "pycodestyle")) return "flake8";
    if (f.tool == "pycodestyle") return "pycodestyle";
    if (f.tool == "cpplint") return "cpplint";
    if (f.tool == "clang-format" || (f.tool == "lintrunner" && f.code == "CLANGFORMAT")) {
      return "clang-format";
    }
    if (f.tool == "builtin" || f.tool == "pre-commit" ||
        (f.tool == "lintrunner" &&
         (f.code == "SPACES" || f.code == "NEWLINE" || f.code == "TABS"))) {
      return "builtin";
    }
    if (f.tool == "codespell" || f.tool == "typos" ||
        (f.tool == "lintrunner" && f.code == "CODESPELL")) {
      return f.tool == "typos" ? "typos" : "codespell";
    }
    return "";
  }

  void verify_before() {
    // Tools whose findings were fixed in some file.
    std::map<std::string, std::set<std::string>> files_for;
    for (const FileResult& r : results_) {
      if (r.fixes.empty()) continue;
      for (const AppliedFix& fx : r.fixes) {
        for (size_t id : fx.findings) {
          std::string v = verifier_for(findings_[id]);
          if (!v.empty()) files_for[v].insert(r.path);
        }
      }
    }
    // flake8 and pycodestyle also check that Python files changed for other reasons gained nothing.
    for (const FileResult& r : results_) {
      if (r.fixes.empty()) continue;
      if (r.lang == Language::kPython && (ran_.count("flake8") || files_for.count("flake8")))
        files_for["flake8"].insert(r.path);
      if (r.lang == Language::kCpp && ran_.count("clang-format"))
        files_for["clang-format"].insert(r.path);
    }
    for (auto& [tool, set] : files_for) {
      ToolCheck tc;
      tc.tool = tool;
      tc.files.assign(set.begin(), set.end());
      if (tool == "builtin") {
        for (const std::string& f : tc.files) {
          const FileData* fd = load(f);
          for (const std::string& c : all_builtin_checks()) {
            for (Finding& x : builtin_check(fd->ctx, c)) tc.before.push_back(x);
          }
        }
        tc.have_before = true;
      } else if (tool == "flake8" || tool == "pycodestyle" || tool == "cpplint" ||
                 tool == "codespell" || tool == "typos") {
        if (ran_.count(tool)) {
          for (const Finding& f : findings_) {
            if (f.tool == tool && set.count(rel_or_empty(f))) tc.before.push_back(f);
          }
          tc.have_before = true;
        } else if (!find_program(tool).empty()) {
          tc.before = run_pep8(tool, tc.files, req_.repo, false);
          tc.have_before = !unavailable_.count(tool);
        }
      } else if (tool == "clang-format") {
        if (!find_program("clang-format").empty()) {
          for (const std::string& f : tc.files) {
            auto it = clang_replacements_.find(f);
            if (it != clang_replacements_.end()) {
              for (const Finding& x : it->second) tc.before.push_back(x);
            } else {
              std::map<std::string, std::string> src = {{f, load(f)->text}};
              auto got = clang_format({f}, req_.repo, src, "clang-format before the fixes");
              for (const Finding& x : got[f]) tc.before.push_back(x);
            }
          }
          tc.have_before = !unavailable_.count("clang-format");
        }
      }
      if (!tc.have_before) {
        tc.available = false;
        tc.note = unavailable_.count(tool)
                      ? unavailable_[tool]
                      : tool + " is not on PATH: the proofs stand alone for its fixes";
      }
      checks_.push_back(std::move(tc));
    }
  }

  std::vector<std::string> all_builtin_checks() const {
    return {"trailing-whitespace", "final-newline", "crlf", "tabs"};
  }

  std::string rel_or_empty(const Finding& f) const {
    std::string why;
    return relative(f.path, &why);
  }

  void verify_after() {
    if (checks_.empty()) return;
    std::string dir = req_.repo;
    std::string mirror;
    if (!req_.apply) {
      // Dry run: the fixed files go to a scratch copy with the repository's linter configs.
      mirror = make_temp_dir("ci-fix-verify-");
      dir = mirror;
      std::set<std::string> configs = {".flake8",      "setup.cfg",     "tox.ini",
                                       ".pycodestyle", ".clang-format", "_clang-format"};
      for (const std::string& c : configs) {
        auto text = read_file(req_.repo + "/" + c);
        if (text) write_file(mirror + "/" + c, *text);
      }
      for (const FileResult& r : results_) {
        if (r.fixes.empty()) continue;
        write_file(mirror + "/" + r.path, r.fixed);
        // .clang-format files between the file and the root.
        std::string d = r.path;
        while (true) {
          size_t s = d.rfind('/');
          if (s == std::string::npos) break;
          d = d.substr(0, s);
          for (const char* c : {".clang-format", "_clang-format"}) {
            auto text = read_file(req_.repo + "/" + d + "/" + c);
            if (text) write_file(mirror + "/" + d + "/" + c, *text);
          }
        }
      }
    }
    for (ToolCheck& tc : checks_) {
      if (!tc.available) continue;
      if (tc.tool == "builtin") {
        for (const std::string& f : tc.files) {
          const FileResult* r = result_for(f);
          LineIndex li(r->fixed);
          TokenStream ts = tokenize(r->fixed, r->lang);
          FileContext c;
          c.rel_path = f;
          c.lang = r->lang;
          c.text = r->fixed;
          c.lines = &li;
          c.tokens = &ts;
          for (const std::string& chk : all_builtin_checks()) {
            for (Finding& x : builtin_check(c, chk)) tc.after.push_back(x);
          }
        }
        tc.have_after = true;
      } else if (tc.tool == "flake8" || tc.tool == "pycodestyle" || tc.tool == "cpplint" ||
                 tc.tool == "codespell" || tc.tool == "typos") {
        unavailable_.erase(tc.tool);
        tc.after = run_pep8(tc.tool, tc.files, dir, false);
        tc.have_after = !unavailable_.count(tc.tool);
      } else if (tc.tool == "clang-format") {
        unavailable_.erase("clang-format");
        std::map<std::string, std::string> src;
        for (const std::string& f : tc.files) src[f] = result_for(f)->fixed;
        auto got = clang_format(tc.files, dir, src, "clang-format after the fixes");
        for (auto& [p, list] : got) {
          for (Finding& x : list) tc.after.push_back(x);
        }
        tc.have_after = !unavailable_.count("clang-format");
      }
      if (!tc.have_after) {
        tc.available = false;
        tc.note = "could not re-run " + tc.tool + ": " + unavailable_[tc.tool];
      }
    }
    if (!mirror.empty()) remove_tree(mirror);
  }

  // ---- apply -----------------------------------------------------------------------------------

  void apply() {
    for (FileResult& r : results_) {
      if (r.fixes.empty() || r.fixed == r.original) continue;
      std::string full = req_.repo + "/" + r.path;
      std::string real = real_path(full);
      if (real.empty() || !path_inside(req_.repo, real) || is_symlink(full)) {
        write_errors_.push_back(r.path + ": refused to write: resolves outside the repository");
        continue;
      }
      auto now = read_file(full);
      if (!now || *now != r.original) {
        write_errors_.push_back(r.path + ": changed on disk while the skill ran; nothing written");
        continue;
      }
      std::string err = write_atomically(full, r.fixed);
      if (!err.empty()) {
        write_errors_.push_back(err);
      } else {
        written_.push_back(r.path);
      }
    }
  }

  // ---- output ----------------------------------------------------------------------------------

  json finding_json(size_t id) const {
    const Finding& f = findings_[id];
    json j = {{"tool", f.tool}, {"rule", f.code}, {"line", f.line}, {"message", f.message}};
    if (f.col) j["col"] = f.col;
    if (!f.via.empty()) j["via"] = f.via;
    return j;
  }

  json output() {
    json fixes = json::array();
    json residual = json::array();
    json clean = json::array();
    json skipped = json::array();
    std::string patch;
    std::map<std::string, std::string> class_patches;  // patch_by_class: class -> patch
    size_t fix_no = 0, proofs_run = 0, proofs_failed = 0, files_changed = 0;
    std::map<std::string, std::array<size_t, 3>> by_rule;  // findings, fixed, residual
    std::map<std::string, size_t> by_class;
    auto rule_key = [&](size_t id) {
      const Finding& f = findings_[id];
      return f.tool + " " + f.code;
    };
    for (size_t id = 0; id < findings_.size(); ++id) by_rule[rule_key(id)][0]++;

    for (FileResult& r : results_) {
      LineIndex before_lines(r.original);
      LineIndex after_lines(r.fixed);
      proofs_run += r.proofs_run;
      if (!r.edits.empty()) {
        ++files_changed;
        patch += file_diff(r.path, r.original, before_lines, r.edits, req_.context);
      }
      if (req_.patch_by_class) {
        std::map<std::string, std::vector<Edit>> by_klass;
        for (const AppliedFix& fx : r.fixes) {
          auto& v = by_klass[fx.klass];
          v.insert(v.end(), fx.edits.begin(), fx.edits.end());
        }
        for (auto& [klass, edits] : by_klass) {
          std::sort(edits.begin(), edits.end(), [](const Edit& x, const Edit& y) {
            return x.begin != y.begin ? x.begin < y.begin : x.end < y.end;
          });
          class_patches[klass] += file_diff(r.path, r.original, before_lines, edits, req_.context);
        }
      }
      for (const AppliedFix& fx : r.fixes) {
        ++fix_no;
        const Finding& first = findings_[fx.findings.front()];
        json fj = {{"id", fix_no},
                   {"file", r.path},
                   {"line", fx.line},
                   {"line_after",
                    map_line(before_lines, r.edits, after_lines, fx.line == 0 ? 1 : fx.line)},
                   {"tool", first.tool},
                   {"rule", first.code},
                   {"message", first.message},
                   {"class", fx.klass},
                   {"what", fx.what},
                   {"why", whitelist_.classes().at(fx.klass).why},
                   {"proof",
                    {{"level", proof_level_name(fx.level)},
                     {"method", fx.proof.method},
                     {"passed", fx.proof.passed},
                     {"tokens_compared", fx.proof.compared}}},
                   {"hunk", fx.hunk}};
        json fl = json::array();
        for (size_t id : fx.findings) {
          fl.push_back(finding_json(id));
          by_rule[rule_key(id)][1]++;
        }
        fj["findings"] = fl;
        by_class[fx.klass]++;
        fixes.push_back(fj);
      }
      for (const ResidualItem& it : r.residual) {
        const Finding& f = findings_[it.finding];
        json rj = {{"file", r.path},       {"line", it.line},
                   {"tool", f.tool},       {"rule", f.code},
                   {"message", f.message}, {"kind", it.kind},
                   {"reason", it.reason},  {"suggestion", it.suggestion}};
        if (it.line > 0 && it.line <= before_lines.count()) {
          rj["line_after"] = map_line(before_lines, r.edits, after_lines, it.line);
        }
        if (f.col) rj["col"] = f.col;
        if (!f.via.empty()) rj["via"] = f.via;
        if (it.proof) {
          ++proofs_failed;
          rj["proof"] = {
              {"method", it.proof->method}, {"passed", false}, {"detail", it.proof->detail}};
          if (!it.attempted.empty()) rj["attempted_hunk"] = it.attempted;
        }
        residual.push_back(rj);
        by_rule[rule_key(it.finding)][2]++;
      }
      for (const auto& [id, note] : r.already_clean) {
        json cj = finding_json(id);
        cj["file"] = r.path;
        cj["note"] = note;
        clean.push_back(cj);
      }
    }
    auto residual_all = [&](size_t id, const std::string& file, const std::string& kind,
                            const std::string& reason, const std::string& suggestion) {
      const Finding& f = findings_[id];
      json rj = {{"file", file},     {"line", f.line},          {"tool", f.tool},
                 {"rule", f.code},   {"message", f.message},    {"kind", kind},
                 {"reason", reason}, {"suggestion", suggestion}};
      residual.push_back(rj);
      by_rule[rule_key(id)][2]++;
    };
    for (const SkippedFile& s : skipped_) {
      std::set<std::string> rules;
      for (size_t id : s.findings) {
        rules.insert(findings_[id].code);
        residual_all(id, s.path, "skipped-file", "file left untouched: " + s.reason,
                     "Fix by hand if the file should be linted at all.");
      }
      skipped.push_back({{"file", s.path},
                         {"reason", s.reason},
                         {"findings", s.findings.size()},
                         {"rules", std::vector<std::string>(rules.begin(), rules.end())}});
    }
    for (const auto& [path, ids] : outside_) {
      for (size_t id : ids) {
        residual_all(id, path, "skipped-file", "file left untouched: " + outside_why_[path],
                     "Lint it from its own repository.");
      }
      skipped.push_back({{"file", path},
                         {"reason", outside_why_[path]},
                         {"findings", ids.size()},
                         {"rules", json::array()}});
    }
    for (size_t id : general_) {
      Verdict v = whitelist_.judge(findings_[id], "");
      residual_all(
          id, "", "not-whitelisted",
          v.why_not.empty() ? "not tied to a file: nothing to fix automatically" : v.why_not,
          v.suggestion.empty() ? "Read the hook's output and fix by hand." : v.suggestion);
    }

    // Verification.
    json ver = json::array();
    bool all_ok = true;
    for (const ToolCheck& tc : checks_) {
      json vj = {{"tool", tc.tool}, {"files", tc.files}, {"available", tc.available}};
      if (!tc.available) {
        vj["note"] = tc.note;
        ver.push_back(vj);
        continue;
      }
      compare(tc, &vj, &all_ok);
      ver.push_back(vj);
    }

    json by_rule_j = json::array();
    for (const auto& [rule, n] : by_rule) {
      size_t sp = rule.find(' ');
      by_rule_j.push_back({{"tool", rule.substr(0, sp)},
                           {"rule", rule.substr(sp + 1)},
                           {"findings", n[0]},
                           {"fixed", n[1]},
                           {"residual", n[2]}});
    }
    json cmds = json::array();
    for (const Command& c : commands_) {
      json cj = {{"command", shell_quote(c.result.argv)},
                 {"cwd", c.result.cwd},
                 {"purpose", c.purpose},
                 {"exit_code", c.result.exit_code}};
      if (!c.result.error.empty()) cj["error"] = c.result.error;
      cmds.push_back(cj);
    }
    size_t fixed_findings = 0;
    for (const auto& [rule, n] : by_rule) fixed_findings += n[1];
    json summary = {{"mode", req_.apply ? "apply" : "dry-run"},
                    {"findings", findings_.size()},
                    {"fixed", fixed_findings},
                    {"fixes", fix_no},
                    {"residual", residual.size()},
                    {"already_clean", clean.size()},
                    {"skipped_files", skipped.size()},
                    {"files_changed", files_changed},
                    {"proofs_run", proofs_run},
                    {"proofs_failed", proofs_failed},
                    {"verified", all_ok && !checks_.empty()},
                    {"syntax_trees",
                     {{"checked", syntax_checked_},
                      {"reverted", syntax_failed_},
                      {"note", syntax_note_.empty() ? json() : json(syntax_note_)}}},
                    {"by_rule", by_rule_j},
                    {"by_class", by_class}};
    json out = {{"repo", req_.repo},
                {"summary", summary},
                {"fixes", fixes},
                {"residual", residual},
                {"already_clean", clean},
                {"skipped_files", skipped},
                {"verification", ver},
                {"commands", cmds},
                {"patch", patch},
                {"class_patches", req_.patch_by_class ? json(class_patches) : json()},
                {"whitelist", std::vector<std::string>(whitelist_.enabled().begin(),
                                                       whitelist_.enabled().end())}};
    json inputs = {{"scope", req_.scope_kind}, {"linters_run", req_.run}};
    if (req_.report_text) {
      inputs["report"] = req_.report_source;
      inputs["report_formats"] = ingest_formats_;
      inputs["unparsed_lines"] = unparsed_count_;
      if (!unparsed_.empty()) inputs["unparsed_examples"] = unparsed_;
    }
    if (!spelling_configs_.empty()) inputs["spelling_configs"] = spelling_configs_;
    if (!unavailable_.empty()) inputs["linters_unavailable"] = unavailable_;
    inputs["max_line_length"] = {{"value", max_line_length_}, {"from", line_length_source_}};
    out["inputs"] = inputs;
    if (req_.apply) {
      out["written"] = written_;
      if (!write_errors_.empty()) out["write_errors"] = write_errors_;
    }
    std::string md = render_markdown(out);
    if (!req_.report_dir.empty()) {
      std::string err = write_file(req_.report_dir + "/ci-fix-report.md", md);
      if (err.empty()) err = write_file(req_.report_dir + "/ci-fix.patch", patch);
      json paths = {{"markdown", req_.report_dir + "/ci-fix-report.md"},
                    {"json", req_.report_dir + "/ci-fix-report.json"},
                    {"patch", req_.report_dir + "/ci-fix.patch"}};
      for (const auto& [klass, text] : class_patches) {
        const std::string path = req_.report_dir + "/ci-fix." + klass + ".patch";
        if (err.empty()) err = write_file(path, text);
        paths["class_patches"][klass] = path;
      }
      out["reports"] = paths;
      if (err.empty()) err = write_file(req_.report_dir + "/ci-fix-report.json", out.dump(2));
      if (!err.empty()) throw RequestError("report_dir: " + err);
    } else {
      out["markdown"] = md;
    }
    if (!scratch_.empty()) remove_tree(scratch_);
    return out;
  }

  void compare(const ToolCheck& tc, json* vj, bool* all_ok) {
    // Key: (file, rule, line after the fixes). Before-findings are mapped through the edits.
    std::map<std::tuple<std::string, std::string, uint32_t>, std::vector<const Finding*>> before;
    std::map<std::string, std::unique_ptr<LineIndex>> li_before, li_after;
    auto mapped = [&](const Finding& f, const std::string& rel) -> uint32_t {
      const FileResult* r = result_for(rel);
      if (r == nullptr || f.line == 0) return f.line;
      auto& b = li_before[rel];
      auto& a = li_after[rel];
      if (!b) b = std::make_unique<LineIndex>(r->original);
      if (!a) a = std::make_unique<LineIndex>(r->fixed);
      if (f.line > b->count())
        return f.line + static_cast<uint32_t>(a->count()) - static_cast<uint32_t>(b->count());
      return map_line(*b, r->edits, *a, f.line);
    };
    // clang-format's replacements are compared per line: a line needing formatting before and
    // after is "remaining" however its replacements changed; only a line that was clean is "new".
    bool per_line = tc.tool == "clang-format";
    std::vector<Finding> before_list, after_list;
    std::set<std::tuple<std::string, std::string, uint32_t>> seen_b, seen_a;
    for (const Finding& f : tc.before) {
      if (!per_line || seen_b.insert({rel_or_empty(f), f.code, f.line}).second)
        before_list.push_back(f);
    }
    for (const Finding& f : tc.after) {
      if (!per_line || seen_a.insert({rel_or_empty(f), f.code, f.line}).second)
        after_list.push_back(f);
    }
    for (const Finding& f : before_list) {
      std::string rel = rel_or_empty(f);
      before[{rel, f.code, mapped(f, rel)}].push_back(&f);
    }
    json remaining = json::array(), fresh = json::array();
    size_t matched = 0;
    std::vector<const Finding*> unmatched_after;
    for (const Finding& f : after_list) {
      std::string rel = rel_or_empty(f);
      auto it = before.find({rel, f.code, f.line});
      if (it != before.end() && !it->second.empty()) {
        it->second.pop_back();
        ++matched;
        remaining.push_back(
            {{"file", rel}, {"line", f.line}, {"rule", f.code}, {"message", f.message}});
      } else {
        unmatched_after.push_back(&f);
      }
    }
    // A finding whose line moved in a way the mapping cannot follow: match by file, rule, message.
    for (const Finding* f : unmatched_after) {
      std::string rel = rel_or_empty(*f);
      bool found = false;
      for (auto& [key, list] : before) {
        if (std::get<0>(key) != rel || std::get<1>(key) != f->code) continue;
        for (auto it = list.begin(); it != list.end(); ++it) {
          if ((*it)->message == f->message && tc.tool != "clang-format") {
            list.erase(it);
            found = true;
            break;
          }
        }
        if (found) break;
      }
      if (found) {
        ++matched;
        remaining.push_back(
            {{"file", rel}, {"line", f->line}, {"rule", f->code}, {"message", f->message}});
      } else {
        fresh.push_back(
            {{"file", rel}, {"line", f->line}, {"rule", f->code}, {"message", f->message}});
      }
    }
    size_t gone = before_list.size() - matched;
    if (per_line) {
      // A line that clang-format wanted to change may have been split by the fixes: every line it
      // became counts as the same place.
      std::set<std::pair<std::string, uint32_t>> covered;
      std::map<std::pair<std::string, uint32_t>, std::pair<std::string, uint32_t>> origin;
      for (const Finding& f : before_list) {
        std::string rel = rel_or_empty(f);
        const FileResult* r = result_for(rel);
        uint32_t a = mapped(f, rel), b = a + 1;
        if (r != nullptr && f.line > 0) {
          Finding next = f;
          next.line = f.line + 1;
          b = std::max(a + 1, f.line + 1 <= li_before[rel]->count() ? mapped(next, rel) : a + 1);
        }
        for (uint32_t l = a; l < b; ++l) {
          covered.insert({rel, l});
          origin[{rel, l}] = {rel, f.line};
        }
      }
      remaining = json::array();
      fresh = json::array();
      std::set<std::pair<std::string, uint32_t>> still;
      for (const Finding& f : after_list) {
        std::string rel = rel_or_empty(f);
        json j = {{"file", rel}, {"line", f.line}, {"rule", f.code}, {"message", f.message}};
        if (covered.count({rel, f.line})) {
          remaining.push_back(j);
          still.insert(origin[{rel, f.line}]);
        } else {
          fresh.push_back(j);
        }
      }
      gone = before_list.size() - still.size();
    }
    // Fixed findings of this tool that are still reported: per (file, rule, line), more findings
    // after the fixes than the residual ones left there.
    std::map<std::tuple<std::string, std::string, uint32_t>, std::array<size_t, 3>>
        tally;  // fixed, residual, after
    for (const FileResult& r : results_) {
      for (const AppliedFix& fx : r.fixes) {
        for (size_t id : fx.findings) {
          const Finding& f = findings_[id];
          if (verifier_for(f) != tc.tool || tc.tool == "clang-format") continue;
          tally[{r.path, f.code, mapped(f, r.path)}][0]++;
        }
      }
      for (const ResidualItem& it : r.residual) {
        const Finding& f = findings_[it.finding];
        if (verifier_for(f) != tc.tool) continue;
        auto key = std::make_tuple(r.path, f.code, mapped(f, r.path));
        if (tally.count(key)) tally[key][1]++;
      }
    }
    for (const auto& rj : remaining) {
      auto key = std::make_tuple(rj["file"].get<std::string>(), rj["rule"].get<std::string>(),
                                 rj["line"].get<uint32_t>());
      auto it = tally.find(key);
      if (it != tally.end()) it->second[2]++;
    }
    json not_cleared = json::array();
    for (const auto& [key, n] : tally) {
      size_t extra = n[2] > n[1] ? std::min(n[0], n[2] - n[1]) : 0;
      for (size_t k = 0; k < extra; ++k) {
        not_cleared.push_back(
            {{"file", std::get<0>(key)}, {"line", std::get<2>(key)}, {"rule", std::get<1>(key)}});
      }
    }
    (*vj)["before"] = before_list.size();
    (*vj)["after"] = after_list.size();
    if (per_line) (*vj)["unit"] = "lines needing formatting";
    (*vj)["gone"] = gone;
    (*vj)["remaining"] = remaining;
    (*vj)["new"] = fresh;
    (*vj)["not_cleared"] = not_cleared;
    (*vj)["ok"] = fresh.empty() && not_cleared.empty();
    if (!fresh.empty() || !not_cleared.empty()) *all_ok = false;
  }

  Request req_;
  Hooks hooks_;
  Whitelist whitelist_;
  TypoTable typos_;
  std::vector<std::string> scope_entries_;
  std::vector<Finding> findings_;
  std::vector<std::string> ingest_formats_, unparsed_;
  size_t unparsed_count_ = 0;
  std::set<std::string> ran_;
  std::set<std::string> builtin_checks_;
  std::map<std::string, std::string> unavailable_;
  std::vector<Command> commands_;
  std::map<std::string, std::unique_ptr<FileData>> files_;
  std::map<std::string, std::vector<Finding>> clang_replacements_;
  std::map<size_t, std::string> rel_of_;
  std::vector<size_t> general_;
  std::map<std::string, std::vector<size_t>> outside_;
  std::map<std::string, std::string> outside_why_;
  std::vector<SkippedFile> skipped_;
  std::vector<FileResult> results_;
  std::map<std::string, size_t> result_index_;
  std::vector<ToolCheck> checks_;
  std::vector<std::string> written_, write_errors_;
  std::vector<std::string> spelling_configs_;
  std::set<std::string> ignored_words_;
  std::string scratch_, bundled_style_;
  int max_line_length_ = 79;
  bool w503_enabled_ = false;  // the repository's flake8 config reports W503 / W504
  bool w504_enabled_ = false;
  size_t syntax_checked_ = 0;  // Python files whose syntax trees were compared
  size_t syntax_failed_ = 0;   // and reverted because they differed
  std::string syntax_note_;    // why the check did not run, when it did not
  std::string line_length_source_ = "pycodestyle's default";
};

}  // namespace

json run_ci_fix(const json& input, const Hooks& hooks) {
  Request req = parse_request(input);
  Session s(std::move(req), hooks);
  return s.run();
}

}  // namespace skillrt::ci_fix
