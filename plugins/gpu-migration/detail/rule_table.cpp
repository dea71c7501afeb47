#include "detail/rule_table.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <skillrt/sdk.hpp>
#include <sstream>

namespace skillrt::gpu_migration::detail {
namespace {

using Json = nlohmann::json;

std::string text_field(const Json& obj, const char* key, const std::string& where, bool required) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) {
      throw invalid_argument(where + ": field '" + key +
                             "' is missing; see plugins/gpu-migration/data/README.md");
    }
    return {};
  }
  if (!it->is_string()) throw invalid_argument(where + ": field '" + key + "' must be a string");
  return it->get<std::string>();
}

std::vector<std::string> string_list(const Json& obj, const char* key, const std::string& where) {
  std::vector<std::string> out;
  auto it = obj.find(key);
  if (it == obj.end()) return out;
  if (!it->is_array()) throw invalid_argument(where + ": field '" + key + "' must be an array");
  for (const Json& v : *it) {
    if (!v.is_string()) {
      throw invalid_argument(where + ": every entry of '" + key + "' must be a string");
    }
    out.push_back(v.get<std::string>());
  }
  return out;
}

Rule parse_rule(const Json& r, const std::string& origin, size_t index,
                const std::set<std::string>& domains, const std::set<std::string>& efforts) {
  std::string where = origin + ": rules[" + std::to_string(index) + "]";
  if (!r.is_object()) throw invalid_argument(where + " must be an object");
  Rule rule;
  rule.id = text_field(r, "id", where, true);
  where += " (" + rule.id + ")";
  rule.domain = text_field(r, "domain", where, true);
  if (domains.count(rule.domain) == 0) {
    throw invalid_argument(where + ": domain '" + rule.domain +
                           "' is not one of the table's domains (device, attention, custom_ops, "
                           "distributed, precision, third_party, compile)");
  }
  rule.effort = text_field(r, "effort", where, true);
  if (efforts.count(rule.effort) == 0) {
    throw invalid_argument(where + ": effort '" + rule.effort +
                           "' is not one of automatic, small_manual, large_manual, blocker");
  }
  rule.alternative = text_field(r, "alternative", where, true);
  rule.source = text_field(r, "source", where, true);
  rule.reason = text_field(r, "reason", where, false);
  rule.equivalence = text_field(r, "equivalence", where, false);
  rule.followup = text_field(r, "followup", where, false);
  rule.suggestion = r.value("suggestion", false);
  rule.version_check = r.value("version_check", false);

  auto m = r.find("match");
  if (m == r.end() || !m->is_object())
    throw invalid_argument(where + ": 'match' object is missing");
  const std::string kind = text_field(*m, "kind", where + ".match", true);
  if (kind == "chain" || kind == "import") {
    rule.kind = kind == "chain" ? MatchKind::kChain : MatchKind::kImport;
    for (const std::string& p : string_list(*m, "patterns", where + ".match")) {
      rule.patterns.push_back(split_dotted(p));
    }
    if (rule.patterns.empty()) throw invalid_argument(where + ".match: 'patterns' is empty");
  } else if (kind == "attribute") {
    rule.kind = MatchKind::kAttribute;
    rule.name = text_field(*m, "name", where + ".match", true);
  } else if (kind == "string" || kind == "text") {
    rule.kind = kind == "string" ? MatchKind::kString : MatchKind::kText;
    rule.needle = text_field(*m, "needle", where + ".match", false);
    rule.regex_text = text_field(*m, "regex", where + ".match", true);
    try {
      rule.regex = std::make_shared<const std::regex>(
          rule.regex_text, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      throw invalid_argument(where + ".match.regex '" + rule.regex_text +
                             "' is not a valid ECMAScript regular expression: " + e.what());
    }
    rule.files = string_list(*m, "files", where + ".match");
    if (rule.kind == MatchKind::kText && rule.files.empty()) {
      throw invalid_argument(where + ".match: a text rule needs 'files' (globs on file names)");
    }
  } else if (kind == "transpose_view") {
    rule.kind = MatchKind::kTransposeView;
  } else if (kind == "assignment") {
    rule.kind = MatchKind::kAssignment;
    rule.names = string_list(*m, "names", where + ".match");
    if (rule.names.empty()) throw invalid_argument(where + ".match: 'names' is empty");
    rule.regex_text = text_field(*m, "value", where + ".match", true);
  } else if (kind == "wrapper_call") {
    rule.kind = MatchKind::kWrapperCall;
  } else {
    throw invalid_argument(where + ".match.kind '" + kind +
                           "' is unknown: use chain, attribute, string, import, text, "
                           "transpose_view, assignment or wrapper_call");
  }
  rule.call = m->value("call", false);
  rule.wrapper = m->value("wrapper", false);
  rule.skip_imports = m->value("skip_imports", false);
  if (m->contains("argument")) {
    if (rule.kind != MatchKind::kChain || !rule.call) {
      throw invalid_argument(where + ".match: 'argument' needs a chain match with call: true");
    }
    const auto& a = (*m)["argument"];
    rule.argument = text_field(a, "name", where + ".match.argument", true);
    rule.argument_regex_text = text_field(a, "regex", where + ".match.argument", false);
    if (!rule.argument_regex_text.empty()) {
      try {
        rule.argument_regex = std::make_shared<const std::regex>(
            rule.argument_regex_text, std::regex::ECMAScript | std::regex::optimize);
      } catch (const std::regex_error& e) {
        throw invalid_argument(where + ".match.argument.regex '" + rule.argument_regex_text +
                               "' is not a valid ECMAScript regular expression: " + e.what());
      }
    }
  }

  auto w = r.find("rewrite");
  if (w != r.end()) {
    if (rule.suggestion) {
      throw invalid_argument(where +
                             ": a suggestion rule cannot have a rewrite (suggestions are "
                             "never applied)");
    }
    const std::string wk = text_field(*w, "kind", where + ".rewrite", true);
    if (wk == "chain") {
      if (rule.kind != MatchKind::kChain) {
        throw invalid_argument(where + ".rewrite: kind 'chain' needs a chain match");
      }
      auto map = w->find("map");
      if (map == w->end() || !map->is_object() || map->empty()) {
        throw invalid_argument(where + ".rewrite: 'map' must be a non-empty object");
      }
      for (auto it = map->begin(); it != map->end(); ++it) {
        if (!it.value().is_string()) {
          throw invalid_argument(where + ".rewrite.map['" + it.key() + "'] must be a string");
        }
        rule.rewrite_map.emplace_back(split_dotted(it.key()), it.value().get<std::string>());
      }
      // Longest prefix first, so torch.cuda.CUDAGraph wins over torch.cuda.
      std::stable_sort(
          rule.rewrite_map.begin(), rule.rewrite_map.end(),
          [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
      rule.rewrite = RewriteKind::kChain;
    } else if (wk == "rename_attribute") {
      if (rule.kind != MatchKind::kAttribute) {
        throw invalid_argument(where +
                               ".rewrite: kind 'rename_attribute' needs an attribute match");
      }
      rule.rewrite = RewriteKind::kRenameAttribute;
      rule.rewrite_to = text_field(*w, "to", where + ".rewrite", true);
    } else if (wk == "string_prefix" || wk == "string_replace") {
      if (rule.kind != MatchKind::kString) {
        throw invalid_argument(where + ".rewrite: kind '" + wk + "' needs a string match");
      }
      rule.rewrite =
          wk == "string_prefix" ? RewriteKind::kStringPrefix : RewriteKind::kStringReplace;
      if (wk == "string_prefix")
        rule.rewrite_from = text_field(*w, "from", where + ".rewrite", true);
      rule.rewrite_to = text_field(*w, "to", where + ".rewrite", true);
    } else {
      throw invalid_argument(where + ".rewrite.kind '" + wk +
                             "' is unknown: use chain, rename_attribute, string_prefix or "
                             "string_replace");
    }
    if (rule.reason.empty())
      throw invalid_argument(where + ": a rule with a rewrite needs 'reason'");
  }
  return rule;
}

}  // namespace

std::vector<std::string_view> split_at(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(sep, start);
    if (end == std::string_view::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

Dotted split_dotted(std::string_view text) {
  Dotted out;
  for (std::string_view part : split_at(text, '.')) out.emplace_back(part);
  return out;
}

bool glob_match(std::string_view pattern, std::string_view name) {
  // '*' and '?' only: enough for file-name globs, with backtracking on the last '*'.
  size_t p = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

const EffortClass* RuleTable::effort_class(const std::string& id) const {
  for (const EffortClass& e : effort_classes) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

const Domain* RuleTable::domain(const std::string& id) const {
  for (const Domain& d : domains) {
    if (d.id == id) return &d;
  }
  return nullptr;
}

RuleTable parse_rule_table(const Json& doc, const std::string& origin) {
  if (!doc.is_object()) throw invalid_argument(origin + ": the rule table must be a JSON object");
  RuleTable table;
  table.name = doc.value("name", std::string("rules"));
  table.version = doc.value("version", std::string());
  table.origins.push_back(origin);
  if (auto d = doc.find("domains"); d != doc.end()) {
    for (const Json& x : *d) table.domains.push_back({x.at("id"), x.value("title", "")});
  }
  if (auto e = doc.find("effort_classes"); e != doc.end()) {
    for (const Json& x : *e) {
      EffortClass c;
      c.id = x.at("id").get<std::string>();
      c.rank = x.at("rank").get<int>();
      if (x.contains("days_per_finding") && x.at("days_per_finding").is_number()) {
        c.days_per_finding = x.at("days_per_finding").get<double>();
      }
      c.meaning = x.value("meaning", "");
      table.effort_classes.push_back(c);
    }
  }
  if (auto q = doc.find("equivalence"); q != doc.end()) {
    for (auto it = q->begin(); it != q->end(); ++it) {
      const std::string where = origin + ": equivalence." + it.key();
      EquivalenceNote n;
      n.id = it.key();
      n.from = text_field(it.value(), "from", where, true);
      n.to = text_field(it.value(), "to", where, true);
      n.definition_from = text_field(it.value(), "definition_from", where, true);
      n.definition_to = text_field(it.value(), "definition_to", where, true);
      n.agree_when = text_field(it.value(), "agree_when", where, true);
      n.numeric_check = text_field(it.value(), "numeric_check", where, true);
      table.equivalence[n.id] = n;
    }
  }
  return table;
}

namespace {

void parse_rules_into(RuleTable& table, const Json& doc, const std::string& origin,
                      const RuleTable& vocabulary) {
  std::set<std::string> domains, efforts;
  for (const Domain& d : vocabulary.domains) domains.insert(d.id);
  for (const EffortClass& e : vocabulary.effort_classes) efforts.insert(e.id);
  auto rules = doc.find("rules");
  if (rules == doc.end() || !rules->is_array()) {
    throw invalid_argument(origin + ": 'rules' must be an array of rule objects");
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < rules->size(); ++i) {
    Rule rule = parse_rule((*rules)[i], origin, i, domains, efforts);
    if (!seen.insert(rule.id).second) {
      throw invalid_argument(origin + ": rule id '" + rule.id + "' appears twice; ids are unique");
    }
    table.rules.push_back(std::move(rule));
  }
  for (const Rule& rule : table.rules) {
    if (!rule.equivalence.empty() && table.equivalence.count(rule.equivalence) == 0 &&
        vocabulary.equivalence.count(rule.equivalence) == 0) {
      throw invalid_argument(origin + ": rule '" + rule.id + "' names equivalence note '" +
                             rule.equivalence + "', which the table does not define");
    }
  }
}

}  // namespace

void merge_rule_table(RuleTable& base, const RuleTable& extra) {
  std::vector<Rule> added;
  for (const Rule& r : extra.rules) {
    bool replaced = false;
    for (Rule& b : base.rules) {
      if (b.id == r.id) {
        b = r;
        replaced = true;
        break;
      }
    }
    if (!replaced) added.push_back(r);
  }
  base.rules.insert(base.rules.begin(), added.begin(), added.end());
  for (const auto& [id, note] : extra.equivalence) base.equivalence[id] = note;
  for (const std::string& o : extra.origins) base.origins.push_back(o);
}

const RuleTable& builtin_rule_table() {
  static const RuleTable table = [] {
    const std::string origin = "built-in data/rules.json";
    Json doc = Json::parse(embedded_data("rules.json"));
    RuleTable t = parse_rule_table(doc, origin);
    parse_rules_into(t, doc, origin, t);
    return t;
  }();
  return table;
}

RuleTable rule_table_with_user_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw invalid_argument("rules_file '" + path +
                           "' cannot be read: check the path and its permissions");
  }
  std::stringstream buf;
  buf << in.rdbuf();
  Json doc;
  try {
    doc = Json::parse(buf.str());
  } catch (const Json::parse_error& e) {
    throw invalid_argument("rules_file '" + path + "' is not valid JSON (" + e.what() +
                           "); the format is described in plugins/gpu-migration/data/README.md");
  }
  RuleTable table = builtin_rule_table();
  RuleTable extra = parse_rule_table(doc, "rules_file " + path);
  parse_rules_into(extra, doc, "rules_file " + path, table);
  merge_rule_table(table, extra);
  return table;
}

}  // namespace skillrt::gpu_migration::detail
