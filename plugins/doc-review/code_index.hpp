// What a code checkout says exists, read once per review: the operator schemas of op-plugin's
// op_plugin_functions.yaml and of C++ TORCH_LIBRARY registrations, Python functions with their
// parameters, Python modules, and every identifier and string word in the sources (environment
// variable names live in string literals). Documentation is never part of it: a name that only
// the docs mention must not confirm itself.
#ifndef SKILLRT_DOC_REVIEW_CODE_INDEX_HPP_
#define SKILLRT_DOC_REVIEW_CODE_INDEX_HPP_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace skillrt::doc_review {

// op-plugin, torch_npu, an AscendC operator project, or anything else.
enum class CodeKind { kOpPlugin, kTorchNpu, kAscendC, kGeneric };
std::string_view to_string(CodeKind kind);

struct CodeLocation {
  std::string file;  // relative to the checkout, '/'-separated
  int line = 0;
  std::string ref() const { return file + ":" + std::to_string(line); }
};

struct Param {
  std::string name;
  std::string default_value;  // as written; empty when none
  bool has_default = false;
  bool keyword_only = false;
  bool out = false;  // an operator's out= argument: a keyword, not part of the prototype
};

// A callable the code defines: an operator schema or a Python def.
struct Signature {
  std::string name;
  std::string text;  // the schema or the def line, for evidence
  std::vector<Param> params;
  bool open = false;  // takes **kwargs (or is a class): any keyword may be right
  CodeLocation where;
  std::string module;  // Python defs: the dotted module of the file ("torch_npu.npu.utils")
};

struct CodeIndex {
  std::filesystem::path root;
  CodeKind kind = CodeKind::kGeneric;
  size_t files_read = 0;
  std::vector<std::string> notes;  // what could not be read, for the report's skipped list

  // Operator name (no overload) -> schemas: op_plugin_functions.yaml and m.def("...").
  std::map<std::string, std::vector<Signature>> ops;
  // op-plugin's op_plugin_functions.yaml was read (the checkout is op-plugin or holds it as
  // torch_npu's third_party/op-plugin submodule): torch_npu.npu_* names can be judged.
  bool has_op_plugin_yaml = false;
  // Namespaces C++ code registers operators in (TORCH_LIBRARY(npu, m) -> "npu").
  std::set<std::string> op_namespaces;
  // Python function or class name -> definitions.
  std::map<std::string, std::vector<Signature>> py_defs;
  // Dotted module paths of the Python files ("torch_npu.npu.utils").
  std::set<std::string> py_modules;
  // Every word ([A-Za-z_][A-Za-z0-9_]*) in the sources, with its first location (an index
  // into `files` and a line): a few hundred thousand words, so kept compact.
  struct WordRef {
    uint32_t file = 0;
    uint32_t line = 0;
  };
  std::vector<std::string> files;
  std::unordered_map<std::string, WordRef> words;
  // The upper-case words with an '_' (environment variable names and constants), sorted.
  std::set<std::string> upper_words;

  bool has_word(std::string_view w) const { return words.count(std::string(w)) > 0; }
  std::optional<CodeLocation> word_location(std::string_view w) const;
  // Upper-case words with this prefix exist (e.g. "PYTORCH_NPU_"): the checkout reads
  // variables of that family, so a missing one of them is meaningful.
  bool has_prefix_family(std::string_view prefix) const;
};

struct IndexHooks {
  std::function<bool()> cancelled;
};

// Reads the checkout at `root`, leaving out `exclude` (the docs tree when it lies inside).
// Throws std::invalid_argument when `root` is not a readable directory.
CodeIndex build_code_index(const std::filesystem::path& root,
                           const std::vector<std::filesystem::path>& exclude,
                           const IndexHooks& hooks = {});

// Parameters of a Python parameter list "a, b=1, *, c: int = 2, **kw"; sets *open for **kw.
std::vector<Param> parse_python_params(std::string_view list, bool* open);

}  // namespace skillrt::doc_review

#endif  // SKILLRT_DOC_REVIEW_CODE_INDEX_HPP_
