// Inline SVG charts for the self-contained HTML reports: no script, no external file, so the
// page reads the same in a mail client as in a browser.
#ifndef SKILLRT_DAILY_TRACKERS_DETAIL_SVG_CHART_HPP_
#define SKILLRT_DAILY_TRACKERS_DETAIL_SVG_CHART_HPP_

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace skillrt::daily_trackers::detail {

// One line per series over the x labels; a missing value breaks the line.
std::string line_chart(const std::string& title, const std::string& y_label,
                       const std::vector<std::string>& x_labels,
                       const std::map<std::string, std::vector<std::optional<double>>>& series);

// Horizontal bars, one per label, in the given order.
std::string bar_chart(const std::string& title, const std::string& unit,
                      const std::vector<std::pair<std::string, double>>& bars);

}  // namespace skillrt::daily_trackers::detail

#endif  // SKILLRT_DAILY_TRACKERS_DETAIL_SVG_CHART_HPP_
