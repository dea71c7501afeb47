#include "report.hpp"

#include <sstream>

#include "checks.hpp"
#include "plugin_io/report_text.hpp"

namespace skillrt::doc_review {

namespace {

using nlohmann::json;
using plugin_io::html_escape;

std::string str(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// Text for a Markdown table cell: pipes escaped, HTML neutralised, emphasis characters kept
// literal so a parameter named *args or __init__ reads as written.
std::string md_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '|' || c == '\\' || c == '*' || c == '_' || c == '`' || c == '[' || c == ']') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

// An inline code span that survives any backticks inside and stays in its table cell.
std::string md_code(const std::string& s) {
  if (s.empty()) return "";
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  return fence + " " + plugin_io::markdown_cell(s) + " " + fence;
}

std::string title_of(const json& r) {
  return "文档质量体检报告 / Documentation review: " + str(r, "docs");
}

}  // namespace

std::string render_markdown(const json& r) {
  std::ostringstream o;
  const json& sum = r["summary"];
  o << "# 文档质量体检报告 / Documentation review\n\n";
  o << "- Docs: " << md_code(str(r, "docs")) << " (" << r["pages"].get<size_t>() << " pages)\n";
  if (r["code"].is_null()) {
    o << "- Code: none given (checks against the code were skipped)\n";
  } else {
    o << "- Code: " << md_code(str(r, "code")) << " (" << str(r, "code_kind") << ")\n";
  }
  o << "- Findings: " << sum["findings"].get<size_t>() << " (" << sum["errors"].get<size_t>()
    << " errors, " << sum["warnings"].get<size_t>() << " warnings, " << sum["infos"].get<size_t>()
    << " info)";
  if (sum["truncated"].get<bool>())
    o << "; the first " << sum["shown"].get<size_t>() << " are listed (max_findings)";
  o << "\n- Static review: pages and code were read, nothing was edited or run.\n\n";

  o << "## Summary\n\n| axis | 轴 | error | warning | info |\n|---|---|---|---|---|\n";
  for (const json& axis_j : r["axes"]) {
    const std::string axis = axis_j.get<std::string>();
    const json& c = r["counts"][axis];
    const auto a = parse_axis(axis);
    o << "| " << axis << " | " << (a ? chinese_name(*a) : "") << " | " << c["error"] << " | "
      << c["warning"] << " | " << c["info"] << " |\n";
  }
  for (const json& axis_j : r["axes"]) {
    const std::string axis = axis_j.get<std::string>();
    const auto a = parse_axis(axis);
    o << "\n## " << axis << " " << (a ? chinese_name(*a) : "") << "\n\n";
    bool any = false;
    for (const json& f : r["findings"]) {
      if (f["axis"] != axis) continue;
      if (!any) {
        o << "| severity | where | finding | evidence | suggestion |\n|---|---|---|---|---|\n";
        any = true;
      }
      const json& ev = f["evidence"];
      std::string evidence = md_code(str(ev, "doc"));
      if (!str(ev, "code_ref").empty()) {
        evidence += "<br>code " + md_code(str(ev, "code_ref"));
        if (!str(ev, "code").empty()) evidence += ": " + md_code(str(ev, "code"));
      }
      o << "| " << str(f, "severity") << " | " << md_text(str(f, "page")) << ":"
        << f["line"].get<int>() << " | " << md_text(str(f, "message")) << " ("
        << md_text(str(f, "rule")) << ") | " << evidence << " | " << md_text(str(f, "suggestion"))
        << " |\n";
    }
    if (!any) o << "No findings.\n";
  }
  o << "\n## Skipped\n\n";
  if (r["skipped"].empty()) o << "Nothing was skipped.\n";
  for (const json& s : r["skipped"]) {
    o << "- " << md_text(str(s, "what")) << " (" << s["count"].get<size_t>()
      << "): " << md_text(str(s, "reason"));
    if (!str(s, "example").empty()) o << "; e.g. " << md_code(str(s, "example"));
    o << "\n";
  }
  return o.str();
}

std::string render_html(const json& r) {
  std::ostringstream o;
  const json& sum = r["summary"];
  o << "<!DOCTYPE html>\n<html lang=\"zh\"><head><meta charset=\"utf-8\">"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
       "<title>"
    << html_escape(title_of(r)) << "</title><style>"
    << "body{font-family:system-ui,-apple-system,'Segoe UI','Noto Sans CJK SC',sans-serif;"
       "margin:2rem auto;max-width:1200px;padding:0 1rem;color:#1d1d1f;line-height:1.5}"
       "h1{font-size:1.6rem}h2{margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.3rem}"
       "table{border-collapse:collapse;width:100%;margin:.5rem 0}"
       "th,td{border:1px solid #ddd;padding:.35rem .5rem;text-align:left;vertical-align:top}"
       "th{background:#f4f5f7}code{font-family:ui-monospace,Menlo,Consolas,monospace;"
       "font-size:.9em;background:#f4f5f7;padding:0 .2em;border-radius:3px;"
       "white-space:pre-wrap;overflow-wrap:anywhere}"
       ".sev{display:inline-block;padding:0 .45em;border-radius:3px;font-weight:600;"
       "font-size:.85em;color:#fff}.error{background:#c62828}.warning{background:#ef6c00}"
       ".info{background:#546e7a}.meta{color:#555}.rule{color:#777;font-size:.85em}"
       "td.num{text-align:right}"
       "</style></head><body>\n";
  o << "<h1>文档质量体检报告 / Documentation review</h1>\n<p class=\"meta\">Docs: <code>"
    << html_escape(str(r, "docs")) << "</code> (" << r["pages"].get<size_t>() << " pages)<br>";
  if (r["code"].is_null()) {
    o << "Code: none given (checks against the code were skipped)";
  } else {
    o << "Code: <code>" << html_escape(str(r, "code")) << "</code> ("
      << html_escape(str(r, "code_kind")) << ")";
  }
  o << "<br>Findings: " << sum["findings"].get<size_t>() << " (" << sum["errors"].get<size_t>()
    << " errors, " << sum["warnings"].get<size_t>() << " warnings, " << sum["infos"].get<size_t>()
    << " info)";
  if (sum["truncated"].get<bool>())
    o << "; the first " << sum["shown"].get<size_t>() << " are listed (max_findings)";
  o << "<br>Static review: pages and code were read, nothing was edited or run.</p>\n";

  o << "<h2>Summary</h2>\n<table><thead><tr><th>axis</th><th>轴</th><th>error</th>"
       "<th>warning</th><th>info</th></tr></thead><tbody>\n";
  for (const json& axis_j : r["axes"]) {
    const std::string axis = axis_j.get<std::string>();
    const json& c = r["counts"][axis];
    const auto a = parse_axis(axis);
    o << "<tr><td><a href=\"#axis-" << html_escape(axis) << "\">" << html_escape(axis)
      << "</a></td><td>" << (a ? chinese_name(*a) : "") << "</td><td class=\"num\">" << c["error"]
      << "</td><td class=\"num\">" << c["warning"] << "</td><td class=\"num\">" << c["info"]
      << "</td></tr>\n";
  }
  o << "</tbody></table>\n";
  for (const json& axis_j : r["axes"]) {
    const std::string axis = axis_j.get<std::string>();
    const auto a = parse_axis(axis);
    o << "<h2 id=\"axis-" << html_escape(axis) << "\">" << html_escape(axis) << " "
      << (a ? chinese_name(*a) : "") << "</h2>\n";
    bool any = false;
    for (const json& f : r["findings"]) {
      if (f["axis"] != axis) continue;
      if (!any) {
        o << "<table><thead><tr><th>severity</th><th>where</th><th>finding</th>"
             "<th>evidence</th><th>suggestion</th></tr></thead><tbody>\n";
        any = true;
      }
      const std::string sev = str(f, "severity");
      const json& ev = f["evidence"];
      o << "<tr><td><span class=\"sev " << html_escape(sev) << "\">" << html_escape(sev)
        << "</span></td><td><code>" << html_escape(str(f, "page")) << ":" << f["line"].get<int>()
        << "</code></td><td>" << html_escape(str(f, "message")) << "<br><span class=\"rule\">"
        << html_escape(str(f, "rule")) << "</span></td><td><code>" << html_escape(str(ev, "doc"))
        << "</code>";
      if (!str(ev, "code_ref").empty()) {
        o << "<br>code <code>" << html_escape(str(ev, "code_ref")) << "</code>";
        if (!str(ev, "code").empty()) o << ": <code>" << html_escape(str(ev, "code")) << "</code>";
      }
      o << "</td><td>" << html_escape(str(f, "suggestion")) << "</td></tr>\n";
    }
    o << (any ? "</tbody></table>\n" : "<p>No findings.</p>\n");
  }
  o << "<h2>Skipped</h2>\n";
  if (r["skipped"].empty())
    o << "<p>Nothing was skipped.</p>\n";
  else
    o << "<ul>\n";
  for (const json& s : r["skipped"]) {
    o << "<li>" << html_escape(str(s, "what")) << " (" << s["count"].get<size_t>()
      << "): " << html_escape(str(s, "reason"));
    if (!str(s, "example").empty())
      o << "; e.g. <code>" << html_escape(str(s, "example")) << "</code>";
    o << "</li>\n";
  }
  if (!r["skipped"].empty()) o << "</ul>\n";
  o << "</body></html>\n";
  return o.str();
}

}  // namespace skillrt::doc_review
