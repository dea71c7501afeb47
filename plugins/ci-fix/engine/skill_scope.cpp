// The skill's scope: which files a run covers (all, a list, a diff), and each file loaded and
// checked once.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include "optoolkit/text.hpp"
#include "session.hpp"

namespace skillrt::ci_fix::detail {

void Session::resolve_scope() {
  if (req_.scope_kind == "files") {
    for (const std::string& f : req_.scope_files) {
      std::string why;
      std::string rel = relative(f, &why);
      if (rel.empty()) throw RequestError("scope.files: " + f + " is " + why);
      scope_entries_.push_back(rel);
    }
  } else if (req_.scope_kind == "diff") {
    std::vector<std::string> argv = {
        "git", "-C", req_.repo, "diff", "--name-only", "-z", "--diff-filter=ACMR", req_.diff, "--"};
    CommandResult r = run_logged(argv, req_.repo, "list the files changed in " + req_.diff);
    if (!r.started || r.exit_code != 0) {
      throw RequestError("scope.diff: `" + shell_quote(argv) +
                         "` failed: " + (r.error.empty() ? ops::trim(r.err) : r.error) +
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

bool Session::in_scope(const std::string& rel) const {
  if (req_.scope_kind == "all") return true;
  for (const std::string& s : scope_entries_) {
    if (rel == s || (s == ".") || starts_with(rel, s + "/")) return true;
  }
  return false;
}

// Files of the scope that exist (for running linters).
std::vector<std::string> Session::scope_files() {
  std::vector<std::string> out;
  if (req_.scope_kind == "all") {
    if (is_directory(req_.repo + "/.git")) {
      CommandResult r = run_logged(
          {"git", "-C", req_.repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard"},
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

void Session::walk(const std::string& rel, std::vector<std::string>* out) {
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
std::string Session::relative(const std::string& reported, std::string* why) const {
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

const Session::FileData* Session::load(const std::string& rel) {
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
std::string Session::check_file(const std::string& rel, std::string* text) {
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

}  // namespace skillrt::ci_fix::detail
