#include "reports.hpp"

#include <unistd.h>
#include <xlsxwriter.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "detail/files.hpp"
#include "plugin_io/report_text.hpp"

namespace skillrt::apic {
namespace {

std::string text(const Json& j) {
  if (j.is_null()) return "-";
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_float()) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.6g", j.get<double>());
    return buf;
  }
  return j.dump();
}

const char* kMetricKeys[] = {"max_abs_error",  "mean_abs_error", "max_rel_error",
                             "mean_rel_error", "rmse",           "cosine_similarity",
                             "error_balance",  "ulp_max",        "ulp_mean",
                             "mismatched",     "mismatch_ratio"};

void tensor_section(std::ostringstream& o, const Json& t) {
  o << "### " << t.value("name", "output") << "\n\n";
  o << "- expected: `" << text(t["expected"]["source"]) << "` " << text(t["expected"]["dtype"])
    << " " << text(t["expected"]["shape"]) << "\n";
  o << "- actual: `" << text(t["actual"]["source"]) << "` " << text(t["actual"]["dtype"]) << " "
    << text(t["actual"]["shape"]) << "\n";
  o << "- verdict: **" << text(t["verdict"]) << "** (standard `" << text(t["standard"])
    << "`), decided by: " << text(t["decided_by"]) << "\n";
  if (t.contains("reason")) o << "- reason: " << text(t["reason"]) << "\n";
  if (t.contains("message")) o << "- " << text(t["message"]) << "\n";
  if (!t.contains("metrics")) {
    o << "\n";
    return;
  }
  const Json& m = t["metrics"];
  o << "\n| metric | value |\n|---|---|\n";
  for (const char* k : kMetricKeys) o << "| " << k << " | " << text(m[k]) << " |\n";
  o << "| NaN expected / actual / position mismatches | " << text(m["nan"]["expected"]) << " / "
    << text(m["nan"]["actual"]) << " / " << text(m["nan"]["position_mismatches"]) << " |\n";
  o << "| ±Inf expected / actual / position mismatches | "
    << m["inf"]["expected_pos"].get<uint64_t>() + m["inf"]["expected_neg"].get<uint64_t>() << " / "
    << m["inf"]["actual_pos"].get<uint64_t>() + m["inf"]["actual_neg"].get<uint64_t>() << " / "
    << text(m["inf"]["position_mismatches"]) << " |\n\n";
  o << "| standard | verdict | reason |\n|---|---|---|\n";
  for (const auto& [name, s] : t["standards"].items()) {
    o << "| " << name << " | " << text(s["verdict"]) << " | "
      << plugin_io::markdown_cell(text(s["reason"])) << " |\n";
  }
  if (!t["worst"].empty()) {
    o << "\nWorst elements:\n\n| index | expected | actual | abs error | rel error |\n"
         "|---|---|---|---|---|\n";
    for (const auto& w : t["worst"]) {
      o << "| " << text(w["index"]) << " | " << text(w["expected"]) << " | " << text(w["actual"])
        << " | " << text(w["abs_error"]) << " | " << text(w["rel_error"]) << " |\n";
    }
  }
  o << "\n";
}

}  // namespace

std::string render_conclusion_md(const Json& c) {
  std::ostringstream o;
  o << "# 分析结论: " << c.value("api", c.value("id", "case")) << "\n\n";
  if (c.value("status", "") == "error" || !c.contains("triage")) {
    o << "**处理失败 (case error)**: " << text(c.value("error", Json("no triage result"))) << "\n";
    return o.str();
  }
  const Json& tr = c["triage"];
  o << "## 结论 (conclusion)\n\n";
  o << "- 根因分类 (exit): **" << text(tr["exit"]) << "** (" << text(tr["cause"]) << ")\n";
  o << "- 症状 (symptom): " << text(tr["symptom"]);
  if (!tr["secondary_symptoms"].empty()) o << "; secondary: " << text(tr["secondary_symptoms"]);
  o << "\n- " << text(tr["conclusion"]) << "\n";
  o << "- 判定规则 (decided by): " << text(tr["decided_by"]) << ", chip " << text(tr["chip"])
    << "\n";
  if (tr["operator"].is_object()) {
    o << "- 算子 (operator): `" << text(tr["operator"]["operator"]) << "` ("
      << text(tr["operator"]["confidence"]) << "): " << text(tr["operator"]["evidence"]) << "\n";
  } else if (tr.contains("operator_note")) {
    o << "- 算子 (operator): " << text(tr["operator_note"]) << "\n";
  }
  o << "\n## 证据 (evidence)\n\n| rule | pass | condition | value | evidence "
       "|\n|---|---|---|---|---|\n";
  for (const auto& r : tr["rules_fired"]) {
    for (const auto& cond : r["conditions"]) {
      o << "| " << text(r["id"]) << " | " << text(r["pass"]) << " | `"
        << plugin_io::markdown_cell(text(cond["condition"])) << "` | "
        << plugin_io::markdown_cell(text(cond["value"])) << " | "
        << plugin_io::markdown_cell(cond.contains("evidence") ? text(cond["evidence"]) : "")
        << " |\n";
    }
  }
  o << "\n## 比对 (comparison)\n\n";
  for (const auto& t : c["tensors"]) tensor_section(o, t);
  if (c.contains("runs") && c["runs"].is_object()) {
    o << "## 多次运行 (device runs)\n\n- compared: " << text(c["runs"]["compared"])
      << ", differ: " << text(c["runs"]["differ"]) << ", max abs diff "
      << text(c["runs"]["max_abs_diff"]) << ", max rel diff " << text(c["runs"]["max_rel_diff"])
      << "\n\n";
  }
  o << "## 下一步 (next steps)\n\n";
  for (const auto& s : tr["next_steps"]) o << "- " << text(s) << "\n";
  return o.str();
}

std::string render_reproduction_md(const Json& c) {
  std::ostringstream o;
  o << "# 复现记录: " << c.value("api", c.value("id", "case")) << "\n\n";
  o << "## 命令 (commands)\n\n```sh\n";
  if (c.contains("reproduction") && c["reproduction"].is_object()) {
    o << text(c["reproduction"]["command"]) << "\n";
  }
  o << "skillrt run api-consistency --input '" << c.value("input", Json::object()).dump()
    << "'\n```\n\n";
  o << "## 环境 (environment)\n\n";
  if (c.contains("environment") && c["environment"].is_object() && !c["environment"].empty()) {
    for (const auto& [k, v] : c["environment"].items()) o << "- " << k << ": " << text(v) << "\n";
  } else {
    o << "- not recorded (no env.json beside the case); the reproduction script records torch, "
         "torch_npu and CANN versions\n";
  }
  o << "\n## 输入与输出 (inputs and outputs)\n\n";
  for (const auto& t : c["tensors"]) {
    o << "- " << t.value("name", "output") << ": expected `" << text(t["expected"]["source"])
      << "` (" << text(t["expected"]["format"]) << ", " << text(t["expected"]["storage_dtype"])
      << " as " << text(t["expected"]["dtype"]) << ", shape " << text(t["expected"]["shape"])
      << "), actual `" << text(t["actual"]["source"]) << "` (" << text(t["actual"]["format"])
      << ", " << text(t["actual"]["storage_dtype"]) << " as " << text(t["actual"]["dtype"])
      << ", shape " << text(t["actual"]["shape"]) << ")\n";
  }
  for (const auto& l : c.value("logs", Json::array())) o << "- log: `" << text(l) << "`\n";
  o << "\n## 指标 (metrics)\n\n";
  for (const auto& t : c["tensors"]) {
    o << "### " << t.value("name", "output") << "\n\n";
    if (!t.contains("metrics")) {
      o << text(t["message"]) << "\n\n";
      continue;
    }
    o << "| metric | value |\n|---|---|\n";
    for (const auto& [k, v] : t["metrics"].items()) {
      if (v.is_object()) continue;
      o << "| " << k << " | " << text(v) << " |\n";
    }
    o << "\n";
  }
  return o.str();
}

std::string render_case_html(const Json& c) {
  std::ostringstream o;
  const std::string title = c.value("api", c.value("id", "case"));
  o << "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" << plugin_io::html_escape(title)
    << "</title><style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
       "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:3px 8px;font-size:13px}"
       ".fail{color:#b00}.pass{color:#070}</style></head><body>";
  o << "<h1>" << plugin_io::html_escape(title) << "</h1>";
  if (c.value("status", "") == "error") {
    o << "<p class=\"fail\">case error: " << plugin_io::html_escape(text(c["error"]))
      << "</p></body></html>";
    return o.str();
  }
  const Json& tr = c["triage"];
  o << "<p><b>exit:</b> " << plugin_io::html_escape(text(tr["exit"])) << " ("
    << plugin_io::html_escape(text(tr["cause"])) << ") &middot; <b>symptom:</b> "
    << plugin_io::html_escape(text(tr["symptom"])) << " &middot; <b>rule:</b> "
    << plugin_io::html_escape(text(tr["decided_by"])) << "</p><p>"
    << plugin_io::html_escape(text(tr["conclusion"])) << "</p>";
  for (const auto& t : c["tensors"]) {
    const std::string verdict = text(t["verdict"]);
    o << "<h2>" << plugin_io::html_escape(t.value("name", "output")) << " <span class=\""
      << (verdict == "pass" ? "pass" : "fail") << "\">" << plugin_io::html_escape(verdict)
      << "</span></h2><p>" << plugin_io::html_escape(text(t["decided_by"])) << "</p>";
    if (!t.contains("histogram")) {
      o << "<p>" << plugin_io::html_escape(text(t["message"])) << "</p>";
      continue;
    }
    // Error histogram: one bar per binary exponent of |actual - expected|, zero errors first.
    const Json& h = t["histogram"];
    std::vector<uint64_t> bins{h["zero"].get<uint64_t>()};
    for (const auto& b : h["bins"]) bins.push_back(b.get<uint64_t>());
    size_t lo = 1, hi = bins.size();
    while (lo < hi && bins[lo] == 0) ++lo;
    while (hi > lo && bins[hi - 1] == 0) --hi;
    std::vector<std::pair<std::string, uint64_t>> bars{{"0", bins[0]}};
    const int low_exp = h["low_exponent"].get<int>();
    for (size_t i = lo; i < hi; ++i) {
      bars.emplace_back("2^" + std::to_string(low_exp + static_cast<int>(i) - 1), bins[i]);
    }
    uint64_t top = 1;
    for (const auto& b : bars) top = std::max(top, b.second);
    const int w = 900, hgt = 220, bw = std::max(8, (w - 60) / static_cast<int>(bars.size()));
    o << "<h3>error distribution</h3><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w
      << "\" height=\"" << hgt + 40
      << "\" role=\"img\" aria-label=\"histogram of absolute error\">";
    for (size_t i = 0; i < bars.size(); ++i) {
      const double frac =
          std::log1p(static_cast<double>(bars[i].second)) / std::log1p(static_cast<double>(top));
      const int bh = static_cast<int>(frac * hgt);
      const int x = 40 + static_cast<int>(i) * bw;
      o << "<rect x=\"" << x << "\" y=\"" << hgt - bh << "\" width=\"" << bw - 2 << "\" height=\""
        << bh << "\" fill=\"#4a7ab5\"><title>|err| in [" << plugin_io::html_escape(bars[i].first)
        << ", x2): " << bars[i].second << "</title></rect>";
      if (i % 4 == 0) {
        o << "<text x=\"" << x << "\" y=\"" << hgt + 15 << "\" font-size=\"10\">"
          << plugin_io::html_escape(bars[i].first) << "</text>";
      }
    }
    o << "<text x=\"40\" y=\"" << hgt + 35
      << "\" font-size=\"11\">|actual - expected| by binary "
         "exponent (log-scaled counts)</text></svg>";
    // Where the errors sit: max error per 1/64 of the flattened tensor, worst elements marked.
    const Json& p = t["profile"];
    double pmax = 0;
    for (const auto& v : p["max_abs_error"]) pmax = std::max(pmax, v.get<double>());
    const int segs = p["segments"].get<int>();
    o << "<h3>where the errors sit</h3><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w
      << "\" height=\"140\" role=\"img\" aria-label=\"error position\">";
    for (int i = 0; i < segs; ++i) {
      const double v = p["max_abs_error"][static_cast<size_t>(i)].get<double>();
      const int shade = pmax > 0 ? static_cast<int>(255 - 200 * v / pmax) : 255;
      o << "<rect x=\"" << 40 + i * 13 << "\" y=\"20\" width=\"13\" height=\"40\" fill=\"rgb(255,"
        << shade << "," << shade << ")\" stroke=\"#ddd\"><title>segment " << i << ": max |err| "
        << text(Json(v)) << ", mismatched " << text(p["mismatched"][static_cast<size_t>(i)])
        << "</title></rect>";
    }
    const double count = std::max<double>(1, t["count"].get<double>());
    for (const auto& wv : t["worst"]) {
      const int x = 40 + static_cast<int>(wv["flat_index"].get<double>() / count * segs * 13);
      o << "<circle cx=\"" << x << "\" cy=\"80\" r=\"4\" fill=\"#b00\"><title>index "
        << plugin_io::html_escape(text(wv["index"])) << ": |err| "
        << plugin_io::html_escape(text(wv["abs_error"])) << "</title></circle>";
    }
    o << "<text x=\"40\" y=\"110\" font-size=\"11\">flattened position (C order), darker = larger "
         "max |err|; dots = worst elements</text></svg>";
    o << "<table><tr><th>metric</th><th>value</th></tr>";
    for (const char* k : kMetricKeys) {
      o << "<tr><td>" << k << "</td><td>" << plugin_io::html_escape(text(t["metrics"][k]))
        << "</td></tr>";
    }
    o << "</table>";
  }
  o << "<h2>rules fired</h2><ul>";
  for (const auto& r : tr["rules_fired"]) {
    o << "<li>" << plugin_io::html_escape(text(r["id"])) << " (pass " << text(r["pass"]) << ")<ul>";
    for (const auto& cond : r["conditions"]) {
      o << "<li><code>" << plugin_io::html_escape(text(cond["condition"]))
        << "</code> = " << plugin_io::html_escape(text(cond["value"]));
      if (cond.contains("evidence"))
        o << " &mdash; " << plugin_io::html_escape(text(cond["evidence"]));
      o << "</li>";
    }
    o << "</ul></li>";
  }
  o << "</ul></body></html>";
  return o.str();
}

std::string write_summary_xlsx(const std::string& root, const std::string& relative,
                               const Json& cases) {
  const std::string path = detail::confined_path(root, relative);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + ".xlsx";
  lxw_workbook* wb = workbook_new(tmp.c_str());
  if (wb == nullptr) throw std::runtime_error("cannot create '" + tmp + "'; check output_dir");
  lxw_worksheet* ws = workbook_add_worksheet(wb, "summary");
  lxw_format* bold = workbook_add_format(wb);
  format_set_bold(bold);
  const char* head[] = {"case",          "api",    "status",         "verdict",    "standard",
                        "exit",          "cause",  "symptom",        "operator",   "max_abs_error",
                        "max_rel_error", "cosine", "mismatch_ratio", "decided_by", "error"};
  for (lxw_col_t i = 0; i < sizeof(head) / sizeof(head[0]); ++i) {
    worksheet_write_string(ws, 0, i, head[i], bold);
  }
  lxw_row_t row = 1;
  for (const auto& c : cases) {
    const Json& tr = c.value("triage", Json::object());
    const Json t = c.contains("tensors") && !c["tensors"].empty() ? c["primary"] : Json::object();
    auto put = [&](lxw_col_t col, const Json& v) {
      if (v.is_number()) {
        worksheet_write_number(ws, row, col, v.get<double>(), nullptr);
      } else if (!v.is_null()) {
        worksheet_write_string(ws, row, col, text(v).c_str(), nullptr);
      }
    };
    put(0, c.value("id", ""));
    put(1, c.value("api", ""));
    put(2, c.value("status", ""));
    put(3, t.value("verdict", ""));
    put(4, t.value("standard", ""));
    put(5, tr.value("exit", ""));
    put(6, tr.value("cause", ""));
    put(7, tr.value("symptom", ""));
    put(8, tr.contains("operator") && tr["operator"].is_object() ? tr["operator"]["operator"]
                                                                 : Json());
    if (t.contains("metrics")) {
      put(9, t["metrics"]["max_abs_error"]);
      put(10, t["metrics"]["max_rel_error"]);
      put(11, t["metrics"]["cosine_similarity"]);
      put(12, t["metrics"]["mismatch_ratio"]);
    }
    put(13, tr.value("decided_by", Json()));
    put(14, c.value("error", Json()));
    ++row;
  }
  const lxw_error rc = workbook_close(wb);
  if (rc != LXW_NO_ERROR) {
    std::filesystem::remove(tmp);
    throw std::runtime_error("cannot write '" + path + "': " + lxw_strerror(rc));
  }
  std::filesystem::rename(tmp, path);
  return path;
}

}  // namespace skillrt::apic
