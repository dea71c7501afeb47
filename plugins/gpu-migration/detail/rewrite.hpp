// Turning matches into a rewritten file, its commented changes and a unified diff.
#ifndef SKILLRT_GPU_MIGRATION_DETAIL_REWRITE_HPP_
#define SKILLRT_GPU_MIGRATION_DETAIL_REWRITE_HPP_

#include <string>
#include <string_view>
#include <vector>

#include "detail/scanner.hpp"

namespace skillrt::gpu_migration::detail {

enum class RewriteMode { kRewrite, kTransferToNpu };

struct Change {
  int line = 0;  // in the original file
  const Rule* rule = nullptr;
  std::string original;     // the original line, trimmed
  std::string replacement;  // the rewritten line, trimmed
};

// One line of the line-level edit script: ' ' kept, '-' removed, '+' added.
struct DiffLine {
  char op = ' ';
  std::string text;     // without its line terminator
  bool no_eol = false;  // the last line of its file, without a terminator
};

// Marks the last line of `before` and of `after` in `script` when that text does not end with a
// newline, so the diff says so and patch(1) reproduces the file exactly.
void mark_open_ends(std::vector<DiffLine>* script, std::string_view before, std::string_view after);

struct Rewrite {
  std::string text;
  std::vector<DiffLine> script;
  std::vector<Change> changes;
  std::vector<std::string> added;         // inserted statements (imports)
  bool torch_npu_import_missing = false;  // needed but there is no top-level torch import
};

inline constexpr std::string_view kImportRuleId = "DEV-IMPORT-TORCH-NPU";

// Where `import torch_npu` (and transfer_to_npu's import) may go. A Python file decides for
// itself: when it changes. A notebook's cells share one namespace, so the notebook decides: one
// cell gets the imports (kHere) and the others none (kNever).
enum class ImportPlacement { kIfChanged, kNever, kHere };

Rewrite rewrite_python(std::string_view text, const PythonScan& scan, RewriteMode mode,
                       ImportPlacement imports = ImportPlacement::kIfChanged);

// A unified diff with three lines of context, labelled a/<path> and b/<path>; empty when the
// script changes nothing.
std::string unified_diff(const std::string& path, const std::vector<DiffLine>& script);

}  // namespace skillrt::gpu_migration::detail

#endif  // SKILLRT_GPU_MIGRATION_DETAIL_REWRITE_HPP_
