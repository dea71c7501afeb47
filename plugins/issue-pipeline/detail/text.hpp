// Small string helpers the pipeline's steps share.
#ifndef SKILLRT_ISSUE_PIPELINE_DETAIL_TEXT_HPP_
#define SKILLRT_ISSUE_PIPELINE_DETAIL_TEXT_HPP_

#include <string>
#include <vector>

namespace skillrt::issue_pipeline::detail {

std::string join(const std::vector<std::string>& v, const std::string& sep);
std::string first_line(const std::string& s);

// A single line naming an existing file is read; anything else is the text itself. `source`
// (optional) receives the absolute path, or "<input>".
std::string text_or_file(const std::string& v, std::string* source);

}  // namespace skillrt::issue_pipeline::detail

#endif  // SKILLRT_ISSUE_PIPELINE_DETAIL_TEXT_HPP_
