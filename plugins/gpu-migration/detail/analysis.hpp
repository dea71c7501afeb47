// Scanning a set of repository files and turning matches into findings; shared by the three
// skills.
#ifndef SKILLRT_GPU_MIGRATION_DETAIL_ANALYSIS_HPP_
#define SKILLRT_GPU_MIGRATION_DETAIL_ANALYSIS_HPP_

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
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
};

struct RepoScan {
  std::filesystem::path root;
  std::vector<FileScan> files;
  std::vector<Skipped> skipped;
  std::vector<std::string> vendored;
  std::vector<std::string> notes;
};

WalkOptions walk_options(const nlohmann::json& input);
RuleTable table_for(const nlohmann::json& input);

// Reads and scans `files`; unreadable, binary and malformed files land in `skipped`.
// Without `keep_text` the sources are dropped after scanning (findings keep their lines).
RepoScan scan_files(const std::filesystem::path& root, std::vector<RepoFile> files,
                    const Scanner& scanner, const Hooks& hooks, bool keep_text = true);

nlohmann::json finding_json(const FileScan& f, const Match& m, int cell);

// Findings, suggestions, per-domain verdicts and the overall verdict.
nlohmann::json summarize(const RepoScan& scan, const RuleTable& table);

std::string render_markdown(const nlohmann::json& result);
void write_xlsx(const nlohmann::json& result, const std::string& path);

}  // namespace skillrt::gpu_migration::detail

#endif  // SKILLRT_GPU_MIGRATION_DETAIL_ANALYSIS_HPP_
