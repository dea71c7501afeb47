// The review's findings and the checks of the five axes (CANN documentation quality):
// findable 找得到, trustworthy 信得过, learnable 学得会, operable 可操作, readable 读得懂.
// Every check is static: it reads pages and code, never edits them and never runs an example.
#ifndef SKILLRT_DOC_REVIEW_CHECKS_HPP_
#define SKILLRT_DOC_REVIEW_CHECKS_HPP_

#include <array>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "code_index.hpp"
#include "markdown.hpp"

namespace skillrt::doc_review {

enum class Axis { kFindable, kTrustworthy, kLearnable, kOperable, kReadable };
constexpr std::array<Axis, 5> kAllAxes = {Axis::kFindable, Axis::kTrustworthy, Axis::kLearnable,
                                          Axis::kOperable, Axis::kReadable};
std::string_view to_string(Axis axis);
std::string_view chinese_name(Axis axis);  // 找得到 ...
std::optional<Axis> parse_axis(std::string_view name);

// By consequence: error = the reader hits a dead end (a broken link, an example that cannot
// work); warning = the reader is misled or has to guess; info = style.
enum class Severity { kError, kWarning, kInfo };
std::string_view to_string(Severity severity);

struct Finding {
  Axis axis = Axis::kFindable;
  Severity severity = Severity::kInfo;
  std::string rule;  // stable id, e.g. "broken-link"
  std::string page;  // relative to the docs root
  int line = 0;
  std::string message;
  std::string doc_text;   // the page's text at that line (excerpt)
  std::string code_ref;   // file:line in the checkout, when the code is evidence
  std::string code_text;  // what the code says there
  std::string suggestion;
};

// What a check could not look at, counted, with the reason (shown in the report).
struct Skips {
  struct Entry {
    std::string what;
    std::string reason;
    size_t count = 0;
    std::string example;  // one instance, "page:line: text"
  };
  std::map<std::string, Entry> entries;  // by key
  void add(const std::string& key, const std::string& what, const std::string& reason,
           const std::string& example = "");
};

struct Limits {
  // Sentence length (units: one per CJK character, two per Latin word or code span).
  int long_sentence_units = 100;
  // A step list needs an expected result when it has at least this many steps.
  int min_steps = 2;
};

// Everything a check reads, and where its findings go.
struct ReviewScope {
  std::filesystem::path docs_root;  // the docs folder (a single page's folder otherwise)
  bool single_page = false;
  std::vector<Page> pages;
  // Pages outside the docs tree that can link into it (the checkout's README files).
  std::vector<Page> entry_pages;
  const CodeIndex* code = nullptr;  // null when no checkout was given
  std::string python;               // the interpreter for syntax checks, empty when absent
  Limits limits;
  Skips* skips = nullptr;
  std::function<void(Finding)> emit;
  std::function<bool()> cancelled;
  // Canonical path -> index in `pages`.
  std::map<std::string, size_t> page_by_path;

  const Page* page_at(const std::filesystem::path& canonical) const;
  void add(Finding f) const { emit(std::move(f)); }
  void skip(const std::string& key, const std::string& what, const std::string& reason,
            const std::string& example = "") const {
    skips->add(key, what, reason, example);
  }
};

void check_findable(const ReviewScope& scope);
void check_trustworthy(const ReviewScope& scope);
void check_learnable(const ReviewScope& scope);
void check_operable(const ReviewScope& scope);
void check_readable(const ReviewScope& scope);

}  // namespace skillrt::doc_review

#endif  // SKILLRT_DOC_REVIEW_CHECKS_HPP_
