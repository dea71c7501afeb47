// verify: checks every pair of files of an operator adaptation that must agree. The rule families
// live in verify_<family>.cpp (yaml, kernels, meta, public_api, derivatives), what they read in
// verify_load.cpp; this file runs them and records the findings.
#include "verify.hpp"

#include "detail/text.hpp"
#include "detail/verify_checker.hpp"

namespace skillrt::opa {

namespace detail {

std::string join_versions(const std::vector<std::string>& v) { return detail::join(v, ", "); }

std::vector<std::string> minus(const std::vector<std::string>& a, const std::set<std::string>& b) {
  std::vector<std::string> out;
  for (const std::string& x : a) {
    if (b.count(x) == 0) out.push_back(x);
  }
  return out;
}

void Checker::run() {
  load_yaml();
  select_ops();
  const bool yaml_only = options_.yaml_only || !options_.yaml_file.empty();
  load_derivatives();
  load_torch_npu();
  if (!yaml_only) load_sources();
  const size_t total = selected_.size();
  size_t done = 0;
  for (const OpEntry* e : selected_) {
    if (options_.cancelled && options_.cancelled()) break;
    check_yaml_entry(*e);
    if (e->parsed.ok()) {
      if (!yaml_only) check_sources(*e);
    }
    if (options_.progress && (++done % 100 == 0 || done == total)) {
      options_.progress(static_cast<double>(done), static_cast<double>(total), "ops checked");
    }
  }
  check_duplicates_and_symint();
  if (!yaml_only && have_baseline_) check_baseline();
  if (derivs_) check_derivatives();
  if (!yaml_only) check_orphan_registrations();
}

void Checker::add(Finding f) {
  ++result_->findings_total;
  Json& br = result_->by_rule[f.rule];
  if (br.is_null()) br = {{"severity", f.severity}, {"count", 0}};
  br["count"] = br["count"].get<size_t>() + 1;
  ++result_->severity_counts[f.severity == "error" ? 0 : f.severity == "warning" ? 1 : 2];
  auto rank = [](const std::string& sev) { return sev == "error" ? 2 : sev == "warning" ? 1 : 0; };
  if (rank(f.severity) < rank(options_.min_severity)) return;
  if (result_->findings.size() < options_.max_findings) result_->findings.push_back(std::move(f));
}

Finding Checker::make(const std::string& severity, const std::string& rule, const std::string& op,
                      std::string message, std::string change, Location where, Location other) {
  Finding f;
  f.severity = severity;
  f.rule = rule;
  f.op = op;
  f.message = std::move(message);
  f.change = std::move(change);
  f.where = std::move(where);
  f.other = std::move(other);
  return f;
}

Location Checker::yaml_loc(const OpEntry& e, const std::string& key) const {
  const auto it = e.key_lines.find(key);
  return Location{yaml_name_, it == e.key_lines.end() ? e.where.line : it->second};
}

std::vector<std::string> Checker::versions(const OpEntry& e, const std::string& key) const {
  const Json* v = e.key(key);
  if (v == nullptr) return {};
  return ops::parse_version_spec(*v, yaml_.all_version).versions;
}

std::vector<std::string> Checker::active_versions(const OpEntry& e) const {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const char* k : {"op_api", "acl_op", "sparse"}) {
    for (const std::string& v : versions(e, k)) {
      if (seen.insert(v).second) out.push_back(v);
    }
  }
  return out;
}

}  // namespace detail

namespace {

Json loc_json(const Location& l) {
  Json j = {{"file", l.file}};
  if (l.line > 0) j["line"] = l.line;
  return j;
}

}  // namespace

VerifyResult verify_tree(const Tree& tree, const VerifyOptions& options) {
  VerifyResult result;
  detail::Checker(tree, options, &result).run();
  return result;
}

Json to_json(const VerifyResult& r) {
  Json findings = Json::array();
  for (const Finding& f : r.findings) {
    Json j = {{"severity", f.severity},
              {"rule", f.rule},
              {"op", f.op},
              {"message", f.message},
              {"expected", f.expected},
              {"found", f.found},
              {"change", f.change},
              {"where", loc_json(f.where)}};
    if (!f.other.file.empty()) j["other"] = loc_json(f.other);
    findings.push_back(std::move(j));
  }
  const size_t* counts = r.severity_counts;
  const Json by_rule = r.by_rule.is_null() ? Json::object() : r.by_rule;
  Json skipped = Json::array();
  for (const auto& [check, reason] : r.checks_skipped) {
    skipped.push_back({{"check", check}, {"reason", reason}});
  }
  return Json{{"clean", counts[0] == 0 && counts[1] == 0},
              {"ops_checked", r.ops_checked.size()},
              {"findings", findings},
              {"findings_total", r.findings_total},
              {"summary",
               {{"errors", counts[0]},
                {"warnings", counts[1]},
                {"infos", counts[2]},
                {"by_rule", by_rule}}},
              {"checks_run", r.checks_run},
              {"checks_skipped", skipped}};
}

}  // namespace skillrt::opa
