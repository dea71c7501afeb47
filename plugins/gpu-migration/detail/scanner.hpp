// Matching the rule table against one file: Python through the tokenizer, other files by line.
#ifndef SKILLRT_GPU_MIGRATION_DETAIL_SCANNER_HPP_
#define SKILLRT_GPU_MIGRATION_DETAIL_SCANNER_HPP_

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "detail/python_tokenizer.hpp"
#include "detail/rule_table.hpp"

namespace skillrt::gpu_migration::detail {

struct Match {
  const Rule* rule = nullptr;
  int line = 0;  // 1-based
  int column = 0;
  std::string matched;       // the code the rule fired on
  std::string code;          // the source line, trimmed: evidence that outlives the source
  std::string context;       // code, string, import, text
  std::string effort;        // the rule's class unless a check refined it
  std::string note;          // what a check found (version pins)
  bool marked_data = false;  // the line carries "# gpu-migration: keep"
  // The rewrite, when the rule has one and it can be spliced into this line.
  bool has_edit = false;
  size_t edit_begin = 0;
  size_t edit_end = 0;
  std::string replacement;
  size_t logical_begin = 0;  // first byte of the logical line the match belongs to
};

// A function whose body a `wrapper` rule fired in (it needs flash-attn, say): its call sites
// elsewhere in the repository are findings too.
struct WrapperDef {
  std::string name;
  int line = 0;      // of the def
  int end_line = 0;  // last line of its body
  const Rule* rule = nullptr;
};

// Import aliases by name: the dotted path each stands for.
using AliasMap = std::unordered_map<std::string, std::vector<std::string>>;

struct PythonScan {
  std::vector<Match> matches;
  std::vector<WrapperDef> wrappers;
  // Top-level imports: those that bind a CUDA module's path (another module may re-export them
  // with `from this_module import name`), and the others (which may be such re-exports; a
  // relative path starts with one "." per level).
  std::vector<std::pair<std::string, std::vector<std::string>>> exports;
  std::vector<std::pair<std::string, std::vector<std::string>>> imports_from;
  std::vector<TokenizeError> errors;
  bool imports_torch = false;
  bool imports_torch_npu = false;
  bool imports_transfer_to_npu = false;
  // Offset just after the first top-level `import torch...` / `from torch... import` statement
  // (npos when there is none at the top level); new imports go there.
  size_t torch_import_end = std::string::npos;
};

class RuleIndex;

// Built once per table; scanning is then allocation-light.
class Scanner {
 public:
  explicit Scanner(const RuleTable& table);
  ~Scanner();
  Scanner(const Scanner&) = delete;
  Scanner& operator=(const Scanner&) = delete;

  // `extra_aliases`: names the file imports from repository modules that re-export CUDA
  // modules, resolved by the caller (they must outlive the call).
  PythonScan scan_python(std::string_view source, const AliasMap* extra_aliases = nullptr) const;
  // Call sites of the named repository functions (bare `name(` calls, not definitions or
  // attribute calls) as matches of `rule`; `skip` holds line ranges (the wrappers' own bodies).
  std::vector<Match> scan_calls(std::string_view source, const std::vector<std::string>& names,
                                const Rule* rule,
                                const std::vector<std::pair<int, int>>& skip) const;
  // `file_name` is the base name that text rules' globs are matched against.
  std::vector<Match> scan_text(std::string_view source, std::string_view file_name) const;
  bool wants_text_file(std::string_view file_name) const;
  const RuleTable& table() const { return table_; }

 private:
  const RuleTable& table_;
  RuleIndex* index_;
};

// The pragma that marks a line as data the rewrite must leave alone.
inline constexpr std::string_view kKeepPragma = "gpu-migration: keep";

}  // namespace skillrt::gpu_migration::detail

#endif  // SKILLRT_GPU_MIGRATION_DETAIL_SCANNER_HPP_
