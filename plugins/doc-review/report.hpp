// The two human-readable reports of a review, rendered from its JSON result: Markdown for
// review threads and a self-contained HTML page (inline CSS, no scripts, no external resources)
// for a browser. Every piece of page or code text is escaped.
#ifndef SKILLRT_DOC_REVIEW_REPORT_HPP_
#define SKILLRT_DOC_REVIEW_REPORT_HPP_

#include <nlohmann/json.hpp>
#include <string>

namespace skillrt::doc_review {

std::string render_markdown(const nlohmann::json& result);
std::string render_html(const nlohmann::json& result);

}  // namespace skillrt::doc_review

#endif  // SKILLRT_DOC_REVIEW_REPORT_HPP_
