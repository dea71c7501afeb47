#include "vllm_report.hpp"

#include "detail/svg_chart.hpp"
#include "engine.hpp"
#include "plugin_io/report_text.hpp"

namespace skillrt::daily_trackers {
namespace {

using plugin_io::html_escape;
using plugin_io::markdown_cell;

std::string label(const DigestItem& i) { return i.item.repo + " " + i.item.key; }

std::map<std::string, size_t> count_by(const DigestData& d, int what) {
  std::map<std::string, size_t> m;
  for (const DigestItem& i : d.items) {
    if (what == 0) ++m[std::string(to_string(i.assessment.rating))];
    if (what == 1) ++m[i.change];
    if (what == 2) {
      for (const auto& x : i.assessment.models) ++m[x];
    }
    if (what == 3) {
      for (const auto& x : i.assessment.topics) ++m[x];
    }
    if (what == 4) ++m[i.item.repo];
  }
  return m;
}

std::string counts_line(const std::map<std::string, size_t>& m) {
  std::string s;
  for (const auto& [k, v] : m) s += (s.empty() ? "" : ", ") + k + " " + std::to_string(v);
  return s.empty() ? "none" : s;
}

std::string source_line(const SourceStatus& s) {
  return s.name + " (" + s.mode +
         "): " + (s.ok ? std::to_string(s.items) + " items fetched" : "FAILED — " + s.error);
}

}  // namespace

Json item_json(const DigestItem& i) {
  Json cites = Json::array();
  for (const Citation& c : i.assessment.citations) cites.push_back(c.to_json());
  return Json{{"repo", i.item.repo},
              {"key", i.item.key},
              {"kind", i.item.kind},
              {"state", i.item.state},
              {"title", i.item.title},
              {"url", i.item.url},
              {"author", i.item.author},
              {"updated_at", i.item.updated_at},
              {"change", i.change},
              {"rating", std::string(to_string(i.assessment.rating))},
              {"models", i.assessment.models},
              {"topics", i.assessment.topics},
              {"citations", cites},
              {"summary", i.summary},
              {"labels", i.item.labels},
              {"linked", i.item.linked},
              {"comments", i.item.comments},
              {"sha", i.item.sha}};
}

Json digest_counts(const DigestData& d) {
  size_t fetched = 0;
  for (const auto& s : d.sources) fetched += s.items;
  size_t excluded = 0;
  for (const auto& [k, v] : d.excluded) excluded += v;
  return Json{{"counts",
               {{"fetched", fetched},
                {"reported", d.items.size()},
                {"excluded_by_filters", excluded},
                {"no_model_or_topic", d.unmatched},
                {"by_rating", count_by(d, 0)},
                {"by_change", count_by(d, 1)},
                {"by_model", count_by(d, 2)},
                {"by_topic", count_by(d, 3)},
                {"by_repo", count_by(d, 4)}}}};
}

Json digest_json(const DigestData& d) {
  Json j = digest_counts(d);
  j["window"] = {{"since", d.window_since}, {"until", d.window_until}};
  j["rule_files"] = d.rule_sources;
  Json sources = Json::array();
  for (const auto& s : d.sources) {
    sources.push_back(
        {{"name", s.name}, {"mode", s.mode}, {"ok", s.ok}, {"items", s.items}, {"error", s.error}});
  }
  j["sources"] = sources;
  j["excluded"] = d.excluded;
  Json items = Json::array();
  for (const DigestItem& i : d.items) items.push_back(item_json(i));
  j["items"] = items;
  j["llm_analysis"] = kLlmNote;
  j["notes"] = d.notes;
  return j;
}

std::string digest_markdown(const DigestData& d) {
  std::string s = "# vLLM / vllm-ascend digest\n\nWindow: " + d.window_since + " .. " +
                  d.window_until + " (UTC)\n\n";
  s += "> " + std::string(kLlmNote) + "\n\n## Sources\n\n";
  for (const auto& src : d.sources) s += "- " + source_line(src) + "\n";
  s += "\n## Summary\n\n";
  s += "- Reported: " + std::to_string(d.items.size()) +
       " (by rating: " + counts_line(count_by(d, 0)) + ")\n";
  s +=
      "- Changes since the last run: " +
      (d.has_previous ? counts_line(count_by(d, 1)) : std::string("first run, everything is new")) +
      "\n";
  s += "- Models: " + counts_line(count_by(d, 2)) + "\n";
  s += "- Topics: " + counts_line(count_by(d, 3)) + "\n";
  s += "- Not reported: " + std::to_string(d.unmatched) + " matched no model or topic";
  for (const auto& [k, v] : d.excluded) s += "; " + std::to_string(v) + " dropped by " + k;
  s += "\n";
  for (const auto& n : d.notes) s += "- Note: " + n.get<std::string>() + "\n";
  s += "\n## Items\n\n| item | rating | change | title | models | topics "
       "|\n|---|---|---|---|---|---|\n";
  for (const DigestItem& i : d.items) {
    std::string m;
    for (const auto& x : i.assessment.models) m += (m.empty() ? "" : ", ") + x;
    std::string t;
    for (const auto& x : i.assessment.topics) t += (t.empty() ? "" : ", ") + x;
    s += "| [" + markdown_cell(label(i)) + "](" + i.item.url + ") | " +
         std::string(to_string(i.assessment.rating)) + " | " + i.change + " | " +
         markdown_cell(i.item.title) + " | " + markdown_cell(m) + " | " + markdown_cell(t) + " |\n";
  }
  s += "\n## Details\n";
  for (const DigestItem& i : d.items) {
    s += "\n### " + label(i) + ": " + markdown_cell(i.item.title) + "\n\n" + i.summary + "\n\n";
    s += "Rating **" + std::string(to_string(i.assessment.rating)) + "**, because:\n\n";
    for (const Citation& c : i.assessment.citations) {
      s += "- `" + c.rule + "` (" + c.origin + ", " + std::string(to_string(c.rating)) +
           ") matched " + c.field + ": \"" + markdown_cell(c.matched) + "\"" +
           (c.why.empty() ? "" : " — " + c.why) + "\n";
    }
    if (i.assessment.citations.empty()) s += "- no rule matched (include_unmatched)\n";
  }
  s += "\nRule files: ";
  for (size_t k = 0; k < d.rule_sources.size(); ++k) s += (k ? ", " : "") + d.rule_sources[k];
  return s + "\n";
}

std::string digest_html(const DigestData& d) {
  std::string s =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>vLLM / vllm-ascend "
      "digest</title>"
      "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:"
      "collapse}"
      "td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top}.high{background:#fdd}"
      ".medium{background:#ffd}.note{background:#eef;padding:8px}</style></head><body>\n";
  s += "<h1>vLLM / vllm-ascend digest</h1><p>Window: " + html_escape(d.window_since) + " .. " +
       html_escape(d.window_until) + " (UTC)</p>\n<p class=\"note\">" + html_escape(kLlmNote) +
       "</p>\n<h2>Sources</h2><ul>";
  for (const auto& src : d.sources) s += "<li>" + html_escape(source_line(src)) + "</li>";
  s += "</ul>\n<h2>Summary</h2><p>Reported: " + std::to_string(d.items.size()) + " (" +
       html_escape(counts_line(count_by(d, 0))) + "). Changes: " +
       html_escape(d.has_previous ? counts_line(count_by(d, 1)) : "first run, everything is new") +
       ".</p>\n";
  for (const auto& n : d.notes) s += "<p>Note: " + html_escape(n.get<std::string>()) + "</p>\n";
  std::vector<std::pair<std::string, double>> bars;
  for (const auto& [k, v] : count_by(d, 3)) bars.emplace_back(k, static_cast<double>(v));
  for (const auto& [k, v] : count_by(d, 2))
    bars.emplace_back("model: " + k, static_cast<double>(v));
  if (!bars.empty()) s += detail::bar_chart("Items per topic and model", "items", bars) + "\n";
  s += "<h2>Items</h2><table><tr><th>item</th><th>rating</th><th>change</th><th>summary</"
       "th><th>why</th></tr>\n";
  for (const DigestItem& i : d.items) {
    const std::string r(to_string(i.assessment.rating));
    s += "<tr class=\"" + r + "\"><td><a href=\"" + html_escape(i.item.url) + "\">" +
         html_escape(label(i)) + "</a></td><td>" + r + "</td><td>" + i.change + "</td><td>" +
         html_escape(i.summary) + "</td><td>";
    for (const Citation& c : i.assessment.citations) {
      s += "<code>" + html_escape(c.rule) + "</code> (" + html_escape(c.origin) + ") " +
           html_escape(c.field) + ": “" + html_escape(c.matched) + "”<br>";
    }
    s += "</td></tr>\n";
  }
  return s + "</table>\n</body></html>\n";
}

}  // namespace skillrt::daily_trackers
