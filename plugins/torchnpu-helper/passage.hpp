// A passage is the unit the index stores and an answer quotes: a few lines of one file with the
// heading path above them. Markdown is cut at headings and then into short chunks so a citation
// points at the lines that hold the fact, not at a whole page.
#ifndef SKILLRT_TORCHNPU_HELPER_PASSAGE_HPP_
#define SKILLRT_TORCHNPU_HELPER_PASSAGE_HPP_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::torchnpu_helper {

struct Passage {
  std::string kind;       // "doc", "env" (a variable read in source), "check" (TORCH_CHECK), "yaml"
  std::string heading;    // "Title > Section" for docs; "TASK_QUEUE_ENABLE read in source" else
  size_t line_start = 0;  // 1-based, inclusive
  size_t line_end = 0;
  std::string text;  // the lines as written
  // The first line is inside a ``` block that opened in an earlier passage (a long example
  // cut in two): code, not prose, until the next fence line.
  bool starts_in_code = false;
  // Code names (op_plugin_functions.yaml, acl_op) of the earlier chunks of the same section,
  // space-separated: a section cut in two keeps, for its later chunks, what it is about.
  std::string context;
};

constexpr size_t kMaxPassageLines = 24;
// Sections with fewer lines that say something are joined to the next one.
constexpr size_t kThinSectionLines = 4;
constexpr size_t kMaxPassageBytes = 2400;

std::vector<Passage> split_markdown(std::string_view text);

// Passages of a source file of a checkout: environment variables it reads (getenv, os.environ,
// os.getenv, option registries), TORCH_CHECK messages, and op entries of op-plugin yaml files.
std::vector<Passage> extract_source(std::string_view path, std::string_view text);

}  // namespace skillrt::torchnpu_helper

#endif  // SKILLRT_TORCHNPU_HELPER_PASSAGE_HPP_
