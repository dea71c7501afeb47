// A reader of operator API pages as op-plugin writes them (docs/zh/custom_APIs/torch_npu/*.md):
// sections, the prototypes of one API, the parameter items and the example calls, with their
// lines. Markdown escapes (`head\_num`) are undone; full-width brackets and colons are read
// like ASCII ones.
#ifndef SKILLRT_OP_APIDOC_PAGE_HPP_
#define SKILLRT_OP_APIDOC_PAGE_HPP_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::op_apidoc {

struct PageLine {
  size_t number = 0;  // 1-based
  std::string text;   // as written
  bool in_code = false;
};

struct PageSection {
  std::string title;  // heading text without anchors, escapes or markup
  int level = 0;
  size_t heading = 0;  // index into lines
  size_t end = 0;      // index of the next heading of the same or a higher level
};

struct PageArg {
  std::string name;
  std::string type;                         // as written, empty when the page gives none
  std::optional<std::string> default_text;  // as written
  bool kwonly = false;
  size_t line = 0;
};

struct PagePrototype {
  size_t line = 0;
  std::vector<PageArg> args;
  bool has_varargs = false;  // *args / **kwargs: the names cannot be compared
  int return_count = -1;     // -1 when the page writes no return or one that is not countable
  std::string returns_text;
};

struct PageParamItem {
  std::string name;
  std::string type;
  std::optional<std::string> default_text;  // "默认值为1e-6" and the like
  size_t line = 0;
};

struct PageCall {
  size_t line = 0;
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> keywords;
};

struct ApiPage {
  std::vector<PageLine> lines;
  std::vector<PageSection> sections;
  std::string title;
  size_t title_line = 0;
  std::vector<PagePrototype> prototypes;
  std::vector<PageParamItem> params;
  size_t params_heading_line = 0;  // 0 when the page has no parameter section
  std::vector<PageCall> calls;     // example calls of the API
};

// `api` is the Python name of the operator ("npu_rms_norm"); prototypes and calls are found as
// `torch_npu.<api>(` or a bare `<api>(`.
ApiPage read_api_page(std::string_view text, const std::string& api);

// Markdown escapes undone, `code` marks and emphasis removed, full-width punctuation made ASCII.
std::string plain_text(std::string_view markdown);
// `code`: a line of a fenced block, where escapes and emphasis are literal; only full-width
// punctuation is made ASCII.
std::string plain_text(std::string_view markdown, bool code);

}  // namespace skillrt::op_apidoc

#endif  // SKILLRT_OP_APIDOC_PAGE_HPP_
