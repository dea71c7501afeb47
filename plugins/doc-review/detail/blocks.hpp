// What a fenced code block is for: a Python example to parse, a prototype to compare with the
// code (`torch_npu.npu_x(a, b=1) -> Tensor` is a signature, not Python), a shell session, or
// something else. The decision uses the info string, the section the block is in, and its text.
#ifndef SKILLRT_DOC_REVIEW_DETAIL_BLOCKS_HPP_
#define SKILLRT_DOC_REVIEW_DETAIL_BLOCKS_HPP_

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "code_index.hpp"
#include "markdown.hpp"

namespace skillrt::doc_review::detail {

// kOutput: a block that shows a run's output (a traceback) under a code language.
enum class BlockKind { kPython, kPrototype, kShell, kOutput, kOther };

// A block labelled python/py whose text is shell commands or program output.
bool is_python_label(std::string_view lang);

BlockKind classify_block(const Page& page, const CodeBlock& block);

// True for headings of prototype sections: 函数原型, 接口原型, Prototype, Signature ...
bool is_prototype_heading(std::string_view heading);
// True for headings of parameter sections: 参数说明, Parameters, Args ...
bool is_parameter_heading(std::string_view heading);

// A Python snippet as the parser should see it. Lines keep their numbers (dropped lines become
// blank) so a syntax error's line maps back to the page:
// - doctest prompts (>>> / ...) are stripped, lines continuing an open bracket kept, output
//   lines dropped; IPython prompts stripped;
// - after a comment announcing output ("# 执行上述代码的输出类似如下", "# output:"), the rest is
//   output and dropped;
// - elision lines ("…", "..") read as "...".
// `*output_cut` (optional) is set when an output section was dropped.
std::string python_source(std::string_view block_text, bool* output_cut = nullptr);

// The page says the block is not meant to run as written ("以下是关键步骤的代码示例，不可直接拷贝
// 运行，仅供参考", "伪代码", "pseudo-code", "snippet"), just before it or in its first comment.
bool marked_as_fragment(const Page& page, const CodeBlock& block);

// Names the page itself defines in its code blocks (a tutorial that adds an operator):
// "- func: npu_add_custom(...)", "def npu_add_custom(", m.def("npu_add_custom(...)").
std::set<std::string> names_defined_on_page(const Page& page);

struct Prototype {
  std::string name;  // dotted, as written ("torch_npu.npu_add_rms_norm")
  std::vector<Param> params;
  bool variadic = false;  // *args, **kwargs or "..." in the list: completeness is not claimed
  int line = 0;           // page line of the name
  std::string text;       // the signature's first line
};

// The signatures in a prototype block (one per "name(...)", overloads included).
std::vector<Prototype> parse_prototypes(const CodeBlock& block);

}  // namespace skillrt::doc_review::detail

#endif  // SKILLRT_DOC_REVIEW_DETAIL_BLOCKS_HPP_
