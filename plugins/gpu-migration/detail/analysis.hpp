// Scanning a set of repository files and turning matches into findings; shared by the three
// skills.
#ifndef SKILLRT_GPU_MIGRATION_DETAIL_ANALYSIS_HPP_
#define SKILLRT_GPU_MIGRATION_DETAIL_ANALYSIS_HPP_

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "detail/repo.hpp"
#include "detail/scanner.hpp"
#include "gpu_migration.hpp"

namespace skillrt::gpu_migration::detail {

struct CellScan {
  int index = 0;
  std::string source;
  PythonScan scan;
  std::vector<Match> magics;  // `!pip install ...` lines matched as requirements
};

struct FileScan {
  RepoFile file;
  std::string text;
  PythonScan python;
  std::vector<Match> text_matches;
  std::vector<CellScan> cells;
  bool tokenized_cleanly = true;
  // Filled by scan_files with ScanOptions::findings_text: the file's findings and suggestions
  // as JSON text (objects separated by commas, no brackets), written on the scanning threads.
  bool has_text = false;
  std::string findings_text;
  std::string suggestions_text;
  // With has_text the matches themselves are freed on the scanning thread; what the verdicts
  // need of them (rule and effort, in report order) stays here.
  struct Counted {
    const Rule* rule;
    std::string effort;
  };
  std::vector<Counted> counted;
};

struct ScanOptions {
  // Without keep_text the sources are dropped after scanning (findings keep their lines).
  bool keep_text = true;
  bool findings_text = false;
};

struct RepoScan {
  std::filesystem::path root;
  std::vector<FileScan> files;
  std::vector<Skipped> skipped;
  std::vector<std::string> vendored;
  std::vector<std::string> notes;
};

WalkOptions walk_options(const nlohmann::json& input);

// A notebook cell's `!` and `%` lines are not Python: they are blanked, keeping every offset and
// line number, and `pip install` lines are handed back (line, text) to be matched as
// requirements.
std::string blank_magics(const std::string& src, std::vector<std::pair<int, std::string>>* pips);
RuleTable table_for(const nlohmann::json& input);

// Reads and scans `files`; unreadable, binary and malformed files land in `skipped`.
RepoScan scan_files(const std::filesystem::path& root, std::vector<RepoFile> files,
                    const Scanner& scanner, const Hooks& hooks, ScanOptions options = {});

// A finding: file, line, code, rule, domain, effort, ...; with `rule_text` also the rule's
// alternative and source, which analyze lists once per rule instead (see rule_json).
nlohmann::json finding_json(const FileScan& f, const Match& m, int cell, bool rule_text = true);
// A rule's entry in analyze's `rules` section: alternative, domain, effort, source, suggestion.
nlohmann::json rule_json(const Rule& r);

// A file's matches in report order: Python and text matches by line and column, then each
// notebook cell's.
struct Located {
  Match* match;
  int cell;  // -1 outside notebooks
};
std::vector<Located> report_order(FileScan& f);

// Findings and suggestions, each a JSON array as text.
struct FindingsText {
  std::string findings;
  std::string suggestions;
};

// Findings, suggestions, per-domain verdicts and the overall verdict. With `text`, the findings
// text that scan_files wrote (ScanOptions::findings_text) is moved there and the result has no
// `findings` and `suggestions` entries; without it they are built as Json from the matches.
nlohmann::json summarize(RepoScan& scan, const RuleTable& table, FindingsText* text = nullptr);

// `rest` (an object without `findings` and `suggestions`) and `text` as one JSON object's text,
// keys in nlohmann's order: exactly what dump() gives for the same result built as Json.
std::string result_text(const nlohmann::json& rest, const FindingsText& text);

std::string render_markdown(const nlohmann::json& result);
void write_xlsx(const nlohmann::json& result, const std::string& path);

}  // namespace skillrt::gpu_migration::detail

#endif  // SKILLRT_GPU_MIGRATION_DETAIL_ANALYSIS_HPP_
