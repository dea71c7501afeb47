#include "detail/svg_chart.hpp"

#include <algorithm>
#include <cstdio>

#include "plugin_io/report_text.hpp"

namespace skillrt::daily_trackers::detail {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr int kWidth = 640;
constexpr int kHeight = 260;
constexpr int kLeft = 60;
constexpr int kRight = 150;
constexpr int kTop = 28;
constexpr int kBottom = 40;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

std::string short_num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), v >= 100 ? "%.0f" : v >= 1 ? "%.2f" : "%.3f", v);
  return buf;
}

}  // namespace

std::string line_chart(const std::string& title, const std::string& y_label,
                       const std::vector<std::string>& x_labels,
                       const std::map<std::string, std::vector<std::optional<double>>>& series) {
  double hi = 0;
  for (const auto& [name, values] : series) {
    for (const auto& v : values) {
      if (v) hi = std::max(hi, *v);
    }
  }
  if (hi <= 0) hi = 1;
  const double plot_w = kWidth - kLeft - kRight;
  const double plot_h = kHeight - kTop - kBottom;
  const size_t n = std::max<size_t>(x_labels.size(), 1);
  auto x_at = [&](size_t i) {
    return kLeft +
           (n == 1 ? plot_w / 2 : plot_w * static_cast<double>(i) / static_cast<double>(n - 1));
  };
  auto y_at = [&](double v) { return kTop + plot_h * (1 - v / (hi * 1.1)); };
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(kWidth) +
                  "\" height=\"" + std::to_string(kHeight) + "\" role=\"img\" aria-label=\"" +
                  plugin_io::html_escape(title) + "\" font-family=\"sans-serif\" font-size=\"11\">";
  s += "<text x=\"" + std::to_string(kLeft) + "\" y=\"16\" font-size=\"13\" font-weight=\"bold\">" +
       plugin_io::html_escape(title) + "</text>";
  s += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(kTop + plot_h) + "\" x2=\"" +
       num(kLeft + plot_w) + "\" y2=\"" + num(kTop + plot_h) + "\" stroke=\"#999\"/>";
  s += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(kTop) + "\" x2=\"" + num(kLeft) + "\" y2=\"" +
       num(kTop + plot_h) + "\" stroke=\"#999\"/>";
  s += "<text x=\"4\" y=\"" + num(kTop + 10) + "\">" + short_num(hi * 1.1) + "</text>";
  s += "<text x=\"4\" y=\"" + num(kTop + plot_h) + "\">0</text>";
  s += "<text x=\"4\" y=\"" + num(kTop + plot_h / 2) + "\">" + plugin_io::html_escape(y_label) +
       "</text>";
  for (size_t i = 0; i < x_labels.size(); ++i) {
    s += "<text x=\"" + num(x_at(i)) + "\" y=\"" + num(kTop + plot_h + 16) +
         "\" text-anchor=\"middle\">" + plugin_io::html_escape(x_labels[i]) + "</text>";
  }
  size_t k = 0;
  for (const auto& [name, values] : series) {
    const char* colour = kPalette[k % (sizeof(kPalette) / sizeof(kPalette[0]))];
    std::string path;
    bool pen_down = false;
    for (size_t i = 0; i < values.size(); ++i) {
      if (!values[i]) {
        pen_down = false;
        continue;
      }
      path += (pen_down ? " L" : " M") + num(x_at(i)) + " " + num(y_at(*values[i]));
      pen_down = true;
      s += "<circle cx=\"" + num(x_at(i)) + "\" cy=\"" + num(y_at(*values[i])) +
           "\" r=\"3\" fill=\"" + colour + "\"><title>" +
           plugin_io::html_escape(name + " " + x_labels[i] + ": " + short_num(*values[i])) +
           "</title></circle>";
    }
    if (!path.empty()) {
      s += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2\"/>";
    }
    const double ly = kTop + 14.0 * static_cast<double>(k);
    s += "<rect x=\"" + num(kLeft + plot_w + 12) + "\" y=\"" + num(ly) +
         "\" width=\"10\" height=\"10\" fill=\"" + colour + "\"/><text x=\"" +
         num(kLeft + plot_w + 26) + "\" y=\"" + num(ly + 9) + "\">" + plugin_io::html_escape(name) +
         "</text>";
    ++k;
  }
  return s + "</svg>";
}

std::string bar_chart(const std::string& title, const std::string& unit,
                      const std::vector<std::pair<std::string, double>>& bars) {
  double hi = 0;
  for (const auto& b : bars) hi = std::max(hi, b.second);
  if (hi <= 0) hi = 1;
  const int row = 20;
  const int height = kTop + row * static_cast<int>(bars.size()) + 10;
  const double label_w = 200;
  const double plot_w = kWidth - label_w - 80;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(kWidth) +
                  "\" height=\"" + std::to_string(height) + "\" role=\"img\" aria-label=\"" +
                  plugin_io::html_escape(title) + "\" font-family=\"sans-serif\" font-size=\"11\">";
  s += "<text x=\"4\" y=\"16\" font-size=\"13\" font-weight=\"bold\">" +
       plugin_io::html_escape(title) + "</text>";
  for (size_t i = 0; i < bars.size(); ++i) {
    const double y = kTop + row * static_cast<double>(i);
    const double w = plot_w * bars[i].second / hi;
    s += "<text x=\"4\" y=\"" + num(y + 13) + "\">" + plugin_io::html_escape(bars[i].first) +
         "</text>";
    s += "<rect x=\"" + num(label_w) + "\" y=\"" + num(y + 2) + "\" width=\"" + num(w) +
         "\" height=\"14\" fill=\"" + kPalette[i % 10] + "\"/>";
    s += "<text x=\"" + num(label_w + w + 4) + "\" y=\"" + num(y + 13) + "\">" +
         short_num(bars[i].second) + " " + plugin_io::html_escape(unit) + "</text>";
  }
  return s + "</svg>";
}

}  // namespace skillrt::daily_trackers::detail
