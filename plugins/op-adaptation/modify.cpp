// modify: an existing operator's versions changed in every file that follows them (the YAML
// entry and its symint mirror, derivatives, baseline, allowlist), and a kernel for a new op_api
// backend.
#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "cpp_scan.hpp"
#include "detail/file_edits.hpp"
#include "detail/op_plan.hpp"
#include "detail/text.hpp"
#include "generate.hpp"
#include "optoolkit/sources.hpp"

namespace skillrt::opa {

using detail::add_kernel;
using detail::allowlist_add;
using detail::allowlist_remove;
using detail::baseline_versions;
using detail::find_json_list;
using detail::FunctionSchema;
using detail::json_list;
using detail::make_plan;
using detail::OpPlan;
using detail::version_text;

namespace {

using Fields = std::map<std::string, Json>;

// The entry of `op` (one, not version-split, with a schema that parses) and its symint mirrors.
const ops::OpEntry& find_entry(const ops::OpSource& yaml, const std::string& op,
                               std::vector<const ops::OpEntry*>* mirrors) {
  std::vector<const ops::OpEntry*> main;
  for (const ops::OpEntry& e : yaml.entries) {
    if (e.op_name() != op) continue;
    (e.section == "symint" ? *mirrors : main).push_back(&e);
  }
  if (main.empty()) {
    throw std::invalid_argument("op: '" + op + "' is not in " + kFunctionsYaml +
                                "; nearest: " + detail::join(yaml.nearest(op, 3), ", "));
  }
  if (main.size() > 1) {
    throw std::invalid_argument(
        "op: '" + op + "' has " + std::to_string(main.size()) + " version-split entries (lines " +
        std::to_string(main[0]->where.line) + ", " + std::to_string(main[1]->where.line) +
        "); modify handles one entry, edit the YAML by hand");
  }
  const ops::OpEntry& e = *main.front();
  if (!e.parsed.ok()) {
    throw std::invalid_argument("op: the schema of '" + op + "' does not parse; fix line " +
                                std::to_string(e.where.line) + " first");
  }
  return e;
}

// The version fields (op_api, acl_op, exposed) after the change; throws for a spec that does not
// parse.
Fields changed_fields(const ops::OpEntry& e, const Json& changes, const ops::OpSource& yaml) {
  std::map<std::string, Json> fields;
  for (const char* k : {"op_api", "acl_op", "exposed"}) {
    if (e.key(k) != nullptr) fields[k] = *e.key(k);
  }
  for (auto it = changes.begin(); it != changes.end(); ++it) {
    if (it.key() == "aclnn") continue;
    if (it.value().is_null()) {
      fields.erase(it.key());
      continue;
    }
    const ops::VersionSpec v = ops::parse_version_spec(it.value(), yaml.all_version);
    if (!v.problem.empty()) throw std::invalid_argument("changes." + it.key() + ": " + v.problem);
    fields[it.key()] = it.value();
  }
  return fields;
}

std::vector<std::string> expand(const Fields& fields, const char* k, const ops::OpSource& yaml) {
  const auto it = fields.find(k);
  return it == fields.end() ? std::vector<std::string>()
                            : ops::parse_version_spec(it->second, yaml.all_version).versions;
}

// The versions with a kernel after the change; throws when the change leaves the op without a
// backend, drops a gen_opapi kernel, or exposes a version without a kernel.
std::set<std::string> checked_backends(const ops::OpEntry& e, const Fields& fields,
                                       const ops::OpSource& yaml) {
  if (fields.count("op_api") == 0 && fields.count("acl_op") == 0) {
    throw std::invalid_argument("changes: the op would have neither op_api nor acl_op; keep one");
  }
  if (fields.count("op_api") == 0 && e.key("gen_opapi") != nullptr) {
    throw std::invalid_argument(
        "changes.op_api: the op's kernel comes from gen_opapi; removing "
        "op_api needs the gen_opapi block removed by hand");
  }
  std::set<std::string> backends;
  for (const char* k : {"op_api", "acl_op"}) {
    for (const std::string& v : expand(fields, k, yaml)) backends.insert(v);
  }
  for (const std::string& v : expand(fields, "exposed", yaml)) {
    if (backends.count(v) == 0) {
      throw std::invalid_argument("changes: exposed includes " + v +
                                  ", where the op would have no kernel; pass changes.exposed too");
    }
  }
  return backends;
}

struct LineEdit {
  size_t line;  // 1-based; insert after when insert == true
  bool insert;
  bool erase;
  std::string text;
};

// The edits of one entry's version lines: rewritten, erased, or added after its last key line.
void plan_entry(const ops::OpEntry& entry, bool mirror, const std::vector<std::string>& lines,
                const Json& changes, const Fields& fields, std::vector<LineEdit>* edits) {
  const std::string& func_line = lines[entry.where.line - 1];
  const std::string key_indent(func_line.find("func:"), ' ');
  size_t last_line = entry.where.line;
  for (const char* k : {"op_api", "acl_op", "exposed"}) {
    const auto kl = entry.key_lines.find(k);
    if (kl != entry.key_lines.end()) last_line = std::max(last_line, kl->second);
  }
  for (const char* k : {"op_api", "acl_op", "exposed"}) {
    if (mirror && std::string(k) == "exposed") continue;
    if (!changes.contains(k)) continue;
    const auto kl = entry.key_lines.find(k);
    const auto nf = fields.find(k);
    if (kl != entry.key_lines.end()) {
      if (nf == fields.end()) {
        edits->push_back({kl->second, false, true, ""});
      } else {
        edits->push_back(
            {kl->second, false, false, key_indent + k + ": " + version_text(nf->second)});
      }
    } else if (nf != fields.end()) {
      edits->push_back({last_line, true, false, key_indent + k + ": " + version_text(nf->second)});
    }
  }
}

// YAML: rewrites the version lines of the entry and of its symint mirror.
void rewrite_yaml(const Tree& tree, ChangeSet& set, const std::string& op, const ops::OpEntry& e,
                  const std::vector<const ops::OpEntry*>& mirrors, const Json& changes,
                  const Fields& fields) {
  Change& y = set.edit(tree, kFunctionsYaml);
  std::vector<std::string> lines = detail::split_lines(y.after);
  std::vector<LineEdit> edits;
  plan_entry(e, false, lines, changes, fields, &edits);
  for (const ops::OpEntry* m : mirrors) plan_entry(*m, true, lines, changes, fields, &edits);
  std::stable_sort(edits.begin(), edits.end(),
                   [](const LineEdit& a, const LineEdit& b) { return a.line > b.line; });
  for (const LineEdit& le : edits) {
    if (le.erase) {
      lines.erase(lines.begin() + static_cast<long>(le.line - 1));
    } else if (le.insert) {
      lines.insert(lines.begin() + static_cast<long>(le.line), le.text);
    } else {
      lines[le.line - 1] = le.text;
    }
  }
  y.after = detail::join(lines, "\n") + (detail::ends_with(y.before, "\n") ? "\n" : "");
  for (auto it = changes.begin(); it != changes.end(); ++it) {
    if (it.key() == "aclnn") continue;
    y.what.push_back(op + " " + it.key() + ": " +
                     (it.value().is_null() ? std::string("removed") : version_text(it.value())));
  }
}

// The forward's versions as a spec for dependent files.
Json forward_spec(const std::set<std::string>& backends, const ops::OpSource& yaml) {
  Json fwd_spec;
  std::vector<std::string> ordered;
  for (const std::string& v : yaml.all_version) {
    if (backends.count(v) != 0) ordered.push_back(v);
  }
  const auto first = std::find(yaml.all_version.begin(), yaml.all_version.end(), ordered.front());
  const bool contiguous =
      std::equal(ordered.begin(), ordered.end(), first,
                 first + static_cast<long>(std::min<size_t>(
                             ordered.size(), static_cast<size_t>(yaml.all_version.end() - first))));
  if (ordered.size() == yaml.all_version.size()) {
    fwd_spec = "all_version";
  } else if (contiguous && ordered.back() == yaml.all_version.back()) {
    fwd_spec = Json::array({ordered.front(), "newest"});
  } else if (contiguous) {
    fwd_spec = Json::array({ordered.front(), ordered.back()});
  } else {
    fwd_spec = detail::join(ordered, ", ");
  }
  return fwd_spec;
}

// derivatives.yaml: the backward's version follows the forward's.
void update_derivatives(const Tree& tree, ChangeSet& set, const std::string& op,
                        const ops::OpEntry& e, const std::set<std::string>& backends,
                        const Json& fwd_spec) {
  if (const auto dtext = tree.read(kDerivativesYaml)) {
    const ops::OpSource d =
        ops::load_source_text(*dtext, kDerivativesYaml, ops::SourceFormat::kOpPluginDerivatives);
    for (const ops::OpEntry& de : d.entries) {
      if (de.schema_text != e.schema_text || de.key_lines.count("version") == 0) continue;
      const auto old = ops::parse_version_spec(*de.key("version"), d.all_version).versions;
      if (std::set<std::string>(old.begin(), old.end()) == backends) continue;
      Change& c = set.edit(tree, kDerivativesYaml);
      std::vector<std::string> dl = detail::split_lines(c.after);
      std::string& line = dl[de.key_lines.at("version") - 1];
      line = line.substr(0, line.find("version:")) + "version: " + version_text(fwd_spec);
      c.after = detail::join(dl, "\n") + (detail::ends_with(c.before, "\n") ? "\n" : "");
      c.what.push_back("backward of " + op + " version: " + version_text(fwd_spec));
    }
  }
}

// Baseline: the key's version list follows the forward's.
void update_baseline(const Tree& tree, ChangeSet& set, const std::string& op, const ops::OpEntry& e,
                     const Json& fwd_spec, const ops::OpSource& yaml) {
  if (!tree.exists(kBaselineJson)) return;
  Change& c = set.edit(tree, kBaselineJson);
  const size_t key = c.after.find(Json("func: " + e.schema_text).dump());
  size_t open = 0;
  size_t close = 0;
  if (key != std::string::npos && find_json_list(c.after, "version", key, &open, &close)) {
    const std::string now = json_list(baseline_versions(fwd_spec, yaml.all_version));
    const std::string was = c.after.substr(open, close - open + 1);
    if (Json::parse(was, nullptr, false) != Json::parse(now)) {
      c.after.replace(open, close - open + 1, now);
      c.what.push_back("baseline version of " + op + ": " + now);
    }
  } else if (key == std::string::npos) {
    set.notes.push_back("the baseline has no key for " + op + "; verify reports it");
  }
}

// Allowlist: exposed versions (a custom op whose exposed versions change).
void update_allowlist(const Tree& tree, ChangeSet& set, const FunctionSchema& s,
                      const Fields& fields, const ops::OpSource& yaml) {
  Change& c = set.edit(tree, kAllowlistJson);
  const std::string name = s.name.full_base();
  const std::vector<std::string> new_v = expand(fields, "exposed", yaml);
  const std::set<std::string> new_set(new_v.begin(), new_v.end());
  const bool new_all = new_v.size() == yaml.all_version.size();
  c.after = allowlist_remove(c.after, "all_version", name);
  for (const std::string& v : yaml.all_version) {
    if (new_set.count(v) == 0 || new_all) c.after = allowlist_remove(c.after, v, name);
  }
  if (new_all) {
    c.after = allowlist_add(c.after, "all_version", name);
  } else {
    for (const std::string& v : new_v) c.after = allowlist_add(c.after, v, name);
  }
  c.what.push_back("allowlist: torch_npu." + name + " for " +
                   (new_v.empty() ? std::string("no version") : detail::join(new_v, ", ")));
}

}  // namespace

ChangeSet modify_op(const Tree& tree, const std::string& op, const Json& changes) {
  ChangeSet set;
  const auto yaml_text = tree.read(kFunctionsYaml);
  if (!yaml_text) {
    throw std::invalid_argument("op_plugin: no " + std::string(kFunctionsYaml) + " under '" +
                                tree.root().string() + "'");
  }
  const ops::OpSource yaml =
      ops::load_source_text(*yaml_text, kFunctionsYaml, ops::SourceFormat::kOpPluginFunctions);
  std::vector<const ops::OpEntry*> mirrors;
  const ops::OpEntry& e = find_entry(yaml, op, &mirrors);
  const FunctionSchema& s = *e.parsed.schema;
  Fields fields = changed_fields(e, changes, yaml);
  const std::set<std::string> backends = checked_backends(e, fields, yaml);
  rewrite_yaml(tree, set, op, e, mirrors, changes, fields);
  set.ops.push_back(op);
  const Json fwd_spec = forward_spec(backends, yaml);
  update_derivatives(tree, set, op, e, backends, fwd_spec);
  update_baseline(tree, set, op, e, fwd_spec, yaml);
  if (changes.contains("exposed") && tree.exists(kAllowlistJson) && e.section == "custom") {
    update_allowlist(tree, set, s, fields, yaml);
  }
  // A new op_api backend needs a kernel unless gen_opapi provides it.
  if (changes.contains("op_api") && !changes["op_api"].is_null() && e.key("op_api") == nullptr &&
      e.key("gen_opapi") == nullptr) {
    if (changes.contains("aclnn")) {
      OpPlan p = make_plan(Json(e.schema_text), changes["aclnn"].get<std::string>(),
                           fields["op_api"], nullptr, false, e.section, Json::array(), "op");
      add_kernel(tree, &set, p);
    } else {
      set.not_produced.emplace_back("op_api kernel of " + op,
                                    "the op gains op_api but has no aclnn kernel; pass "
                                    "changes.aclnn to generate op_api::" +
                                        expected_cpp_name(s) + ", or write it by hand");
    }
  }
  if (changes.contains("acl_op") && changes["acl_op"].is_null() && e.key("acl_op") != nullptr) {
    set.notes.push_back("acl_op removed: the acl_op::" + expected_cpp_name(s) +
                        " kernel under op_plugin/ops/aclops is no longer registered; delete it "
                        "when nothing else calls it (e.g. a DO_COMPATIBILITY fallback)");
  }
  // Drop changes that ended up empty.
  set.changes.erase(
      std::remove_if(set.changes.begin(), set.changes.end(),
                     [](const Change& c) { return c.after == c.before && !c.is_new; }),
      set.changes.end());
  return set;
}

}  // namespace skillrt::opa
