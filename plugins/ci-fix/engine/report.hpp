// The Markdown report, rendered from the JSON result (so both always say the same).
#ifndef SKILLRT_CI_FIX_ENGINE_REPORT_HPP_
#define SKILLRT_CI_FIX_ENGINE_REPORT_HPP_

#include <nlohmann/json.hpp>
#include <string>

namespace skillrt::ci_fix {

std::string render_markdown(const nlohmann::json& result);

}  // namespace skillrt::ci_fix

#endif  // SKILLRT_CI_FIX_ENGINE_REPORT_HPP_
