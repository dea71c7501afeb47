// Findings (what a linter reported) and the whitelist that decides which ones may be fixed.
#ifndef SKILLRT_CI_FIX_ENGINE_MODEL_HPP_
#define SKILLRT_CI_FIX_ENGINE_MODEL_HPP_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "proof.hpp"
#include "text.hpp"

namespace skillrt::ci_fix {

struct Finding {
  std::string tool;   // flake8, pycodestyle, lintrunner, cpplint, clang-tidy, cppcheck,
                      // codespell, typos, pre-commit, clang-format, builtin
  std::string via;    // the report it came through when different (lintrunner, pre-commit)
  std::string path;   // as reported
  uint32_t line = 0;  // 1-based; 0 for a whole-file finding
  uint32_t col = 0;   // 1-based character column; 0 when unknown
  std::string code;   // E302, whitespace/end_of_line, SPACES, typo, trailing-whitespace...
  std::string message;
  std::string severity;
  std::string word;                        // typos: the misspelling
  std::string correction;                  // typos: the single correction, empty when ambiguous
  std::optional<std::string> original;     // lintrunner: whole file before
  std::optional<std::string> replacement;  // lintrunner: whole file after
  uint32_t end_line = 0;                   // clang-format: last line the replacement touches
  Edit edit;                               // clang-format: the replacement itself
  bool has_edit = false;
};

// The family a tool's codes belong to: flake8, pycodestyle, ruff and lintrunner's FLAKE8 all
// speak pycodestyle codes ("pep8").
std::string tool_family(const std::string& tool);

struct FixClass {
  std::string name;
  ProofLevel proof = ProofLevel::kWhitespace;
  std::string why;
  std::vector<std::string> exclude;  // globs of paths this class never touches
};

struct Rule {
  std::set<std::string> tools;  // families
  std::set<std::string> codes;
  std::string message_prefix;  // optional: the message must contain this (after a leading ^:
                               // must start with it)
  std::string klass;
  std::string fixer;
};

struct Never {
  std::vector<std::string> codes;  // globs
  std::string why;
  std::string suggestion;
};

// The decision for one finding.
struct Verdict {
  bool fixable = false;
  const Rule* rule = nullptr;
  const FixClass* klass = nullptr;
  std::string why_not;     // when not fixable
  std::string suggestion;  // manual fix
};

class Whitelist {
 public:
  // Parses the data file (see data/whitelist.json). Throws std::runtime_error naming the field.
  static Whitelist parse(std::string_view json_text);

  // Narrows to `classes` (names of built-in classes) minus `disabled_codes`; throws
  // std::invalid_argument naming an entry that is not a built-in class (widening is refused).
  void narrow(const std::vector<std::string>& classes,
              const std::vector<std::string>& disabled_codes,
              const std::vector<std::string>& extra_excludes);

  Verdict judge(const Finding& f, const std::string& rel_path) const;
  const std::map<std::string, FixClass>& classes() const { return classes_; }
  const std::set<std::string>& enabled() const { return enabled_; }
  const std::vector<std::string>& protected_paths() const { return protected_; }
  const std::string& protected_why() const { return protected_why_; }
  bool is_protected(const std::string& rel_path) const;
  const std::vector<Never>& never() const { return never_; }
  const std::vector<Rule>& rules() const { return rules_; }

 private:
  std::map<std::string, FixClass> classes_;
  std::set<std::string> enabled_;
  std::vector<Rule> rules_;
  std::vector<Never> never_;
  std::vector<std::string> protected_;
  std::string protected_why_;
  std::set<std::string> disabled_codes_;
  std::vector<std::string> extra_excludes_;
};

// A typo table: misspelling (lower case) -> correction.
class TypoTable {
 public:
  static TypoTable parse(std::string_view tsv);
  // The correction for `word` with its capitalisation kept, or empty.
  std::string correct(std::string_view word) const;
  void ignore(const std::string& word_lower) { ignored_.insert(word_lower); }
  size_t size() const { return table_.size(); }

 private:
  std::map<std::string, std::string> table_;
  std::set<std::string> ignored_;
};

}  // namespace skillrt::ci_fix

#endif  // SKILLRT_CI_FIX_ENGINE_MODEL_HPP_
