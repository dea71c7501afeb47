#include "tracker_rules.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "rules.hpp"  // pr-analysis: glob_match

namespace skillrt::daily_trackers {
namespace {

constexpr size_t kContext = 40;

std::string where(const std::string& name, const YAML::Node& n) {
  return name + ":" + std::to_string(n.Mark().line + 1);
}

std::vector<std::string> strings(const YAML::Node& n, const std::string& field,
                                 const std::string& at) {
  std::vector<std::string> out;
  if (!n) return out;
  if (!n.IsSequence()) throw InputError(at + ": `" + field + "` must be a list of strings");
  for (const YAML::Node& v : n) {
    if (!v.IsScalar()) throw InputError(at + ": `" + field + "` entries must be strings");
    out.push_back(v.as<std::string>());
  }
  return out;
}

std::regex compile(const std::string& pattern, const std::string& at) {
  try {
    return std::regex(pattern, std::regex::ECMAScript | std::regex::icase);
  } catch (const std::regex_error& e) {
    throw InputError(at + ": pattern '" + pattern + "' is not a valid regular expression (" +
                     e.what() + "); fix or quote it");
  }
}

Rating parse_rating(const YAML::Node& n, const std::string& at) {
  const std::string s = n ? n.as<std::string>() : "low";
  if (s == "high") return Rating::kHigh;
  if (s == "medium") return Rating::kMedium;
  if (s == "low") return Rating::kLow;
  throw InputError(at + ": `rating` must be high, medium or low, not '" + s + "'");
}

std::vector<MatchRule> parse_table(const YAML::Node& table, const std::string& kind,
                                   const std::string& name) {
  std::vector<MatchRule> out;
  if (!table) return out;
  if (!table.IsSequence()) {
    throw InputError(where(name, table) + ": `" + kind + "s` must be a list of entries");
  }
  for (const YAML::Node& n : table) {
    const std::string at = where(name, n);
    if (!n.IsMap() || !n["id"]) throw InputError(at + ": each " + kind + " needs an `id`");
    MatchRule r;
    r.kind = kind;
    r.id = n["id"].as<std::string>();
    r.title = n["title"] ? n["title"].as<std::string>() : r.id;
    r.rating = parse_rating(n["rating"], at);
    r.why = n["why"] ? n["why"].as<std::string>() : "";
    r.patterns = strings(n["patterns"], "patterns", at);
    r.labels = strings(n["labels"], "labels", at);
    r.paths = strings(n["paths"], "paths", at);
    if (r.patterns.empty() && r.labels.empty() && r.paths.empty()) {
      throw InputError(at + ": " + kind + " '" + r.id +
                       "' has no `patterns`, `labels` or `paths`; it could never match");
    }
    for (const std::string& p : r.patterns) r.compiled.push_back(compile(p, at));
    r.origin = at;
    out.push_back(std::move(r));
  }
  return out;
}

// The matched text with a little context, on one line, for the citation.
std::string around(const std::string& text, size_t pos, size_t len) {
  const size_t b = pos > kContext ? pos - kContext : 0;
  const size_t e = std::min(text.size(), pos + len + kContext);
  std::string s = text.substr(b, e - b);
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  // Cut on UTF-8 boundaries so that a report never shows half a character.
  while (!s.empty() && (static_cast<unsigned char>(s.front()) & 0xC0) == 0x80) s.erase(0, 1);
  while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0x80) != 0) {
    size_t k = s.size() - 1;
    while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
    const unsigned char lead = static_cast<unsigned char>(s[k]);
    const size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (s.size() - k == need) break;
    s.erase(k);
  }
  return (b > 0 ? "…" : "") + s + (e < text.size() ? "…" : "");
}

bool match_rule(const MatchRule& r, const TrackedItem& item, Citation* c) {
  const std::pair<const char*, const std::string*> fields[] = {{"title", &item.title},
                                                               {"body", &item.body}};
  for (const auto& [field, text] : fields) {
    for (size_t i = 0; i < r.compiled.size(); ++i) {
      std::smatch m;
      if (std::regex_search(*text, m, r.compiled[i])) {
        c->field = field;
        c->matched =
            around(*text, static_cast<size_t>(m.position(0)), static_cast<size_t>(m.length(0)));
        return true;
      }
    }
  }
  for (const std::string& l : item.labels) {
    if (std::find(r.labels.begin(), r.labels.end(), l) != r.labels.end()) {
      c->field = "labels";
      c->matched = l;
      return true;
    }
  }
  for (const std::string& f : item.files) {
    for (const std::string& g : r.paths) {
      if (pr_analysis::glob_match(g, f)) {
        c->field = "files";
        c->matched = f;
        return true;
      }
    }
  }
  return false;
}

void merge_table(std::vector<MatchRule>& base, const std::vector<MatchRule>& extra) {
  for (const MatchRule& r : extra) {
    auto it =
        std::find_if(base.begin(), base.end(), [&](const MatchRule& b) { return b.id == r.id; });
    if (it != base.end()) {
      *it = r;
    } else {
      base.push_back(r);
    }
  }
}

}  // namespace

std::string_view to_string(Rating r) {
  switch (r) {
    case Rating::kHigh:
      return "high";
    case Rating::kMedium:
      return "medium";
    case Rating::kLow:
      return "low";
    case Rating::kNone:
      break;
  }
  return "none";
}

Json Citation::to_json() const {
  return Json{{"rule", rule},   {"title", title},     {"origin", origin},
              {"field", field}, {"matched", matched}, {"rating", std::string(to_string(rating))},
              {"why", why}};
}

TrackerRules parse_tracker_rules(std::string_view yaml_text, const std::string& name) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    throw InputError(name + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML (" + e.msg +
                     ")");
  }
  if (!root.IsMap())
    throw InputError(name + ": the rule file must be a mapping (the format is in docs/daily-trackers.md)");
  TrackerRules rules;
  rules.sources.push_back(name);
  try {
    if (const YAML::Node f = root["filters"]) {
      const std::string at = where(name, f);
      rules.filters.origin = at;
      rules.filters.exclude_authors = strings(f["exclude_authors"], "exclude_authors", at);
      rules.filters.exclude_labels = strings(f["exclude_labels"], "exclude_labels", at);
      rules.filters.exclude_title_patterns =
          strings(f["exclude_title_patterns"], "exclude_title_patterns", at);
      for (const std::string& p : rules.filters.exclude_title_patterns) {
        rules.filters.exclude_title.push_back(compile(p, at));
      }
    }
    rules.models = parse_table(root["models"], "model", name);
    rules.topics = parse_table(root["topics"], "topic", name);
  } catch (const YAML::Exception& e) {
    throw InputError(name + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return rules;
}

void merge_tracker_rules(TrackerRules& base, const TrackerRules& extra) {
  auto append = [](std::vector<std::string>& a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
  };
  append(base.filters.exclude_authors, extra.filters.exclude_authors);
  append(base.filters.exclude_labels, extra.filters.exclude_labels);
  append(base.filters.exclude_title_patterns, extra.filters.exclude_title_patterns);
  base.filters.exclude_title.insert(base.filters.exclude_title.end(),
                                    extra.filters.exclude_title.begin(),
                                    extra.filters.exclude_title.end());
  merge_table(base.models, extra.models);
  merge_table(base.topics, extra.topics);
  append(base.sources, extra.sources);
}

Assessment assess(const TrackerRules& rules, const TrackedItem& item) {
  Assessment a;
  const Filters& f = rules.filters;
  if (std::find(f.exclude_authors.begin(), f.exclude_authors.end(), item.author) !=
      f.exclude_authors.end()) {
    a.excluded_by = "filters.exclude_authors (" + f.origin + "): " + item.author;
    return a;
  }
  for (const std::string& l : item.labels) {
    if (std::find(f.exclude_labels.begin(), f.exclude_labels.end(), l) != f.exclude_labels.end()) {
      a.excluded_by = "filters.exclude_labels (" + f.origin + "): " + l;
      return a;
    }
  }
  for (size_t i = 0; i < f.exclude_title.size(); ++i) {
    if (std::regex_search(item.title, f.exclude_title[i])) {
      a.excluded_by =
          "filters.exclude_title_patterns (" + f.origin + "): " + f.exclude_title_patterns[i];
      return a;
    }
  }
  for (const auto* table : {&rules.models, &rules.topics}) {
    for (const MatchRule& r : *table) {
      Citation c;
      if (!match_rule(r, item, &c)) continue;
      c.rule = r.kind + ":" + r.id;
      c.title = r.title;
      c.origin = r.origin;
      c.rating = r.rating;
      c.why = r.why;
      a.rating = std::max(a.rating, r.rating);
      (r.kind == "model" ? a.models : a.topics).push_back(r.id);
      a.citations.push_back(std::move(c));
    }
  }
  return a;
}

}  // namespace skillrt::daily_trackers
