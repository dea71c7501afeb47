// A Python tokenizer written for migration analysis: it separates code from strings and
// comments, keeps byte offsets into the source (so rewrites can be spliced in), and tokenizes the
// replacement fields of f-strings as code.
#ifndef SKILLRT_GPU_MIGRATION_DETAIL_PYTHON_TOKENIZER_HPP_
#define SKILLRT_GPU_MIGRATION_DETAIL_PYTHON_TOKENIZER_HPP_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace skillrt::gpu_migration::detail {

enum class TokenKind : uint8_t {
  kName,
  kNumber,
  kString,
  kOp,
  kComment,
  kNewline,  // end of a logical line (depth 0, not continued)
};

struct Token {
  TokenKind kind = TokenKind::kOp;
  size_t begin = 0;  // byte offsets into the source, [begin, end)
  size_t end = 0;
  // Strings only: where the text between the quotes lies.
  size_t content_begin = 0;
  size_t content_end = 0;
  bool fstring = false;
  // Code tokens that come from an f-string replacement field.
  bool in_fstring = false;
};

struct TokenizeError {
  size_t offset = 0;
  std::string message;
  int line = 0;  // filled by the scanner, which has the line index
};

struct TokenStream {
  std::vector<Token> tokens;
  std::vector<TokenizeError> errors;
};

// The logical lines a scanner can match on: those with one of the names as a name token, or a
// string whose text holds one of the needles. Most lines of a project are plain code; with a
// filter their tokens are dropped as soon as the line ends, so matching and the passes over the
// token vector see only the lines that matter. Views passed in must outlive the filter.
class LineFilter {
 public:
  void add_name(std::string_view name);
  // An empty needle keeps every string (a rule that has no literal to look for).
  void add_needle(std::string_view needle);

  bool wants_name(std::string_view name) const {
    // Most names are ruled out by (first byte, length) and (last byte, length) before hashing.
    if (name.empty()) return false;
    const uint32_t bit = 1u << (name.size() & 31);
    if (!(by_first_[static_cast<unsigned char>(name.front())] & bit)) return false;
    if (!(by_last_[static_cast<unsigned char>(name.back())] & bit)) return false;
    return names_.count(name) != 0;
  }
  bool wants_string(std::string_view content) const;

 private:
  uint32_t by_first_[256] = {};
  uint32_t by_last_[256] = {};
  std::unordered_set<std::string_view> names_;
  std::vector<std::string_view> needles_;
  bool every_string_ = false;
};

// Never throws on malformed input: problems are reported in `errors` and tokenizing continues on
// the next line, so one bad line does not hide the findings in the rest of the file.
TokenStream tokenize_python(std::string_view source);
// The same into a caller's stream, reusing its storage (scanning thousands of files). With a
// filter, only the tokens of the logical lines it wants are kept (each with its closing
// newline token); errors are reported for the whole source either way.
// `extra` adds names wanted for this source only (a file's import aliases).
void tokenize_python(std::string_view source, TokenStream* out, const LineFilter* filter = nullptr,
                     const LineFilter* extra = nullptr);

// Maps byte offsets to 1-based line and column numbers.
class LineIndex {
 public:
  LineIndex() = default;
  explicit LineIndex(std::string_view text);
  // Re-indexes for another text, reusing the storage.
  void assign(std::string_view text);
  int line_of(size_t offset) const;
  int column_of(size_t offset) const;
  size_t line_begin(int line) const;
  std::string_view line_text(int line) const;
  int line_count() const { return static_cast<int>(starts_.size()); }

 private:
  std::string_view text_;
  std::vector<size_t> starts_;
};

}  // namespace skillrt::gpu_migration::detail

#endif  // SKILLRT_GPU_MIGRATION_DETAIL_PYTHON_TOKENIZER_HPP_
