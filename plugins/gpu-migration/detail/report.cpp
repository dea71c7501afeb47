#include <xlsxwriter.h>

#include <skillrt/sdk.hpp>
#include <sstream>

#include "detail/analysis.hpp"
#include "plugin_io/report_text.hpp"

namespace skillrt::gpu_migration::detail {

using Json = nlohmann::json;

namespace {

std::string days_text(const Json& v) {
  if (v.is_null()) return "cannot estimate";
  std::ostringstream s;
  s.precision(2);
  s << std::fixed << v.get<double>() << " d";
  return s.str();
}

std::string where(const Json& f) {
  std::string w = f.at("file").get<std::string>();
  if (f.contains("cell")) w += " cell " + std::to_string(f.at("cell").get<int>());
  return w + ":" + std::to_string(f.at("line").get<int>());
}

// A finding's rule text (alternative, source): analyze lists it once per rule in `rules`.
const std::string& rule_text(const Json& result, const Json& f, const char* key) {
  const auto it = f.find(key);
  if (it != f.end() && it->is_string()) return it->get_ref<const std::string&>();
  const Json& rule = result.at("rules").at(f.at("rule").get_ref<const std::string&>());
  return rule.at(key).get_ref<const std::string&>();
}

}  // namespace

std::string render_markdown(const Json& r) {
  std::ostringstream md;
  const Json& o = r.at("overall");
  md << "# GPU to Ascend NPU migration analysis\n\n";
  md << "Repository: `" << r.value("repo", "") << "`  \n";
  md << "Rule table: " << r.at("rule_table").value("name", "") << " "
     << r.at("rule_table").value("version", "") << "  \n";
  md << "Files scanned: " << r.at("files_scanned") << ", skipped: " << r.at("skipped").size()
     << ", excluded folders: " << r.at("excluded").size() << "\n\n";
  md << "**Overall: " << o.at("verdict").get<std::string>() << "**, worst effort class "
     << o.at("effort").get<std::string>() << ", " << o.at("findings") << " findings, estimate "
     << days_text(o.at("estimate_days")) << " (" << o.at("estimate_note").get<std::string>()
     << ")\n\n";
  md << "| domain | verdict | effort | findings | automatic | small manual | large manual | "
        "blocker | estimate | rules |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Json& d : r.at("domains")) {
    const Json& b = d.at("by_effort");
    std::string rules;
    for (const Json& id : d.at("rules"))
      rules += (rules.empty() ? "" : ", ") + id.get<std::string>();
    md << "| " << d.at("title").get<std::string>() << " | " << d.at("verdict").get<std::string>()
       << " | " << d.at("effort").get<std::string>() << " | " << d.at("findings") << " | "
       << b.value("automatic", 0) << " | " << b.value("small_manual", 0) << " | "
       << b.value("large_manual", 0) << " | " << b.value("blocker", 0) << " | "
       << days_text(d.at("estimate_days")) << " | " << rules << " |\n";
  }
  for (const Json& d : r.at("domains")) {
    if (d.at("findings").get<int>() == 0) continue;
    md << "\n## " << d.at("title").get<std::string>() << "\n\n";
    md << "| where | code | rule | effort | NPU alternative | source "
          "|\n|---|---|---|---|---|---|\n";
    for (const Json& f : r.at("findings")) {
      if (f.at("domain") != d.at("domain")) continue;
      std::string alt = rule_text(r, f, "alternative");
      if (f.contains("note")) alt += " — " + f.at("note").get<std::string>();
      md << "| " << plugin_io::markdown_cell(where(f)) << " | `"
         << plugin_io::markdown_cell(f.at("code").get<std::string>()) << "` | "
         << f.at("rule").get<std::string>() << " | " << f.at("effort").get<std::string>() << " | "
         << plugin_io::markdown_cell(alt) << " | "
         << plugin_io::markdown_cell(rule_text(r, f, "source")) << " |\n";
    }
  }
  if (!r.at("suggestions").empty()) {
    md << "\n## Optional NPU-affinity suggestions (never applied automatically)\n\n";
    md << "| where | code | rule | suggestion |\n|---|---|---|---|\n";
    for (const Json& f : r.at("suggestions")) {
      md << "| " << plugin_io::markdown_cell(where(f)) << " | `"
         << plugin_io::markdown_cell(f.at("code").get<std::string>()) << "` | "
         << f.at("rule").get<std::string>() << " | "
         << plugin_io::markdown_cell(rule_text(r, f, "alternative")) << " |\n";
    }
  }
  if (!r.at("skipped").empty() || !r.at("notes").empty()) {
    md << "\n## What was not analysed\n\n";
    for (const Json& s : r.at("skipped")) {
      md << "- `" << s.at("path").get<std::string>() << "`: " << s.at("reason").get<std::string>()
         << "\n";
    }
    for (const Json& n : r.at("notes")) md << "- " << n.get<std::string>() << "\n";
  }
  return md.str();
}

void write_xlsx(const Json& r, const std::string& path) {
  const std::string tmp = path + ".tmp";
  lxw_workbook* wb = workbook_new(tmp.c_str());
  if (wb == nullptr) {
    throw SkillError(SKILLRT_FAILED_PRECONDITION, "cannot create Excel report '" + path +
                                                      "': check that report_dir is writable");
  }
  lxw_format* bold = workbook_add_format(wb);
  format_set_bold(bold);
  lxw_worksheet* sum = workbook_add_worksheet(wb, "Summary");
  const char* sum_head[] = {"domain",       "verdict",      "effort",  "findings",      "automatic",
                            "small_manual", "large_manual", "blocker", "estimate_days", "note"};
  for (lxw_col_t c = 0; c < 10; ++c) worksheet_write_string(sum, 0, c, sum_head[c], bold);
  lxw_row_t row = 1;
  auto days = [&](lxw_worksheet* ws, lxw_row_t rr, lxw_col_t cc, const Json& v) {
    if (v.is_null()) {
      worksheet_write_string(ws, rr, cc, "cannot estimate", nullptr);
    } else {
      worksheet_write_number(ws, rr, cc, v.get<double>(), nullptr);
    }
  };
  for (const Json& d : r.at("domains")) {
    const Json& b = d.at("by_effort");
    worksheet_write_string(sum, row, 0, d.at("title").get<std::string>().c_str(), nullptr);
    worksheet_write_string(sum, row, 1, d.at("verdict").get<std::string>().c_str(), nullptr);
    worksheet_write_string(sum, row, 2, d.at("effort").get<std::string>().c_str(), nullptr);
    worksheet_write_number(sum, row, 3, d.at("findings").get<double>(), nullptr);
    worksheet_write_number(sum, row, 4, b.value("automatic", 0), nullptr);
    worksheet_write_number(sum, row, 5, b.value("small_manual", 0), nullptr);
    worksheet_write_number(sum, row, 6, b.value("large_manual", 0), nullptr);
    worksheet_write_number(sum, row, 7, b.value("blocker", 0), nullptr);
    days(sum, row, 8, d.at("estimate_days"));
    worksheet_write_string(sum, row, 9, d.at("estimate_note").get<std::string>().c_str(), nullptr);
    ++row;
  }
  const Json& o = r.at("overall");
  worksheet_write_string(sum, row, 0, "overall", bold);
  worksheet_write_string(sum, row, 1, o.at("verdict").get<std::string>().c_str(), bold);
  worksheet_write_string(sum, row, 2, o.at("effort").get<std::string>().c_str(), bold);
  worksheet_write_number(sum, row, 3, o.at("findings").get<double>(), bold);
  days(sum, row, 8, o.at("estimate_days"));
  worksheet_write_string(sum, row, 9, o.at("estimate_note").get<std::string>().c_str(), nullptr);

  auto sheet = [&](const char* name, const Json& items) {
    lxw_worksheet* ws = workbook_add_worksheet(wb, name);
    const char* head[] = {"file", "cell",   "line",        "code",   "domain",
                          "rule", "effort", "alternative", "source", "note"};
    for (lxw_col_t c = 0; c < 10; ++c) worksheet_write_string(ws, 0, c, head[c], bold);
    lxw_row_t rr = 1;
    const std::string repo = r.value("repo", "");
    for (const Json& f : items) {
      const std::string file = f.at("file").get<std::string>();
      // A link to the file, so the sheet opens the evidence.
      const std::string url = "file://" + repo + "/" + file;
      if (url.size() < 2000 && url.find('#') == std::string::npos) {
        worksheet_write_url_opt(ws, rr, 0, url.c_str(), nullptr, file.c_str(), nullptr);
      } else {
        worksheet_write_string(ws, rr, 0, file.c_str(), nullptr);
      }
      if (f.contains("cell"))
        worksheet_write_number(ws, rr, 1, f.at("cell").get<double>(), nullptr);
      worksheet_write_number(ws, rr, 2, f.at("line").get<double>(), nullptr);
      worksheet_write_string(ws, rr, 3, f.at("code").get<std::string>().c_str(), nullptr);
      worksheet_write_string(ws, rr, 4, f.at("domain").get<std::string>().c_str(), nullptr);
      worksheet_write_string(ws, rr, 5, f.at("rule").get<std::string>().c_str(), nullptr);
      worksheet_write_string(ws, rr, 6, f.at("effort").get<std::string>().c_str(), nullptr);
      worksheet_write_string(ws, rr, 7, rule_text(r, f, "alternative").c_str(), nullptr);
      worksheet_write_string(ws, rr, 8, rule_text(r, f, "source").c_str(), nullptr);
      if (f.contains("note")) {
        worksheet_write_string(ws, rr, 9, f.at("note").get<std::string>().c_str(), nullptr);
      }
      ++rr;
      if (rr >= 1048575) break;  // Excel's row limit; the JSON report keeps everything
    }
  };
  sheet("Findings", r.at("findings"));
  sheet("Suggestions", r.at("suggestions"));
  const lxw_error err = workbook_close(wb);
  if (err != LXW_NO_ERROR) {
    std::remove(tmp.c_str());
    throw SkillError(SKILLRT_FAILED_PRECONDITION,
                     "cannot write Excel report '" + path + "': " + lxw_strerror(err));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw SkillError(SKILLRT_FAILED_PRECONDITION, "cannot move Excel report into '" + path + "'");
  }
}

}  // namespace skillrt::gpu_migration::detail
