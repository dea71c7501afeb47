#include "rules.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace skillrt::pr_analysis {
namespace {

[[noreturn]] void fail(const std::string& name, const YAML::Node& node, const std::string& what) {
  const int line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
  throw std::runtime_error("rule pack " + name + ":" + std::to_string(line) + ": " + what +
                           " (see plugins/pr-analysis/data/README.md for the format)");
}

std::vector<std::string> string_list(const std::string& name, const YAML::Node& parent,
                                     const char* key) {
  std::vector<std::string> out;
  const YAML::Node n = parent[key];
  if (!n) return out;
  if (n.IsScalar()) {
    out.push_back(n.as<std::string>());
    return out;
  }
  if (!n.IsSequence()) fail(name, n, std::string("'") + key + "' must be a string or a list");
  for (const YAML::Node& item : n) {
    if (!item.IsScalar()) fail(name, item, std::string("'") + key + "' items must be strings");
    out.push_back(item.as<std::string>());
  }
  return out;
}

bool glob_at(std::string_view p, size_t pi, std::string_view s, size_t si) {
  while (pi < p.size()) {
    if (p[pi] == '*') {
      const bool deep = pi + 1 < p.size() && p[pi + 1] == '*';
      size_t next = pi + (deep ? 2 : 1);
      // "**/" also matches zero directories.
      if (deep && next < p.size() && p[next] == '/' && glob_at(p, next + 1, s, si)) return true;
      for (size_t k = si; k <= s.size(); ++k) {
        if (glob_at(p, next, s, k)) return true;
        if (k < s.size() && !deep && s[k] == '/') return false;
      }
      return false;
    }
    if (si >= s.size()) return false;
    if (p[pi] != '?' && p[pi] != s[si]) return false;
    if (p[pi] == '?' && s[si] == '/') return false;
    ++pi;
    ++si;
  }
  return si == s.size();
}

}  // namespace

std::string_view to_string(Impact impact) {
  switch (impact) {
    case Impact::kHigh:
      return "high";
    case Impact::kMedium:
      return "medium";
    case Impact::kLow:
      return "low";
    case Impact::kNone:
      return "none";
  }
  return "none";
}

bool parse_impact(std::string_view text, Impact* out) {
  for (Impact i : {Impact::kNone, Impact::kLow, Impact::kMedium, Impact::kHigh}) {
    if (to_string(i) == text) {
      *out = i;
      return true;
    }
  }
  return false;
}

const std::vector<std::string>& op_change_kinds() {
  static const std::vector<std::string> kKinds = {
      "op_added",         "op_removed",         "signature_changed", "default_changed",
      "dispatch_changed", "derivative_changed", "metadata_changed"};
  return kKinds;
}

bool glob_match(std::string_view pattern, std::string_view path) {
  return glob_at(pattern, 0, path, 0);
}

const Category* RulePack::category(std::string_view id) const {
  for (const Category& c : categories) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

RulePack parse_rule_pack(std::string_view yaml_text, const std::string& name) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error("rule pack " + name + ": not YAML: " + e.what() +
                             "; fix the file or drop the `rules` input");
  }
  if (!root.IsMap()) fail(name, root, "the top level must be a map with `categories` and `rules`");
  RulePack pack;
  pack.sources.push_back(name);
  if (const YAML::Node cats = root["categories"]) {
    if (!cats.IsSequence()) fail(name, cats, "`categories` must be a list");
    for (const YAML::Node& c : cats) {
      if (!c.IsMap() || !c["id"]) fail(name, c, "each category needs an `id`");
      pack.categories.push_back({c["id"].as<std::string>(), c["title"].as<std::string>("")});
    }
  }
  const YAML::Node rules = root["rules"];
  if (!rules || !rules.IsSequence()) fail(name, root, "`rules` must be a list");
  std::set<std::string> seen;
  for (const YAML::Node& r : rules) {
    if (!r.IsMap()) fail(name, r, "each rule must be a map");
    Rule rule;
    if (!r["id"]) fail(name, r, "a rule has no `id`");
    rule.id = r["id"].as<std::string>();
    if (!seen.insert(rule.id).second) fail(name, r, "rule id '" + rule.id + "' appears twice");
    if (!r["category"]) fail(name, r, "rule '" + rule.id + "' has no `category`");
    rule.category = r["category"].as<std::string>();
    const std::string impact = r["impact"] ? r["impact"].as<std::string>() : "";
    if (!parse_impact(impact, &rule.impact)) {
      fail(name, r,
           "rule '" + rule.id + "': `impact` must be high, medium, low or none, not '" + impact +
               "'");
    }
    rule.suggestion = r["suggestion"].as<std::string>("");
    const YAML::Node when = r["when"];
    if (!when || !when.IsMap()) fail(name, r, "rule '" + rule.id + "' has no `when` map");
    for (const auto& kv : when) {
      const std::string key = kv.first.as<std::string>();
      if (key != "paths" && key != "exclude_paths" && key != "hunk_contains" &&
          key != "op_changes" && key != "labels" && key != "no_op_changes") {
        fail(name, kv.first,
             "rule '" + rule.id + "': unknown condition '" + key +
                 "' (paths, exclude_paths, hunk_contains, op_changes, labels, no_op_changes)");
      }
    }
    rule.paths = string_list(name, when, "paths");
    rule.exclude_paths = string_list(name, when, "exclude_paths");
    rule.hunk_contains = string_list(name, when, "hunk_contains");
    rule.op_changes = string_list(name, when, "op_changes");
    rule.labels = string_list(name, when, "labels");
    if (const YAML::Node n = when["no_op_changes"]) {
      if (!n.IsScalar() || (n.Scalar() != "true" && n.Scalar() != "false")) {
        fail(name, n, "rule '" + rule.id + "': `no_op_changes` must be true or false");
      }
      rule.no_op_changes = n.Scalar() == "true";
    }
    for (const std::string& k : rule.op_changes) {
      const auto& kinds = op_change_kinds();
      if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) {
        fail(name, when, "rule '" + rule.id + "': unknown op change '" + k + "'");
      }
    }
    if (rule.paths.empty() && rule.hunk_contains.empty() && rule.labels.empty() &&
        rule.op_changes.empty()) {
      fail(name, when, "rule '" + rule.id + "' has no condition");
    }
    rule.origin = name + ":" + std::to_string(r.Mark().line + 1);
    pack.rules.push_back(std::move(rule));
  }
  return pack;
}

void merge_rule_pack(RulePack& base, const RulePack& extra) {
  for (const Category& c : extra.categories) {
    if (base.category(c.id) == nullptr) base.categories.push_back(c);
  }
  for (const Rule& r : extra.rules) {
    auto it = std::find_if(base.rules.begin(), base.rules.end(),
                           [&](const Rule& b) { return b.id == r.id; });
    if (it != base.rules.end()) {
      *it = r;
    } else {
      base.rules.push_back(r);
    }
  }
  base.sources.insert(base.sources.end(), extra.sources.begin(), extra.sources.end());
}

}  // namespace skillrt::pr_analysis
