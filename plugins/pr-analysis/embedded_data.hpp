// The rule pack shipped inside the .so (see CMakeLists.txt for why it is embedded).
#ifndef SKILLRT_PR_ANALYSIS_EMBEDDED_DATA_HPP_
#define SKILLRT_PR_ANALYSIS_EMBEDDED_DATA_HPP_

#include <string_view>

namespace skillrt::pr_analysis {

std::string_view embedded_rules_yaml();

}  // namespace skillrt::pr_analysis

#endif  // SKILLRT_PR_ANALYSIS_EMBEDDED_DATA_HPP_
