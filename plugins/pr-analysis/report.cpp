#include "report.hpp"

#include <unistd.h>
#include <xlsxwriter.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "plugin_io/atomic_file.hpp"
#include "plugin_io/report_text.hpp"

namespace skillrt::pr_analysis {
namespace {

namespace fs = std::filesystem;

const char* const kImpacts[] = {"high", "medium", "low", "none", "needs-review"};

const char* impact_colour(const std::string& impact) {
  if (impact == "high") return "#d73a49";
  if (impact == "medium") return "#f0883e";
  if (impact == "low") return "#e3b341";
  if (impact == "none") return "#8b949e";
  return "#8250df";
}

lxw_color_t impact_rgb(const std::string& impact) {
  if (impact == "high") return 0xF4CCCC;
  if (impact == "medium") return 0xFCE5CD;
  if (impact == "low") return 0xFFF2CC;
  if (impact == "none") return 0xEEEEEE;
  return 0xD9D2E9;
}

std::string temp_name(const fs::path& target) {
  return (target.parent_path() /
          ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid())))
      .string();
}

void commit_file(const std::string& tmp, const fs::path& target) {
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot move the report into place at " + target.string() + ": " +
                             ec.message() + "; check the output directory is writable");
  }
}

std::string pr_label(const Json& p) {
  if (p["pr"].is_null()) return "commit " + p["key"].get<std::string>().substr(7, 12);
  return std::string(p["revert"].get<bool>() ? "revert of #" : "#") +
         std::to_string(p["pr"].get<int64_t>());
}

std::string evidence_text(const Json& e) {
  std::string s = "[" + e.value("rule", "") + "] " + e.value("file", std::string());
  if (e.contains("line")) s += ":" + std::to_string(e["line"].get<size_t>());
  if (e.contains("commit")) s += " @" + e["commit"].get<std::string>();
  if (e.contains("label")) s += "label '" + e["label"].get<std::string>() + "'";
  if (e.contains("op")) {
    s += " " + e["op"].get<std::string>() + " " + e.value("op_change", "");
    if (e.contains("subject")) s += " (" + e["subject"].get<std::string>() + ")";
    if (e.contains("old_schema") && e.contains("new_schema") &&
        e["old_schema"] != e["new_schema"]) {
      s += ": " + e["old_schema"].get<std::string>() + " -> " + e["new_schema"].get<std::string>();
    } else if (e.contains("new_schema")) {
      s += ": " + e["new_schema"].get<std::string>();
    } else if (e.contains("old_schema")) {
      s += ": " + e["old_schema"].get<std::string>();
    }
    if (e.contains("old_value") && e.contains("new_value")) {
      s += " [" + e["old_value"].get<std::string>() + " -> " + e["new_value"].get<std::string>() +
           "]";
    } else if (e.contains("new_value")) {
      s += " [added " + e["new_value"].get<std::string>() + "]";
    } else if (e.contains("old_value")) {
      s += " [removed " + e["old_value"].get<std::string>() + "]";
    }
  } else if (e.contains("text")) {
    s += " " + e["text"].get<std::string>();
  }
  return s;
}

std::string join(const Json& arr, const char* sep) {
  std::string s;
  for (const Json& v : arr) {
    if (!s.empty()) s += sep;
    s += v.get<std::string>();
  }
  return s;
}

// Counts by (category, impact) for the chart.
std::map<std::string, std::map<std::string, int>> category_impact(const Json& a) {
  std::map<std::string, std::map<std::string, int>> m;
  for (const Json& p : a["prs"]) {
    const std::string impact = p["impact"];
    if (p["categories"].empty()) ++m["(none)"][impact];
    for (const Json& c : p["categories"]) ++m[c.get<std::string>()][impact];
  }
  return m;
}

std::string svg_chart(const Json& a) {
  const auto counts = category_impact(a);
  int max_total = 1;
  for (const auto& [cat, by] : counts) {
    int t = 0;
    for (const auto& [i, n] : by) t += n;
    max_total = std::max(max_total, t);
  }
  const int label_w = 190;
  const int bar_w = 520;
  const int row_h = 24;
  const int height = static_cast<int>(counts.size()) * row_h + 50;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                  std::to_string(label_w + bar_w + 60) + "\" height=\"" + std::to_string(height) +
                  "\" role=\"img\" aria-label=\"PRs by category and impact\">\n";
  int y = 10;
  for (const auto& [cat, by] : counts) {
    s += "<text x=\"" + std::to_string(label_w - 6) + "\" y=\"" + std::to_string(y + 16) +
         "\" text-anchor=\"end\" font-size=\"12\">" + plugin_io::html_escape(cat) + "</text>\n";
    int x = label_w;
    int total = 0;
    for (const char* impact : kImpacts) {
      auto it = by.find(impact);
      if (it == by.end()) continue;
      const int w = std::max(1, it->second * bar_w / max_total);
      s += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
           std::to_string(w) + "\" height=\"" + std::to_string(row_h - 6) + "\" fill=\"" +
           impact_colour(impact) + "\"><title>" + plugin_io::html_escape(cat) + ": " +
           std::to_string(it->second) + " " + impact + "</title></rect>\n";
      x += w;
      total += it->second;
    }
    s += "<text x=\"" + std::to_string(x + 4) + "\" y=\"" + std::to_string(y + 14) +
         "\" font-size=\"11\">" + std::to_string(total) + "</text>\n";
    y += row_h;
  }
  int lx = label_w;
  for (const char* impact : kImpacts) {
    s += "<rect x=\"" + std::to_string(lx) + "\" y=\"" + std::to_string(y + 8) +
         "\" width=\"12\" height=\"12\" fill=\"" + impact_colour(impact) + "\"/><text x=\"" +
         std::to_string(lx + 16) + "\" y=\"" + std::to_string(y + 18) + "\" font-size=\"11\">" +
         impact + "</text>\n";
    lx += 100;
  }
  s += "</svg>\n";
  return s;
}

}  // namespace

std::string render_markdown(const Json& a) {
  const Json& meta = a["meta"];
  const Json& sum = a["summary"];
  std::string s = "# Upstream PR analysis for torch_npu\n\n";
  s += "Source: " + meta.value("source_description", std::string()) + "  \n";
  s += "PRs: " + std::to_string(sum["prs"].get<size_t>()) + " from " +
       std::to_string(sum["change_sets"].get<size_t>()) +
       " change sets; rule pack: " + join(meta["rule_packs"], ", ") + "\n\n";
  if (a.contains("empty_reason"))
    s += "**No PRs analysed:** " + a["empty_reason"].get<std::string>() + "\n\n";
  s += "| impact | PRs |\n|---|---|\n";
  for (const char* i : kImpacts)
    s += std::string("| ") + i + " | " + std::to_string(sum["by_impact"][i].get<int>()) + " |\n";
  s += "\n| category | PRs |\n|---|---|\n";
  for (const auto& [c, n] : sum["by_category"].items()) {
    if (n.get<int>() > 0) s += "| " + c + " | " + std::to_string(n.get<int>()) + " |\n";
  }
  for (const char* impact : kImpacts) {
    bool header = false;
    for (const Json& p : a["prs"]) {
      if (p["impact"] != impact) continue;
      if (!header) {
        s += std::string("\n## ") + impact + "\n";
        header = true;
      }
      s += "\n### ";
      s += p["url"].is_null() ? pr_label(p)
                              : "[" + pr_label(p) + "](" + p["url"].get<std::string>() + ")";
      s += " " + plugin_io::markdown_cell(p["title"].get<std::string>()) + "\n\n";
      s += "- merged " + p["merged_at"].get<std::string>() + " by " +
           plugin_io::markdown_cell(p["author"].get<std::string>());
      for (const Json& c : p["commits"]) {
        s += ", [" + c["sha"].get<std::string>().substr(0, 12) + "](" +
             c["url"].get<std::string>() + ")";
      }
      s += "\n- categories: " +
           (p["categories"].empty() ? std::string("(none)") : join(p["categories"], ", ")) + "\n";
      s += "- suggestion: " + plugin_io::markdown_cell(p["suggestion"].get<std::string>()) + "\n";
      if (!p["evidence"].empty()) {
        s += "- evidence:\n";
        for (const Json& e : p["evidence"])
          s += "  - `" + plugin_io::markdown_cell(evidence_text(e)) + "`\n";
      }
      if (!p["npu_hits"].empty()) {
        s += "- NPU entries hit:\n";
        for (const Json& h : p["npu_hits"]) {
          s += "  - `" + h["npu_file"].get<std::string>() + ":" +
               std::to_string(h["npu_line"].get<size_t>()) + "` " + h["how"].get<std::string>() +
               ": `" + plugin_io::markdown_cell(h["npu_text"].get<std::string>()) + "`\n";
        }
      }
      if (!p["unmatched_files"].empty()) {
        s += "- files no rule understands: " + join(p["unmatched_files"], ", ") + "\n";
      }
    }
  }
  return s;
}

std::string render_html(const Json& a) {
  const Json& sum = a["summary"];
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>Upstream PR analysis for torch_npu</title>\n<style>"
      "body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;font-size:13px}"
      "th{background:#f4f4f4}.imp{color:#fff;font-weight:bold;padding:2px 6px;border-radius:3px}"
      "code{font-size:12px}</style></head><body>\n<h1>Upstream PR analysis for torch_npu</h1>\n";
  s += "<p>" + plugin_io::html_escape(a["meta"].value("source_description", std::string())) + "; " +
       std::to_string(sum["prs"].get<size_t>()) + " PRs.</p>\n";
  if (a.contains("empty_reason")) {
    s += "<p><b>No PRs analysed:</b> " +
         plugin_io::html_escape(a["empty_reason"].get<std::string>()) + "</p>\n";
  }
  s += "<h2>PRs by category and impact</h2>\n" + svg_chart(a);
  s += "<h2>PRs</h2>\n<table><tr><th>PR</th><th>impact</th><th>title</th><th>categories</th>"
       "<th>suggestion</th><th>evidence</th></tr>\n";
  for (const Json& p : a["prs"]) {
    const std::string impact = p["impact"];
    s += "<tr><td>";
    s += p["url"].is_null() ? plugin_io::html_escape(pr_label(p))
                            : "<a href=\"" + plugin_io::html_escape(p["url"].get<std::string>()) +
                                  "\">" + plugin_io::html_escape(pr_label(p)) + "</a>";
    s += "</td><td><span class=\"imp\" style=\"background:" + std::string(impact_colour(impact)) +
         "\">" + impact + "</span></td><td>" +
         plugin_io::html_escape(p["title"].get<std::string>()) + "</td><td>" +
         plugin_io::html_escape(join(p["categories"], ", ")) + "</td><td>" +
         plugin_io::html_escape(p["suggestion"].get<std::string>()) + "</td><td>";
    // Every item is listed; past the first five they fold away so the table stays readable.
    size_t shown = 0;
    for (const Json& e : p["evidence"]) {
      if (shown++ == 5) {
        s += "<details><summary>" + std::to_string(p["evidence"].size() - 5) + " more</summary>";
      }
      s += "<code>" + plugin_io::html_escape(evidence_text(e)) + "</code><br>";
    }
    if (shown > 5) s += "</details>";
    if (p["evidence"].empty())
      s += "files: " + plugin_io::html_escape(join(p["unmatched_files"], ", "));
    s += "</td></tr>\n";
  }
  s += "</table>\n</body></html>\n";
  return s;
}

void write_xlsx(const Json& a, const std::string& path) {
  lxw_workbook* wb = workbook_new(path.c_str());
  if (wb == nullptr) throw std::runtime_error("cannot create the workbook " + path);
  lxw_format* bold = workbook_add_format(wb);
  format_set_bold(bold);
  format_set_bg_color(bold, 0xDDDDDD);
  lxw_format* link = workbook_add_format(wb);
  format_set_underline(link, LXW_UNDERLINE_SINGLE);
  format_set_font_color(link, LXW_COLOR_BLUE);
  lxw_format* wrap = workbook_add_format(wb);
  format_set_text_wrap(wrap);
  format_set_align(wrap, LXW_ALIGN_VERTICAL_TOP);
  std::map<std::string, lxw_format*> impact_fmt;
  for (const char* i : kImpacts) {
    lxw_format* f = workbook_add_format(wb);
    format_set_bg_color(f, impact_rgb(i));
    format_set_bold(f);
    impact_fmt[i] = f;
  }

  lxw_worksheet* ws = workbook_add_worksheet(wb, "PRs");
  const char* headers[] = {"PR",       "Title", "Impact", "Categories", "Suggestion", "Evidence",
                           "NPU hits", "Files", "Commit", "Merged at",  "Author",     "Rules"};
  const lxw_col_t ncols = sizeof(headers) / sizeof(headers[0]);
  for (lxw_col_t c = 0; c < ncols; ++c) worksheet_write_string(ws, 0, c, headers[c], bold);
  const double widths[] = {14, 50, 12, 28, 60, 80, 50, 50, 14, 20, 24, 30};
  for (lxw_col_t c = 0; c < ncols; ++c) worksheet_set_column(ws, c, c, widths[c], nullptr);
  lxw_row_t row = 1;
  for (const Json& p : a["prs"]) {
    const std::string label = pr_label(p);
    if (p["url"].is_null()) {
      worksheet_write_string(ws, row, 0, label.c_str(), nullptr);
    } else {
      worksheet_write_url_opt(ws, row, 0, p["url"].get<std::string>().c_str(), link, label.c_str(),
                              nullptr);
    }
    worksheet_write_string(ws, row, 1, p["title"].get<std::string>().c_str(), nullptr);
    const std::string impact = p["impact"];
    worksheet_write_string(ws, row, 2, impact.c_str(), impact_fmt[impact]);
    worksheet_write_string(ws, row, 3, join(p["categories"], ", ").c_str(), nullptr);
    worksheet_write_string(ws, row, 4, p["suggestion"].get<std::string>().c_str(), wrap);
    std::string ev;
    size_t n = 0;
    for (const Json& e : p["evidence"]) {
      if (n++ == 10) {
        ev += "... " + std::to_string(p["evidence"].size() - 10) + " more (Evidence sheet)";
        break;
      }
      ev += (ev.empty() ? "" : "\n") + evidence_text(e);
    }
    worksheet_write_string(ws, row, 5, ev.c_str(), wrap);
    std::string hits;
    for (const Json& h : p["npu_hits"]) {
      hits += (hits.empty() ? "" : "\n") + h["npu_file"].get<std::string>() + ":" +
              std::to_string(h["npu_line"].get<size_t>()) + " " + h["how"].get<std::string>();
    }
    worksheet_write_string(ws, row, 6, hits.c_str(), wrap);
    std::string files;
    for (const Json& f : p["files"])
      files += (files.empty() ? "" : "\n") + f["path"].get<std::string>();
    // Excel cells hold at most 32,767 characters.
    if (files.size() > 32000) files = files.substr(0, 32000) + "\n...";
    if (ev.size() > 32000) ev.resize(32000);
    worksheet_write_string(ws, row, 7, files.c_str(), wrap);
    if (!p["commits"].empty()) {
      const Json& c = p["commits"].back();
      worksheet_write_url_opt(ws, row, 8, c["url"].get<std::string>().c_str(), link,
                              c["sha"].get<std::string>().substr(0, 12).c_str(), nullptr);
    }
    worksheet_write_string(ws, row, 9, p["merged_at"].get<std::string>().c_str(), nullptr);
    worksheet_write_string(ws, row, 10, p["author"].get<std::string>().c_str(), nullptr);
    worksheet_write_string(ws, row, 11, join(p["rules"], ", ").c_str(), nullptr);
    ++row;
  }
  worksheet_autofilter(ws, 0, 0, row > 1 ? row - 1 : 1, ncols - 1);
  worksheet_freeze_panes(ws, 1, 0);

  lxw_worksheet* sum = workbook_add_worksheet(wb, "Summary");
  worksheet_set_column(sum, 0, 0, 36, nullptr);
  worksheet_write_string(sum, 0, 0, "Impact", bold);
  worksheet_write_string(sum, 0, 1, "PRs", bold);
  lxw_row_t r = 1;
  for (const char* i : kImpacts) {
    worksheet_write_string(sum, r, 0, i, impact_fmt[i]);
    worksheet_write_number(sum, r, 1, a["summary"]["by_impact"][i].get<int>(), nullptr);
    ++r;
  }
  ++r;
  worksheet_write_string(sum, r, 0, "Category", bold);
  worksheet_write_string(sum, r, 1, "PRs", bold);
  ++r;
  for (const auto& [c, n] : a["summary"]["by_category"].items()) {
    worksheet_write_string(sum, r, 0, c.c_str(), nullptr);
    worksheet_write_number(sum, r, 1, n.get<int>(), nullptr);
    ++r;
  }
  ++r;
  worksheet_write_string(sum, r, 0, "Source", bold);
  worksheet_write_string(sum, r, 1, a["meta"].value("source_description", std::string()).c_str(),
                         nullptr);

  lxw_worksheet* evs = workbook_add_worksheet(wb, "Evidence");
  const char* eh[] = {"PR", "Rule", "Impact", "File", "Line", "Text / change", "Op"};
  for (lxw_col_t c = 0; c < 7; ++c) worksheet_write_string(evs, 0, c, eh[c], bold);
  lxw_row_t er = 1;
  for (const Json& p : a["prs"]) {
    for (const Json& e : p["evidence"]) {
      worksheet_write_string(evs, er, 0, pr_label(p).c_str(), nullptr);
      worksheet_write_string(evs, er, 1, e.value("rule", "").c_str(), nullptr);
      worksheet_write_string(evs, er, 2, e.value("impact", "").c_str(), nullptr);
      worksheet_write_string(evs, er, 3, e.value("file", std::string()).c_str(), nullptr);
      if (e.contains("line")) worksheet_write_number(evs, er, 4, e["line"].get<double>(), nullptr);
      worksheet_write_string(evs, er, 5, evidence_text(e).c_str(), nullptr);
      worksheet_write_string(evs, er, 6, e.value("op", std::string()).c_str(), nullptr);
      ++er;
    }
  }
  worksheet_autofilter(evs, 0, 0, er > 1 ? er - 1 : 1, 6);
  worksheet_freeze_panes(evs, 1, 0);

  const lxw_error err = workbook_close(wb);
  if (err != LXW_NO_ERROR) {
    throw std::runtime_error("cannot write the workbook " + path + ": " + lxw_strerror(err));
  }
}

Json write_reports(const Json& analysis, const std::string& output_dir,
                   const std::vector<std::string>& formats) {
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) {
    throw std::runtime_error("cannot create output_dir '" + output_dir + "': " + ec.message());
  }
  Json paths = Json::object();
  for (const std::string& f : formats) {
    const fs::path target = fs::path(output_dir) / ("pr-analysis." + f);
    if (f == "json") {
      plugin_io::write_file_atomic(
          target, analysis.dump(1, ' ', false, Json::error_handler_t::replace) + "\n");
    } else if (f == "md") {
      plugin_io::write_file_atomic(target, render_markdown(analysis));
    } else if (f == "html") {
      plugin_io::write_file_atomic(target, render_html(analysis));
    } else if (f == "xlsx") {
      const std::string tmp = temp_name(target) + ".xlsx";
      write_xlsx(analysis, tmp);
      commit_file(tmp, target);
    } else {
      continue;
    }
    paths[f] = fs::absolute(target).string();
  }
  return paths;
}

}  // namespace skillrt::pr_analysis
