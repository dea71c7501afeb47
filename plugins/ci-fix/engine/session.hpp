// The ci-static-errors-fix skill's run: one object per call that holds the request, the scope,
// the findings, the fixes and their verification. Its member functions are defined by stage:
// skill.cpp (the run), skill_scope.cpp (scope and files), skill_findings.cpp (linters and
// reports), skill_config.cpp (the repository's lint configuration), skill_fix.cpp (fixes,
// syntax-tree proof, apply), skill_verify.cpp (linters before and after) and skill_output.cpp.
#ifndef SKILLRT_CI_FIX_ENGINE_SESSION_HPP_
#define SKILLRT_CI_FIX_ENGINE_SESSION_HPP_

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine.hpp"
#include "ingest.hpp"
#include "patch.hpp"
#include "report.hpp"
#include "skill.hpp"
#include "system.hpp"

namespace skillrt::ci_fix::detail {

using nlohmann::json;

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

// `p` made absolute against `base`, normalised.
std::string absolute(const std::string& p, const std::string& base);

// Reads and checks the request; throws RequestError naming what is wrong.
Request parse_request(const json& in);

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

  json run();

 private:
  // ---- scope -----------------------------------------------------------------------------------

  void resolve_scope();

  bool in_scope(const std::string& rel) const;

  // Files of the scope that exist (for running linters).
  std::vector<std::string> scope_files();

  void walk(const std::string& rel, std::vector<std::string>* out);

  // Repository-relative path for a reported path, or empty with the reason.
  std::string relative(const std::string& reported, std::string* why) const;

  // ---- findings --------------------------------------------------------------------------------

  void collect_findings();

  std::vector<std::string> filter_flake8_excludes(const std::vector<std::string>& files);

  CommandResult run_logged(const std::vector<std::string>& argv, const std::string& dir,
                           const std::string& purpose);

  // Runs a text-reporting linter on files (relative to dir) and parses what it prints.
  std::vector<Finding> run_pep8(const std::string& tool, const std::vector<std::string>& files,
                                const std::string& dir, bool record_ran);

  std::string clang_format_style_arg();

  // Runs clang-format on files (relative to dir), returning replacements per file.
  std::map<std::string, std::vector<Finding>> clang_format(
      const std::vector<std::string>& files, const std::string& dir,
      const std::map<std::string, std::string>& sources, const std::string& purpose);

  void run_clang_format_all(const std::vector<std::string>& files, bool as_findings);

  // ---- files -----------------------------------------------------------------------------------

  struct FileData {
    bool ok = false;
    std::string skip;  // why the file is left untouched
    std::string text;
    std::unique_ptr<LineIndex> lines;
    TokenStream tokens;
    FileContext ctx;
  };

  const FileData* load(const std::string& rel);

  // Why a file is left untouched, or empty. Fills `text` when it can be fixed.
  std::string check_file(const std::string& rel, std::string* text);

  // pycodestyle's max-line-length as the repository sets it for flake8 or pycodestyle. Where the
  // config ignores E501 and selects flake8-bugbear's B950 (torch_npu does), the gate's limit is
  // B950's: max-line-length plus 10%.
  void load_line_length();

  void load_spelling_config();
  void parse_word_list(const std::string& s);
  void ignore_word(std::string w);

  // ---- fixing ----------------------------------------------------------------------------------

  // Load (sequential: the file cache is shared), then fix files in parallel.
  struct Job {
    std::string rel;
    std::vector<size_t> ids;
    FileContext ctx;
  };
  void fix_files();
  std::map<std::string, std::vector<size_t>> group_by_file();
  void run_clang_format_where_needed(const std::map<std::string, std::vector<size_t>>& by_file);
  std::vector<Job> make_jobs(const std::map<std::string, std::vector<size_t>>& by_file);
  std::vector<FileResult> run_jobs(const std::vector<Job>& jobs);

  // ---- the syntax-tree proof
  // ---------------------------------------------------------------------

  // The second, independent proof for Python: the syntax tree of every changed file, as Python's
  // own ast module reads it (through the interpreter the linters already need), is the same before
  // and after the fixes. A file whose tree changed, or whose fixed text no longer parses, keeps
  // none of its fixes; each finding says why.
  void prove_syntax_trees();

  // Moves every fix of a file back to the residual list with the reason.
  static void revert_file(FileResult& r, const std::string& why);

  // ---- verification ----------------------------------------------------------------------------

  struct ToolCheck {
    std::string tool;
    std::vector<std::string> files;  // changed files it applies to
    bool available = true;
    std::string note;
    std::vector<Finding> before, after;
    bool have_before = false, have_after = false;
  };

  const FileResult* result_for(const std::string& rel) const;

  // Which verifier re-checks a finding's tool.
  std::string verifier_for(const Finding& f) const;

  void verify_before();

  std::vector<std::string> all_builtin_checks() const;

  std::string rel_or_empty(const Finding& f) const;

  void verify_after();

  // ---- apply -----------------------------------------------------------------------------------

  void apply();

  // ---- output ----------------------------------------------------------------------------------

  json finding_json(size_t id) const;

  // What output() gathers from the per-file results before it writes the answer.
  struct Tally {
    json fixes = json::array();
    json residual = json::array();
    json clean = json::array();
    json skipped = json::array();
    std::string patch;
    std::map<std::string, std::string> class_patches;  // patch_by_class: class -> patch
    size_t fix_no = 0, proofs_run = 0, proofs_failed = 0, files_changed = 0;
    std::map<std::string, std::array<size_t, 3>> by_rule;  // findings, fixed, residual
    std::map<std::string, size_t> by_class;
  };
  json output();
  std::string rule_key(size_t id) const;
  void tally_file(const FileResult& r, Tally& t);
  void tally_fixes(const FileResult& r, const LineIndex& before_lines, const LineIndex& after_lines,
                   Tally& t);
  void add_residual(size_t id, const std::string& file, const std::string& kind,
                    const std::string& reason, const std::string& suggestion, Tally& t);
  void tally_untouched(Tally& t);
  json verification_json(bool* all_ok);
  json inputs_json() const;
  void write_reports(const Tally& t, json& out);

  void compare(const ToolCheck& tc, json* vj, bool* all_ok);
  json still_reported(const ToolCheck& tc, const json& remaining,
                      const std::function<uint32_t(const Finding&, const std::string&)>& mapped);

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

}  // namespace skillrt::ci_fix::detail

#endif  // SKILLRT_CI_FIX_ENGINE_SESSION_HPP_
