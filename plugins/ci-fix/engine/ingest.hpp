// Parsers for the lint reports the skill ingests: flake8/pycodestyle/ruff text, lintrunner JSON
// lines, cpplint, clang-tidy and cppcheck text, codespell and typos output (brief, long and JSON),
// and pre-commit output (hook sections wrapping any of the others).
#ifndef SKILLRT_CI_FIX_ENGINE_INGEST_HPP_
#define SKILLRT_CI_FIX_ENGINE_INGEST_HPP_

#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace skillrt::ci_fix {

struct IngestResult {
  std::vector<Finding> findings;
  std::vector<std::string> formats;   // formats recognised, in order of first appearance
  std::vector<std::string> unparsed;  // non-empty lines no parser understood (first 50)
  size_t unparsed_count = 0;
};

// `format`: "auto" or one of flake8, pycodestyle, ruff, lintrunner, cpplint, clang-tidy, cppcheck,
// codespell, typos, pre-commit. Throws std::invalid_argument for an unknown format.
IngestResult ingest_report(std::string_view text, const std::string& format);

// The output of `clang-format --output-replacements-xml` for one file, as findings.
std::vector<Finding> parse_clang_format_xml(std::string_view xml, const std::string& path,
                                            std::string_view source, std::string* error);

}  // namespace skillrt::ci_fix

#endif  // SKILLRT_CI_FIX_ENGINE_INGEST_HPP_
