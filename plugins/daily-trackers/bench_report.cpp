#include "bench_report.hpp"

#include <xlsxwriter.h>

#include <cstdio>
#include <set>

#include "detail/svg_chart.hpp"
#include "engine.hpp"
#include "plugin_io/report_text.hpp"

namespace skillrt::daily_trackers {
namespace {

using plugin_io::html_escape;
using plugin_io::markdown_cell;

std::string fmt(std::optional<double> v, const char* f = "%.2f") {
  if (!v) return "—";
  char buf[32];
  std::snprintf(buf, sizeof(buf), f, *v);
  return buf;
}

std::string setting_name(const BenchOptions& o) {
  auto k = [](int64_t n) {
    return n % 1024 == 0 ? std::to_string(n / 1024) + "k" : std::to_string(n);
  };
  return k(o.isl) + " in / " + k(o.osl) + " out";
}

std::string config_of(const BenchPoint& p) {
  return p.framework + " " + p.precision +
         (p.spec_decoding.empty() || p.spec_decoding == "none" ? "" : " " + p.spec_decoding) +
         (p.disagg ? " disagg" : "") + ", " + std::to_string(p.gpus) + " GPUs, conc " +
         std::to_string(p.conc);
}

std::string change_line(const PointChange& c) {
  const BenchPoint& p = c.point;
  std::string s = p.model + " on " + p.hardware + " (" + config_of(p) + ", " +
                  std::to_string(p.isl) + "/" + std::to_string(p.osl) + ")";
  if (c.kind != "moved") return c.kind + ": " + s;
  return "moved: " + s + " " + c.metric + " " + fmt(c.before, "%.4g") + " → " +
         fmt(c.after, "%.4g") + " (" + (c.pct > 0 ? "+" : "") + fmt(c.pct, "%.1f") + "%, " +
         (c.better ? "better" : "worse") + ")";
}

std::string sources_md(const BenchReportData& d) {
  std::string s;
  for (const auto& src : d.sources) {
    s += "- " + src.name + " (" + src.mode +
         "): " + (src.ok ? std::to_string(src.items) + " points" : "FAILED — " + src.error) + "\n";
  }
  return s;
}

}  // namespace

Json bench_summary(const BenchReportData& d) {
  size_t moved = 0;
  size_t added = 0;
  size_t removed = 0;
  for (const auto& c : d.analysis.changes) {
    (c.kind == "moved" ? moved : c.kind == "new" ? added : removed)++;
  }
  std::set<std::string> hw;
  std::set<std::string> models;
  for (const auto& p : d.points) {
    hw.insert(p.hardware);
    models.insert(p.model);
  }
  Json setting = Json::array();
  for (const auto& r : d.analysis.setting) setting.push_back(r.to_json());
  Json changes = Json::array();
  for (const auto& c : d.analysis.changes) changes.push_back(c.to_json());
  return Json{{"as_of", d.as_of},
              {"counts",
               {{"points", d.points.size()},
                {"hardware", hw.size()},
                {"models", models.size()},
                {"new_points", added},
                {"removed_points", removed},
                {"moved", moved}}},
              {"compared_with_previous", d.analysis.has_previous},
              {"threshold_pct", d.options.threshold_pct},
              {"new_hardware", d.analysis.new_hardware},
              {"new_models", d.analysis.new_models},
              {"setting",
               {{"isl", d.options.isl},
                {"osl", d.options.osl},
                {"points", d.analysis.setting_points},
                {"best_per_hardware", setting}}},
              {"changes", changes}};
}

Json bench_json(const BenchReportData& d) {
  Json j = bench_summary(d);
  Json points = Json::array();
  for (const auto& p : d.points) points.push_back(p.to_json());
  j["points"] = points;
  j["llm_analysis"] = kLlmNote;
  j["notes"] = d.notes;
  return j;
}

std::string bench_markdown(const BenchReportData& d) {
  const BenchAnalysis& a = d.analysis;
  std::string s = "# InferenceX daily report — " + d.as_of + "\n\n> " + kLlmNote +
                  "\n\n## Sources\n\n" + sources_md(d);
  for (const auto& n : d.notes) s += "- Note: " + n.get<std::string>() + "\n";
  s += "\n## What changed\n\n";
  if (!a.has_previous) {
    s += "First run on this history: nothing to compare with yet.\n";
  } else if (a.changes.empty() && a.new_hardware.empty() && a.new_models.empty()) {
    s += "No point moved beyond " + fmt(d.options.threshold_pct, "%.1f") +
         "% and none was added or removed.\n";
  } else {
    for (const auto& h : a.new_hardware) s += "- new hardware: " + h + "\n";
    for (const auto& m : a.new_models) s += "- new model: " + m + "\n";
    for (const auto& c : a.changes) s += "- " + markdown_cell(change_line(c)) + "\n";
  }
  s += "\n## " + setting_name(d.options) + " across hardware\n\n";
  if (a.setting.empty()) {
    s += "No point has isl " + std::to_string(d.options.isl) + " and osl " +
         std::to_string(d.options.osl) + ".\n";
  } else {
    s += "Best throughput per GPU of each hardware, with the latency of that configuration.\n\n"
         "| model | hardware | configuration | tput/GPU (tok/s) | vs leader | median TTFT (s) | "
         "median TPOT (s) | median E2EL (s) | interactivity (tok/s/user) |\n"
         "|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : a.setting) {
      const BenchPoint& p = r.best;
      s += "| " + markdown_cell(r.model) + " | " + markdown_cell(r.hardware) + " | " +
           markdown_cell(config_of(p)) + " | " + fmt(p.metric("tput_per_gpu"), "%.1f") + " | " +
           fmt(r.ratio_to_leader * 100, "%.0f") + "% | " + fmt(p.metric("median_ttft"), "%.3f") +
           " | " + fmt(p.metric("median_tpot"), "%.4f") + " | " +
           fmt(p.metric("median_e2el"), "%.2f") + " | " + fmt(p.metric("median_intvty"), "%.1f") +
           " |\n";
    }
  }
  s += "\n## Trend (" + setting_name(d.options) + ")\n\n";
  for (const auto& t : a.trends) {
    s += "### " + t.model + "\n\n| hardware |";
    for (const auto& day : t.dates) s += " " + day + " |";
    s += "\n|---|";
    for (size_t i = 0; i < t.dates.size(); ++i) s += "---|";
    s += "\n";
    for (const auto& [hw, values] : t.throughput) {
      s += "| " + markdown_cell(hw) + " tput/GPU |";
      for (const auto& v : values) s += " " + fmt(v, "%.1f") + " |";
      s += "\n| " + markdown_cell(hw) + " min E2EL (s) |";
      for (const auto& v : t.latency.at(hw)) s += " " + fmt(v, "%.2f") + " |";
      s += "\n";
    }
    s += "\n";
  }
  s += "All " + std::to_string(d.points.size()) + " points are in the Excel and JSON reports.\n";
  return s;
}

std::string bench_html(const BenchReportData& d) {
  const BenchAnalysis& a = d.analysis;
  std::string s =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>InferenceX daily report " +
      html_escape(d.as_of) +
      "</"
      "title><style>body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:"
      "collapse}"
      "td,th{border:1px solid #ccc;padding:4px "
      "8px}.note{background:#eef;padding:8px}.worse{color:#b00}"
      ".better{color:#070}</style></head><body>\n<h1>InferenceX daily report — " +
      html_escape(d.as_of) + "</h1>\n<p class=\"note\">" + html_escape(kLlmNote) +
      "</p>\n<h2>Sources</h2><ul>";
  for (const auto& src : d.sources) {
    s += "<li>" +
         html_escape(src.name + " (" + src.mode + "): " +
                     (src.ok ? std::to_string(src.items) + " points" : "FAILED — " + src.error)) +
         "</li>";
  }
  for (const auto& n : d.notes) s += "<li>Note: " + html_escape(n.get<std::string>()) + "</li>";
  s += "</ul>\n<h2>What changed</h2><ul>";
  if (!a.has_previous) s += "<li>First run on this history: nothing to compare with yet.</li>";
  for (const auto& h : a.new_hardware) s += "<li>new hardware: " + html_escape(h) + "</li>";
  for (const auto& m : a.new_models) s += "<li>new model: " + html_escape(m) + "</li>";
  for (const auto& c : a.changes) {
    s += "<li class=\"" + std::string(c.kind == "moved" ? (c.better ? "better" : "worse") : "") +
         "\">" + html_escape(change_line(c)) + "</li>";
  }
  s += "</ul>\n<h2>" + html_escape(setting_name(d.options)) + " across hardware</h2>\n";
  std::string current_model;
  std::vector<std::pair<std::string, double>> bars;
  for (const auto& r : a.setting)
    bars.emplace_back(r.model + " · " + r.hardware, *r.best.metric("tput_per_gpu"));
  if (!bars.empty())
    s += detail::bar_chart("Best throughput per GPU, " + setting_name(d.options), "tok/s/GPU",
                           bars) +
         "\n";
  s += "<table><tr><th>model</th><th>hardware</th><th>configuration</th><th>tput/GPU</th><th>vs "
       "leader</th>"
       "<th>median TTFT (s)</th><th>median TPOT (s)</th><th>median E2EL (s)</th></tr>\n";
  for (const auto& r : a.setting) {
    const BenchPoint& p = r.best;
    s += "<tr><td>" + html_escape(r.model) + "</td><td>" + html_escape(r.hardware) + "</td><td>" +
         html_escape(config_of(p)) + "</td><td>" + fmt(p.metric("tput_per_gpu"), "%.1f") +
         "</td><td>" + fmt(r.ratio_to_leader * 100, "%.0f") + "%</td><td>" +
         fmt(p.metric("median_ttft"), "%.3f") + "</td><td>" + fmt(p.metric("median_tpot"), "%.4f") +
         "</td><td>" + fmt(p.metric("median_e2el"), "%.2f") + "</td></tr>\n";
  }
  s += "</table>\n<h2>Trends (" + html_escape(setting_name(d.options)) + ")</h2>\n";
  for (const auto& t : a.trends) {
    s += "<h3>" + html_escape(t.model) + "</h3>\n";
    s += detail::line_chart(t.model + ": best throughput per GPU", "tok/s/GPU", t.dates,
                            t.throughput) +
         "\n";
    s += detail::line_chart(t.model + ": lowest median end-to-end latency", "seconds", t.dates,
                            t.latency) +
         "\n";
  }
  return s + "</body></html>\n";
}

void write_bench_xlsx(const BenchReportData& d, const std::string& path) {
  lxw_workbook* wb = workbook_new(path.c_str());
  if (wb == nullptr)
    throw InputError("cannot create the Excel report " + path + "; check output_dir");
  lxw_format* bold = workbook_add_format(wb);
  format_set_bold(bold);
  std::set<std::string> metric_names;
  for (const auto& p : d.points) {
    for (const auto& [k, v] : p.metrics) metric_names.insert(k);
  }
  lxw_worksheet* ws = workbook_add_worksheet(wb, "Benchmarks");
  const std::vector<std::string> fixed = {"model",         "hardware", "framework", "precision",
                                          "spec_decoding", "disagg",   "isl",       "osl",
                                          "conc",          "gpus",     "date",      "source"};
  lxw_col_t col = 0;
  for (const auto& h : fixed) worksheet_write_string(ws, 0, col++, h.c_str(), bold);
  for (const auto& m : metric_names) worksheet_write_string(ws, 0, col++, m.c_str(), bold);
  lxw_row_t row = 1;
  for (const auto& p : d.points) {
    const std::string texts[] = {p.model,     p.hardware,      p.framework,
                                 p.precision, p.spec_decoding, p.disagg ? "true" : "false"};
    col = 0;
    for (const auto& t : texts) worksheet_write_string(ws, row, col++, t.c_str(), nullptr);
    for (int64_t n : {p.isl, p.osl, p.conc, p.gpus})
      worksheet_write_number(ws, row, col++, static_cast<double>(n), nullptr);
    worksheet_write_string(ws, row, col++, p.date.c_str(), nullptr);
    worksheet_write_string(ws, row, col++, p.source.c_str(), nullptr);
    for (const auto& m : metric_names) {
      if (const auto v = p.metric(m)) worksheet_write_number(ws, row, col, *v, nullptr);
      ++col;
    }
    ++row;
  }
  worksheet_autofilter(ws, 0, 0, row > 1 ? row - 1 : 1, static_cast<lxw_col_t>(col - 1));
  worksheet_freeze_panes(ws, 1, 0);
  lxw_worksheet* cs = workbook_add_worksheet(wb, "Changes");
  worksheet_write_string(cs, 0, 0, "change", bold);
  row = 1;
  for (const auto& c : d.analysis.changes)
    worksheet_write_string(cs, row++, 0, change_line(c).c_str(), nullptr);
  if (workbook_close(wb) != LXW_NO_ERROR) {
    throw InputError("writing the Excel report " + path + " failed; check output_dir is writable");
  }
}

}  // namespace skillrt::daily_trackers
