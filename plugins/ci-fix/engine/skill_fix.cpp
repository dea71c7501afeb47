// The skill's fixes: each file fixed by the engine on a worker pool, Python files proven by their
// syntax trees, and the fixes written when the request applies them.
#include <algorithm>
#include <atomic>
#include <thread>

#include "session.hpp"

namespace skillrt::ci_fix::detail {

void Session::fix_files() {
  const std::map<std::string, std::vector<size_t>> by_file = group_by_file();
  run_clang_format_where_needed(by_file);
  const std::vector<Job> jobs = make_jobs(by_file);
  std::vector<FileResult> fixed = run_jobs(jobs);
  for (FileResult& r : fixed) results_.push_back(std::move(r));
  for (size_t k = 0; k < results_.size(); ++k) result_index_[results_[k].path] = k;
  prove_syntax_trees();
}

// Findings by the file they are in (repository-relative); findings without a file and files
// outside the repository are set aside.
std::map<std::string, std::vector<size_t>> Session::group_by_file() {
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
  return by_file;
}

// cpplint whitespace findings are fixed through clang-format's edits: run it where needed.
void Session::run_clang_format_where_needed(
    const std::map<std::string, std::vector<size_t>>& by_file) {
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
}

// Loads each file (sequentially: the file cache is shared) into a job for the engine. Files that
// cannot be read are skipped, protected (generated, vendored) ones keep all their findings.
std::vector<Session::Job> Session::make_jobs(
    const std::map<std::string, std::vector<size_t>>& by_file) {
  std::vector<Job> jobs;
  for (const auto& [rel, ids] : by_file) {
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
  return jobs;
}

// Fixes the files in parallel: process_file reads only its own file's context and the shared,
// read-only whitelist and typo table.
std::vector<FileResult> Session::run_jobs(const std::vector<Job>& jobs) {
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
  return fixed;
}

// The second, independent proof for Python: the syntax tree of every changed file, as Python's
// own ast module reads it (through the interpreter the linters already need), is the same before
// and after the fixes. A file whose tree changed, or whose fixed text no longer parses, keeps
// none of its fixes; each finding says why.
void Session::prove_syntax_trees() {
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
void Session::revert_file(FileResult& r, const std::string& why) {
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

void Session::apply() {
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

}  // namespace skillrt::ci_fix::detail
