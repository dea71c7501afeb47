// Fixing one file: judge each finding against the whitelist, run its fixer, and accept each
// candidate only when its proof passes against the file as it stands after the fixes accepted
// before it. Everything not fixed becomes a residual item with its reason.
#ifndef SKILLRT_CI_FIX_ENGINE_ENGINE_HPP_
#define SKILLRT_CI_FIX_ENGINE_ENGINE_HPP_

#include <optional>
#include <string>
#include <vector>

#include "fixers.hpp"
#include "model.hpp"
#include "proof.hpp"

namespace skillrt::ci_fix {

struct EngineOptions {
  bool prove = true;     // false only for the benchmark's "fixing alone" baseline
  int hunk_context = 1;  // context lines of each fix's own hunk
  bool hunks = true;     // compute per-fix hunks
};

struct AppliedFix {
  std::string path;
  uint32_t line = 0;
  std::string klass;
  std::string fixer;
  std::string what;
  std::string why;
  ProofLevel level = ProofLevel::kWhitespace;
  std::vector<size_t> findings;  // ids
  std::vector<Edit> edits;       // original coordinates
  ProofResult proof;
  std::string hunk;
};

struct ResidualItem {
  size_t finding = 0;  // id
  uint32_t line = 0;   // line the item is about (the finding's, or a hunk's)
  std::string kind;    // not-whitelisted, refused, proof-failed, conflict, protected, skipped-file
  std::string reason;
  std::string suggestion;
  std::optional<ProofResult> proof;  // proof-failed: the failed proof
  std::string attempted;             // proof-failed: the hunk that was refused
};

struct FileResult {
  std::string path;
  Language lang = Language::kNone;
  std::string original;
  std::string fixed;
  std::vector<Edit> edits;  // every accepted edit, sorted
  std::vector<AppliedFix> fixes;
  std::vector<ResidualItem> residual;
  std::vector<std::pair<size_t, std::string>> already_clean;  // finding id, note
  std::vector<std::pair<size_t, size_t>> covered;             // finding id, index into fixes
  size_t proofs_run = 0;
  double fix_seconds = 0;    // judging, fixers, applying edits
  double proof_seconds = 0;  // tokenizing and comparing
};

// Processes `ids` (indexes into `all`), all about the file in ctx. ctx.tokens must be the
// original's token stream (empty for languages without one).
FileResult process_file(const FileContext& ctx, const std::vector<Finding>& all,
                        const std::vector<size_t>& ids, const Whitelist& wl,
                        const EngineOptions& opt);

Language language_for(const std::string& rel_path);

}  // namespace skillrt::ci_fix

#endif  // SKILLRT_CI_FIX_ENGINE_ENGINE_HPP_
