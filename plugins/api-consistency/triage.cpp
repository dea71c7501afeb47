#include "triage.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "dtype.hpp"

namespace skillrt::apic {
namespace {

std::vector<Condition> parse_conditions(const YAML::Node& node, const std::string& where) {
  std::vector<Condition> out;
  if (!node || !node.IsSequence()) {
    throw std::runtime_error(where + ": 'when' must be a list of conditions");
  }
  for (const auto& c : node) {
    const std::string text = c.as<std::string>();
    std::istringstream in(text);
    Condition cond;
    cond.text = text;
    in >> cond.fact >> cond.op;
    std::getline(in, cond.value);
    const auto first = cond.value.find_first_not_of(' ');
    cond.value = first == std::string::npos ? "" : cond.value.substr(first);
    static const char* kOps[] = {"==", "!=", "<", "<=", ">", ">=", "~", "in"};
    if (std::find(std::begin(kOps), std::end(kOps), cond.op) == std::end(kOps) ||
        cond.value.empty()) {
      throw std::runtime_error(
          where + ": condition '" + text +
          "' is not '<fact> <op> <value>' with op ==, !=, <, <=, >, >=, ~, in");
    }
    if (cond.op == "~") {
      try {
        std::regex probe(cond.value, std::regex::icase);
      } catch (const std::regex_error& e) {
        throw std::runtime_error(where + ": regex '" + cond.value + "' is invalid: " + e.what());
      }
    }
    out.push_back(std::move(cond));
  }
  return out;
}

Rule parse_rule(const YAML::Node& n, const std::string& origin) {
  Rule r;
  r.id = n["id"] ? n["id"].as<std::string>() : "";
  const std::string where = origin + ": rule '" + r.id + "'";
  if (r.id.empty()) throw std::runtime_error(origin + ": a rule has no 'id'");
  r.symptom = n["symptom"] ? n["symptom"].as<std::string>() : "";
  if (r.symptom.empty()) throw std::runtime_error(where + ": 'symptom' missing");
  r.title = n["title"] ? n["title"].as<std::string>() : "";
  r.exit = n["exit"] ? n["exit"].as<std::string>() : "";
  r.cause = n["cause"] ? n["cause"].as<std::string>() : "";
  r.conclusion = n["conclusion"] ? n["conclusion"].as<std::string>() : "";
  r.names_operator = n["names_operator"] && n["names_operator"].as<bool>();
  r.when = parse_conditions(n["when"], where);
  if (n["next_steps"]) {
    for (const auto& s : n["next_steps"]) r.next_steps.push_back(s.as<std::string>());
  }
  if (n["variants"]) {
    for (const auto& kv : n["variants"]) {
      Rule::Variant v;
      if (kv.second["when"]) {
        v.when =
            parse_conditions(kv.second["when"], where + " variant " + kv.first.as<std::string>());
      }
      if (kv.second["conclusion"]) v.conclusion = kv.second["conclusion"].as<std::string>();
      r.variants[kv.first.as<std::string>()] = std::move(v);
    }
  }
  return r;
}

// The value of one fact for the conditions: a number, a word, or text lines.
struct Fact {
  enum Kind { kNone, kNumber, kWord, kText } kind = kNone;
  double number = 0;
  std::string word;
  const std::vector<LogLine>* lines = nullptr;
};

struct Facts {
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> words;
  std::map<std::string, std::vector<LogLine>> texts;
  // Where a computed fact came from (a table row and its source, a check's numbers), shown as the
  // condition's evidence.
  std::map<std::string, std::string> notes;

  Fact get(const std::string& name) const {
    Fact f;
    if (auto it = numbers.find(name); it != numbers.end()) {
      f.kind = Fact::kNumber;
      f.number = it->second;
    } else if (auto w = words.find(name); w != words.end()) {
      f.kind = Fact::kWord;
      f.word = w->second;
    } else if (auto t = texts.find(name); t != texts.end()) {
      f.kind = Fact::kText;
      f.lines = &t->second;
    }
    return f;
  }
};

double as_number(const Json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_boolean()) return j.get<bool>() ? 1 : 0;
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "inf") return HUGE_VAL;
    if (s == "-inf") return -HUGE_VAL;
    if (s == "nan") return std::nan("");
  }
  return std::nan("");
}

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

bool is_half_like(const std::string& dtype) { return dtype == "float16" || dtype == "bfloat16"; }

// The first line of `lines` that the regex matches, or null.
const LogLine* first_match(const std::vector<LogLine>& lines, const std::string& regex) {
  if (regex.empty()) return nullptr;
  const std::regex re(regex, std::regex::icase);
  for (const LogLine& l : lines) {
    if (std::regex_search(l.text, re)) return &l;
  }
  return nullptr;
}

std::string where(const LogLine& l) {
  return l.source + ":" + std::to_string(l.line) + ": " + l.text.substr(0, 200);
}

// reduced_path_on: is the API's float32 path of reduced precision on for this chip? The text
// decides where it sets the switch; the chip's default otherwise.
void reduced_path_facts(const TriageInput& in, const RuleSet& rules, const std::string& chip,
                        Facts& f) {
  for (const ReducedPath& r : rules.reduced_paths) {
    if (std::find(r.chips.begin(), r.chips.end(), chip) == r.chips.end()) continue;
    auto g = rules.groups.find(r.group);
    if (g == rules.groups.end() ||
        std::find(g->second.begin(), g->second.end(), in.api) == g->second.end()) {
      continue;
    }
    f.words["reduced_path"] = r.path;
    const std::vector<LogLine>& text = f.texts["text"];
    if (const LogLine* off = first_match(text, r.disable)) {
      f.numbers["reduced_path_on"] = 0;
      f.notes["reduced_path_on"] = r.path + " switched off: " + where(*off);
    } else if (const LogLine* on = first_match(text, r.enable)) {
      f.numbers["reduced_path_on"] = 1;
      f.notes["reduced_path_on"] = r.path + " switched on: " + where(*on);
    } else {
      f.numbers["reduced_path_on"] = r.on_by_default;
      f.notes["reduced_path_on"] = r.path + " is " + (r.on_by_default ? "on" : "off") +
                                   " by default for " + r.group + " on " + chip + " (" + r.source +
                                   ")";
    }
    return;
  }
  f.numbers["reduced_path_on"] = 0;
  f.notes["reduced_path_on"] = "no reduced-precision path is known for " +
                               (in.api.empty() ? std::string("this API") : in.api) + " on " + chip;
}

// Facts from the checks on the API's inputs (checks.hpp).
void check_facts(const Json& checks, Facts& f) {
  if (!checks.is_object()) return;
  if (checks.contains("index_ties") && checks["index_ties"].contains("differing")) {
    const Json& t = checks["index_ties"];
    f.numbers["index_differing"] = as_number(t["differing"]);
    f.numbers["index_ties"] = as_number(t["ties"]);
    f.numbers["index_not_ties"] = as_number(t["not_ties"]);
    const std::string n = "gathered " + t.value("input", std::string("input")) + " along dim " +
                          t["dim"].dump() + ": " + t["differing"].dump() + " positions differ, " +
                          t["ties"].dump() + " of them ties";
    f.notes["index_ties"] = n;
    f.notes["index_not_ties"] = n;
  }
  if (checks.contains("residual") && checks["residual"].contains("residual_ratio")) {
    const Json& r = checks["residual"];
    f.numbers["residual_ratio"] = as_number(r["residual_ratio"]);
    f.numbers["residual_actual"] = as_number(r["residual_actual"]);
    f.numbers["residual_expected"] = as_number(r["residual_expected"]);
    f.numbers["condition_estimate"] = as_number(r["condition_estimate"]);
    f.notes["residual_ratio"] = r.value("definition", std::string()) + ": device " +
                                fmt(as_number(r["residual_actual"])) + ", golden " +
                                fmt(as_number(r["residual_expected"])) + ", floor " +
                                fmt(as_number(r["floor"])) + "; condition estimate " +
                                fmt(as_number(r["condition_estimate"]));
  }
  if (checks.contains("formula") && checks["formula"].contains("systematic")) {
    const Json& fm = checks["formula"];
    f.numbers["formula_matched"] = fm["matched"].is_string();
    f.numbers["formula_systematic"] = fm.value("systematic", false);
    if (fm["smoothness"].is_number()) f.numbers["formula_smoothness"] = fm["smoothness"];
    if (fm["matched"].is_string()) {
      f.notes["formula_matched"] =
          "the device output follows " + fm["matched"].get<std::string>() + " on the given input";
    }
    f.notes["formula_systematic"] =
        "smoothness of the relative error in input order: " +
        (fm["smoothness"].is_number() ? fmt(fm["smoothness"].get<double>()) : "n/a") +
        " (rounding noise about 1, a formula well below 0.25) over " + fm["samples"].dump() +
        " elements";
  }
}

Facts build_facts(const TriageInput& in, const RuleSet& rules, const std::string& chip) {
  Facts f;
  const Json& c = in.primary;
  bool any_shape = false, any_dtype = false;
  if (in.tensors.is_array()) {
    for (const auto& t : in.tensors) {
      any_shape = any_shape || t.value("shape_mismatch", false);
      any_dtype = any_dtype || (t.value("decided_by", "") == "dtype check");
    }
  }
  f.numbers["shape_mismatch"] = any_shape;
  f.numbers["dtype_mismatch"] = any_dtype;
  if (c.is_object()) {
    const std::string verdict = c.value("verdict", "");
    if (verdict == "pass" || verdict == "fail" || verdict == "warning" || verdict == "error") {
      f.numbers["passed"] = verdict == "pass";
    }
    f.words["verdict"] = verdict;
    f.words["dtype"] = c.value("dtype", "");
    if (const auto t = parse_dtype(c.value("dtype", ""))) {
      f.numbers["dtype_max"] = is_float(*t) ? largest_finite(*t) : HUGE_VAL;
    }
    if (c.contains("metrics")) {
      const Json& m = c["metrics"];
      f.numbers["exact"] = m.value("exact", false);
      f.numbers["mismatched"] = as_number(m["mismatched"]);
      f.numbers["mismatch_ratio"] = as_number(m["mismatch_ratio"]);
      f.numbers["max_abs_error"] = as_number(m["max_abs_error"]);
      f.numbers["mean_abs_error"] = as_number(m["mean_abs_error"]);
      f.numbers["max_rel_error"] = as_number(m["max_rel_error"]);
      f.numbers["mean_rel_error"] = as_number(m["mean_rel_error"]);
      f.numbers["cosine"] = as_number(m["cosine_similarity"]);
      f.numbers["error_balance"] = as_number(m["error_balance"]);
      f.numbers["ulp_mean"] = as_number(m["ulp_mean"]);
      f.numbers["ulp_max"] = as_number(m["ulp_max"]);
      f.numbers["rms_expected"] = as_number(m["rms_expected"]);
      if (m.contains("norm_rel_error") && m["norm_rel_error"].is_number()) {
        f.numbers["norm_rel_error"] = m["norm_rel_error"];
        const double u = as_number(m["unit_roundoff"]);
        if (u > 0) {
          f.numbers["norm_rel_units"] = m["norm_rel_error"].get<double>() / u;
          f.notes["norm_rel_units"] =
              "||a - e|| / ||e|| = " + fmt(m["norm_rel_error"].get<double>()) +
              ", unit roundoff of " + c.value("dtype", "") + " = " + fmt(u);
        }
      }
      f.numbers["max_abs_expected"] = as_number(m["max_abs_expected"]);
      const Json& nan = m["nan"];
      const Json& inf = m["inf"];
      const double nan_e = as_number(nan["expected"]), nan_a = as_number(nan["actual"]),
                   nan_b = as_number(nan["both"]);
      const double inf_e = as_number(inf["expected_pos"]) + as_number(inf["expected_neg"]);
      const double inf_a = as_number(inf["actual_pos"]) + as_number(inf["actual_neg"]);
      const double inf_m = as_number(inf["matched"]);
      f.numbers["nan_actual"] = nan_a;
      f.numbers["nan_expected"] = nan_e;
      f.numbers["inf_actual"] = inf_a;
      f.numbers["inf_expected"] = inf_e;
      f.numbers["nonfinite_mismatch"] =
          as_number(nan["position_mismatches"]) + as_number(inf["position_mismatches"]);
      f.numbers["nonfinite_actual_only"] = (nan_a - nan_b) + (inf_a - inf_m);
      f.numbers["nonfinite_expected_only"] = (nan_e - nan_b) + (inf_e - inf_m);
    }
    f.numbers["low_precision"] = is_half_like(c.value("dtype", ""));
    if (c.contains("expected") && c["expected"].is_object()) {
      const auto e = parse_dtype(c["expected"].value("dtype", ""));
      const auto a = parse_dtype(c.value("dtype", ""));
      f.numbers["golden_wider"] =
          e && a && is_float(*e) && is_float(*a) && mantissa_bits(*e) > mantissa_bits(*a);
    }
    if (c.contains("locality")) {
      const Json& l = c["locality"];
      f.numbers["outliers"] = as_number(l["outliers"]);
      f.numbers["outlier_ratio"] = as_number(l["outlier_ratio"]);
      f.numbers["outliers_zero_actual"] = as_number(l["outliers_zero_actual"]);
      std::string where_text;
      for (const auto& w : l["worst_outliers"]) {
        if (where_text.size() > 160) break;
        where_text += (where_text.empty() ? "" : "; ") + w["index"].dump() + " expected " +
                      w["expected"].dump() + " actual " + w["actual"].dump();
      }
      f.notes["outliers"] = l["outliers"].dump() + " elements beyond " +
                            fmt(as_number(l["threshold"])) + " normalised error (median " +
                            fmt(as_number(l["median_normalised_error"])) + "), in segments " +
                            l["outlier_segments"].dump() + " of 64" +
                            (where_text.empty() ? "" : ": " + where_text);
    } else {
      f.numbers["outliers"] = 0;
      f.numbers["outlier_ratio"] = 0;
    }
    if (c.contains("standards")) {
      for (const char* s : {"torch", "torch_npu", "msprobe", "ops"}) {
        const Json& st = c["standards"][s];
        if (st.contains("passed") && st["passed"].is_boolean()) {
          f.numbers[std::string(s) + "_passed"] = st["passed"].get<bool>();
        }
        f.words[std::string(s) + "_verdict"] = st.value("verdict", "");
      }
    }
  }
  if (in.runs.is_object()) {
    f.numbers["runs_compared"] = as_number(in.runs["compared"]);
    f.numbers["runs_differ"] = in.runs.value("differ", false);
    f.numbers["run_max_abs_diff"] = as_number(in.runs["max_abs_diff"]);
    f.numbers["run_max_rel_diff"] = as_number(in.runs["max_rel_diff"]);
  }
  if (in.memory_ratio >= 0) f.numbers["memory_ratio"] = in.memory_ratio;
  f.words["api"] = in.api;
  f.words["chip"] = in.chip;
  f.texts["log"] = in.log;
  std::vector<LogLine> text;
  std::istringstream d(in.description);
  std::string line;
  int no = 0;
  while (std::getline(d, line)) text.push_back(LogLine{"description", ++no, line});
  text.insert(text.end(), in.log.begin(), in.log.end());
  f.texts["text"] = std::move(text);
  f.texts["description"] =
      std::vector<LogLine>(f.texts["text"].begin(), f.texts["text"].begin() + no);
  reduced_path_facts(in, rules, chip, f);
  check_facts(in.checks, f);
  return f;
}

struct Evaluated {
  bool holds = false;
  Json evidence;
};

Evaluated evaluate(const Condition& c, const Facts& facts, const RuleSet& rules) {
  Evaluated out;
  const Fact f = facts.get(c.fact);
  Json ev{{"condition", c.text}};
  if (f.kind == Fact::kNone) {
    ev["value"] = "unknown";
    out.evidence = ev;
    return out;
  }
  if (c.op == "~") {
    if (f.kind != Fact::kText) {
      ev["value"] = "not a text fact";
    } else {
      const std::regex re(c.value, std::regex::icase);
      for (const LogLine& l : *f.lines) {
        std::smatch m;
        if (std::regex_search(l.text, m, re)) {
          out.holds = true;
          ev["value"] = m.str(0);
          ev["evidence"] = l.source + ":" + std::to_string(l.line) + ": " + l.text.substr(0, 200);
          break;
        }
      }
      if (!out.holds) ev["value"] = "no match in " + std::to_string(f.lines->size()) + " lines";
    }
    out.evidence = ev;
    return out;
  }
  if (c.op == "in") {
    const std::string v = f.kind == Fact::kWord ? f.word : "";
    ev["value"] = v;
    auto g = rules.groups.find(c.value);
    if (g != rules.groups.end()) {
      out.holds = std::find(g->second.begin(), g->second.end(), v) != g->second.end();
    }
    out.evidence = ev;
    return out;
  }
  if (f.kind == Fact::kNumber) {
    double rhs;
    if (c.value == "true") {
      rhs = 1;
    } else if (c.value == "false") {
      rhs = 0;
    } else if (facts.numbers.count(c.value) != 0) {
      rhs = facts.numbers.at(c.value);
      ev["compared_with"] = c.value + " = " + fmt(rhs);
    } else {
      rhs = std::strtod(c.value.c_str(), nullptr);
    }
    const double lhs = f.number;
    ev["value"] = std::isnan(lhs) ? Json("nan") : Json(lhs);
    if (auto n = facts.notes.find(c.fact); n != facts.notes.end()) ev["evidence"] = n->second;
    if (c.op == "==") out.holds = lhs == rhs;
    if (c.op == "!=") out.holds = lhs != rhs;
    if (c.op == "<") out.holds = lhs < rhs;
    if (c.op == "<=") out.holds = lhs <= rhs;
    if (c.op == ">") out.holds = lhs > rhs;
    if (c.op == ">=") out.holds = lhs >= rhs;
  } else if (f.kind == Fact::kWord) {
    ev["value"] = f.word;
    if (c.op == "==") out.holds = f.word == c.value;
    if (c.op == "!=") out.holds = f.word != c.value;
  }
  out.evidence = ev;
  return out;
}

struct Match {
  bool holds = true;
  Json conditions = Json::array();
};

Match match(const std::vector<Condition>& when, const Facts& facts, const RuleSet& rules) {
  Match m;
  for (const Condition& c : when) {
    Evaluated e = evaluate(c, facts, rules);
    m.conditions.push_back(e.evidence);
    if (!e.holds) {
      m.holds = false;
      break;
    }
  }
  return m;
}

std::string camel(const std::string& snake) {
  std::string out;
  bool up = true;
  for (char c : snake) {
    if (c == '_') {
      up = true;
      continue;
    }
    out += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return out;
}

Json name_operator(const TriageInput& in, const AclnnMap& aclnn) {
  static const std::regex kAclnn("aclnn([A-Z][A-Za-z0-9]*)");
  for (const LogLine& l : in.log) {
    std::smatch m;
    if (std::regex_search(l.text, m, kAclnn)) {
      return Json{
          {"operator", m.str(0)},
          {"confidence", "log"},
          {"evidence", l.source + ":" + std::to_string(l.line) + ": " + l.text.substr(0, 200)}};
    }
  }
  if (in.per_op && in.tensors.is_array() && in.tensors.size() > 1) {
    for (const auto& t : in.tensors) {
      if (t.value("verdict", "pass") != "pass" && t.contains("name")) {
        return Json{{"operator", t["name"]},
                    {"confidence", "per-op comparison"},
                    {"evidence", "first failing tensor of " + std::to_string(in.tensors.size()) +
                                     " compared in order: " + t["name"].get<std::string>() + " (" +
                                     t.value("reason", "") + ")"}};
      }
    }
  }
  if (!in.api.empty()) {
    Json hit = aclnn.lookup(in.api);
    if (!hit.is_null()) return hit;
  }
  return nullptr;
}

}  // namespace

RuleSet load_rules(std::string_view yaml_text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(origin + ": not valid YAML (" + e.what() + ")");
  }
  RuleSet rs;
  rs.default_chip = root["default_chip"] ? root["default_chip"].as<std::string>() : "";
  if (root["chips"]) {
    for (const auto& c : root["chips"]) rs.chips.push_back(c.as<std::string>());
  }
  if (root["api_groups"]) {
    for (const auto& kv : root["api_groups"]) {
      auto& g = rs.groups[kv.first.as<std::string>()];
      for (const auto& v : kv.second) g.push_back(v.as<std::string>());
    }
  }
  if (root["reduced_precision"]) {
    for (const auto& n : root["reduced_precision"]) {
      ReducedPath r;
      const std::string where_text = origin + ": reduced_precision entry";
      if (!n["chips"] || !n["group"] || !n["path"] || !n["default"] || !n["source"]) {
        throw std::runtime_error(where_text + " needs chips, group, path, default and source");
      }
      for (const auto& c : n["chips"]) r.chips.push_back(c.as<std::string>());
      r.group = n["group"].as<std::string>();
      r.path = n["path"].as<std::string>();
      r.on_by_default = n["default"].as<bool>();
      r.source = n["source"].as<std::string>();
      r.enable = n["enable"] ? n["enable"].as<std::string>() : "";
      r.disable = n["disable"] ? n["disable"].as<std::string>() : "";
      for (const std::string* re : {&r.enable, &r.disable}) {
        try {
          std::regex probe(*re, std::regex::icase);
        } catch (const std::regex_error& e) {
          throw std::runtime_error(where_text + " (" + r.group + "): regex '" + *re +
                                   "' is invalid: " + e.what());
        }
      }
      if (rs.groups.count(r.group) == 0) {
        throw std::runtime_error(where_text + ": group '" + r.group + "' is not in api_groups");
      }
      rs.reduced_paths.push_back(std::move(r));
    }
  }
  if (!root["symptoms"] || !root["rules"]) {
    throw std::runtime_error(origin + ": needs 'symptoms' and 'rules' lists");
  }
  for (const auto& n : root["symptoms"]) rs.symptoms.push_back(parse_rule(n, origin));
  for (const auto& n : root["rules"]) {
    Rule r = parse_rule(n, origin);
    static const char* kExits[] = {"operator", "framework", "not_defect", "undetermined"};
    if (std::find(std::begin(kExits), std::end(kExits), r.exit) == std::end(kExits)) {
      throw std::runtime_error(origin + ": rule '" + r.id + "' exit '" + r.exit +
                               "' is not operator, framework, not_defect or undetermined");
    }
    rs.rules.push_back(std::move(r));
  }
  return rs;
}

AclnnMap::AclnnMap(std::string_view yaml_text, std::string origin) : origin_(std::move(origin)) {
  std::istringstream in{std::string(yaml_text)};
  std::string line;
  int no = 0;
  std::string current;
  while (std::getline(in, line)) {
    ++no;
    const auto f = line.find("- func: ");
    if (f != std::string::npos) {
      const std::string sig = line.substr(f + 8);
      const auto end = sig.find_first_of(".(");
      current = sig.substr(0, end);
      by_name_[current].push_back(Entry{no, "", false});
      continue;
    }
    if (current.empty()) continue;
    const auto e = line.find("exec: aclnn");
    if (e != std::string::npos) {
      std::string name = line.substr(e + 6);
      name = name.substr(0, name.find_first_of(", "));
      by_name_[current].back().exec = name;
      by_name_[current].back().line = no;
    } else if (line.find("op_api:") != std::string::npos) {
      by_name_[current].back().op_api = true;
    }
  }
}

Json AclnnMap::lookup(const std::string& api) const {
  std::string base =
      api.substr(api.find_last_of('.') == std::string::npos ? 0 : api.find_last_of('.') + 1);
  std::vector<std::string> candidates{base};
  if (!base.empty() && base.back() == '_') candidates.push_back(base.substr(0, base.size() - 1));
  // Public APIs often dispatch to an underscore-prefixed native function (softmax -> _softmax).
  candidates.push_back("_" + candidates.back());
  // A declared exec name under any candidate beats a name inferred from the convention.
  for (const std::string& name : candidates) {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) continue;
    for (const Entry& e : it->second) {
      if (!e.exec.empty()) {
        return Json{{"operator", e.exec},
                    {"confidence", "declared"},
                    {"evidence", origin_ + ":" + std::to_string(e.line) + ": exec: " + e.exec}};
      }
    }
  }
  for (const std::string& name : candidates) {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) continue;
    for (const Entry& e : it->second) {
      if (e.op_api) {
        return Json{{"operator", "aclnn" + camel(name)},
                    {"confidence", "inferred"},
                    {"evidence", origin_ + ":" + std::to_string(e.line) + ": '" + name +
                                     "' has an op_api (aclnn) kernel but declares no exec name; "
                                     "the name follows the aclnn naming convention, unverified"}};
      }
    }
  }
  for (const std::string& name : candidates) {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) continue;
    return Json{{"operator", nullptr},
                {"confidence", "none"},
                {"evidence", origin_ + ":" + std::to_string(it->second.front().line) + ": '" +
                                 name + "' has only an acl_op (graph) kernel"}};
  }
  return nullptr;
}

Json triage(const TriageInput& in, const RuleSet& rules, const AclnnMap& aclnn) {
  const std::string chip = in.chip.empty() ? rules.default_chip : in.chip;
  const Facts facts = build_facts(in, rules, chip);
  Json out;
  out["chip"] = chip;
  Json fired = Json::array();
  std::string symptom;
  Json secondary = Json::array();
  for (const Rule& s : rules.symptoms) {
    Match m = match(s.when, facts, rules);
    if (!m.holds) continue;
    fired.push_back(Json{{"id", s.id},
                         {"pass", 1},
                         {"symptom", s.symptom},
                         {"title", s.title},
                         {"conditions", m.conditions}});
    if (symptom.empty()) {
      symptom = s.symptom;
    } else if (s.symptom != symptom &&
               std::find(secondary.begin(), secondary.end(), s.symptom) == secondary.end()) {
      secondary.push_back(s.symptom);
    }
  }
  out["symptom"] = symptom.empty() ? "unknown" : symptom;
  out["secondary_symptoms"] = secondary;
  const Rule* decided = nullptr;
  std::string conclusion;
  for (const Rule& r : rules.rules) {
    if (r.symptom != out["symptom"]) continue;
    const std::vector<Condition>* when = &r.when;
    std::string text = r.conclusion;
    if (auto v = r.variants.find(chip); v != r.variants.end()) {
      if (!v->second.when.empty()) when = &v->second.when;
      if (!v->second.conclusion.empty()) text = v->second.conclusion;
    }
    Match m = match(*when, facts, rules);
    if (!m.holds) continue;
    Json j{{"id", r.id}, {"pass", 2}, {"exit", r.exit}, {"conditions", m.conditions}};
    if (r.variants.count(chip) != 0) j["variant"] = chip;
    fired.push_back(j);
    if (decided == nullptr) {
      decided = &r;
      conclusion = text;
    }
  }
  out["rules_fired"] = fired;
  if (decided == nullptr) {
    out["exit"] = "undetermined";
    out["cause"] = "no_rule";
    out["decided_by"] = nullptr;
    out["conclusion"] = symptom.empty()
                            ? "no symptom rule holds for what was given (no comparison, and no "
                              "log or description line matches a symptom); give expected/actual "
                              "tensors or the device log"
                            : "symptom '" + symptom +
                                  "' found, but no refinement rule holds; "
                                  "the evidence does not separate operator, framework and expected "
                                  "difference";
    out["next_steps"] =
        Json::array({"generate and run a reproduction ('reproduce' with api and args) to get the "
                     "CPU and device tensors",
                     "add the device log (ASCEND_LAUNCH_BLOCKING=1), more device runs, or "
                     "per-op dumps, then rerun the triage"});
    out["operator"] = nullptr;
    return out;
  }
  out["exit"] = decided->exit;
  out["cause"] = decided->cause;
  out["decided_by"] = decided->id;
  out["conclusion"] = conclusion;
  out["next_steps"] = decided->next_steps;
  out["operator"] = nullptr;
  if (decided->names_operator) {
    Json op = name_operator(in, aclnn);
    if (op.is_null()) {
      out["operator_note"] =
          "no evidence names the operator: no aclnn name in the logs, no "
          "per-op comparison, and the API is not in the op-plugin YAML";
    } else {
      out["operator"] = op;
    }
  }
  return out;
}

}  // namespace skillrt::apic
