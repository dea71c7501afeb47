// API references in documentation text (torch_npu.npu_x(...), torch.ops.npu.x(...),
// torch.npu.x) and their resolution against a code checkout: found (with the signatures that
// define it), missing (the checkout owns that namespace and does not have it), or unknown (the
// checkout is not where it would live, so saying "missing" would be a guess).
#ifndef SKILLRT_DOC_REVIEW_DETAIL_API_HPP_
#define SKILLRT_DOC_REVIEW_DETAIL_API_HPP_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "code_index.hpp"

namespace skillrt::doc_review::detail {

struct Keyword {
  std::string name;
  int line = 0;
};

struct ApiRef {
  std::string name;  // dotted, as written: "torch_npu.npu_rms_norm"
  int line = 0;      // 1-based page line
  bool call = false;
  std::vector<Keyword> keywords;
};

// Every reference in `text`, whose first line is page line `first_line`. Call arguments may run
// over several lines; keyword names are read at the call's top level only.
std::vector<ApiRef> find_api_refs(std::string_view text, int first_line);

enum class ApiStatus { kFound, kMissing, kUnknown };

struct ApiResolution {
  ApiStatus status = ApiStatus::kUnknown;
  std::vector<const Signature*> signatures;  // empty when known only as a word
  std::optional<CodeLocation> where;         // where the code names it
  std::string reason;                        // kUnknown: why it cannot be judged
  std::vector<std::string> nearest;          // kMissing: close names the code has
};

ApiResolution resolve_api(std::string_view dotted, const CodeIndex& code);

// Whether a page's parameter name is the code's. A schema's `self` is written `input` in
// PyTorch-style docs (its generated bindings name it so; torch.ops cannot take it by keyword),
// so `input` is accepted for `self`.
bool same_param_name(std::string_view doc, std::string_view code);
// The parameter of any signature that `name` refers to (nullptr when none). "out" refers to
// the out= keyword of an operator with out arguments.
const Param* find_param(const std::vector<const Signature*>& sigs, std::string_view name);

// Keywords no signature accepts (empty when a signature takes **kwargs or none is known).
std::vector<Keyword> unknown_keywords(const ApiRef& ref, const ApiResolution& res);

// Default values compared as a reader would: 1e-6 == 1e-06 == 0.000001, 'x' == "x",
// torch.contiguous_format == contiguous_format, None == none.
bool same_default(std::string_view doc, std::string_view code);

size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace skillrt::doc_review::detail

#endif  // SKILLRT_DOC_REVIEW_DETAIL_API_HPP_
