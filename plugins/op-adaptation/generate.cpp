// generate: a new operator written into every op-plugin file it needs (YAML, kernel, Meta,
// baseline, derivatives, allowlist, and from their skills the test and the API page); applying a
// change set. modify.cpp changes an existing operator's versions.
#include "generate.hpp"

#include <filesystem>
#include <set>
#include <stdexcept>
#include <system_error>

#include "cpp_scan.hpp"
#include "detail/file_edits.hpp"
#include "detail/op_plan.hpp"
#include "detail/text.hpp"
#include "optoolkit/sources.hpp"
#include "plugin_io/atomic_file.hpp"

namespace skillrt::opa {

namespace fs = std::filesystem;
using detail::add_baseline;
using detail::add_kernel;
using detail::add_meta;
using detail::allowlist_add;
using detail::Argument;
using detail::find_arg;
using detail::insert_in_section;
using detail::line_indent;
using detail::make_plan;
using detail::OpPlan;
using detail::relative_inside;
using detail::version_text;
using detail::yaml_entry;

Change& ChangeSet::edit(const Tree& tree, const std::string& path) {
  for (Change& c : changes) {
    if (c.path == path) return c;
  }
  Change c;
  c.path = path;
  const auto text = tree.read(path);
  c.is_new = !text;
  c.before = text.value_or("");
  c.after = c.before;
  changes.push_back(std::move(c));
  return changes.back();
}

namespace {

// spec.exposed as a version spec (null when the op is private); throws for versions outside
// spec.versions.
Json exposed_versions(const Json& spec, const Json& versions, const ops::VersionSpec& vs,
                      const ops::OpSource& yaml) {
  Json exposed = nullptr;
  if (spec.contains("exposed")) {
    if (spec["exposed"].is_boolean()) {
      if (spec["exposed"].get<bool>()) exposed = versions;
    } else {
      exposed = spec["exposed"];
      const ops::VersionSpec es = ops::parse_version_spec(exposed, yaml.all_version);
      if (!es.problem.empty()) throw std::invalid_argument("spec.exposed: " + es.problem);
      const std::set<std::string> have(vs.versions.begin(), vs.versions.end());
      for (const std::string& v : es.versions) {
        if (have.count(v) == 0) {
          throw std::invalid_argument("spec.exposed: " + v +
                                      " is outside spec.versions; expose only versions that "
                                      "have a kernel");
        }
      }
    }
  }
  return exposed;
}

// The inputs the backward differentiates: backward.inputs, or every Tensor argument read.
std::vector<std::string> backward_inputs(const Json& b, const OpPlan& fwd) {
  std::vector<std::string> inputs;
  if (b.contains("inputs")) {
    for (const Json& n : b["inputs"]) inputs.push_back(n.get<std::string>());
  } else {
    for (const Argument& a : fwd.schema.arguments) {
      if (a.type.is_plain("Tensor") && !a.out && !a.is_write()) inputs.push_back(a.name);
    }
  }
  for (const std::string& n : inputs) {
    if (find_arg(fwd.schema, n) == nullptr) {
      throw std::invalid_argument("spec.backward.inputs: '" + n + "' is not an argument of " +
                                  fwd.schema.name.qualified());
    }
  }
  if (inputs.empty()) {
    throw std::invalid_argument(
        "spec.backward: the op has no Tensor argument to differentiate; "
        "give backward.inputs");
  }
  return inputs;
}

// backward.schema, or <op>_backward(grad(s), the forward's arguments) -> a Tensor per input.
std::string backward_schema(const Json& b, const OpPlan& fwd,
                            const std::vector<std::string>& inputs) {
  const size_t nret = fwd.schema.returns.size();
  std::string bschema = b.value("schema", "");
  const std::string bname = fwd.schema.name.base + "_backward";
  if (bschema.empty()) {
    std::vector<std::string> params;
    for (size_t i = 0; i < nret; ++i) {
      params.push_back(nret == 1 ? "Tensor grad" : "Tensor grad" + std::to_string(i));
    }
    for (const Argument& a : fwd.schema.arguments) {
      params.push_back(ops::print_type(a.type) + " " + a.name);
    }
    std::vector<std::string> rets(inputs.size(), "Tensor");
    bschema = bname + "(" + detail::join(params, ", ") + ") -> " +
              (rets.size() == 1 ? "Tensor" : "(" + detail::join(rets, ", ") + ")");
  }
  return bschema;
}

// The derivatives.yaml entry of the forward: its formula (backward.formula, or a call of the
// backward op with the grads and the forward's arguments), output differentiability, version.
std::string derivatives_entry(const Json& b, const OpPlan& fwd, const OpPlan& bwd,
                              const std::vector<std::string>& inputs, const Json& versions) {
  const size_t nret = fwd.schema.returns.size();
  std::vector<std::string> grads;
  if (nret == 1) {
    grads.push_back("grad");
  } else {
    for (size_t i = 0; i < nret; ++i) grads.push_back("grads[" + std::to_string(i) + "]");
  }
  std::string formula = b.value("formula", "");
  if (formula.empty()) {
    std::vector<std::string> args = grads;
    for (size_t i = nret; i < bwd.schema.arguments.size(); ++i) {
      args.push_back(bwd.schema.arguments[i].name);
    }
    formula = bwd.schema.name.base + "(" + detail::join(args, ", ") + ")";
  }
  std::string deriv_entry = "- name: " + fwd.text + "\n";
  if (b.contains("output_differentiability")) {
    const Json& od = b["output_differentiability"];
    if (od.size() != nret) {
      throw std::invalid_argument("spec.backward.output_differentiability has " +
                                  std::to_string(od.size()) + " entries; the op returns " +
                                  std::to_string(nret));
    }
    std::vector<std::string> flags;
    for (const Json& f : od) flags.push_back(f.get<bool>() ? "True" : "False");
    deriv_entry += "  output_differentiability: [" + detail::join(flags, ", ") + "]\n";
  }
  deriv_entry += "  " + detail::join(inputs, ", ") + ": " + formula + "\n";
  deriv_entry += "  version: " + version_text(versions) + "\n";
  return deriv_entry;
}

// The backward op (added to `plans` unless it exists) and the derivatives entry.
std::string plan_backward(const Json& b, const OpPlan& fwd, const Json& versions,
                          const std::string& section, const ops::OpSource& yaml,
                          std::vector<OpPlan>* plans, ChangeSet* set) {
  const std::vector<std::string> inputs = backward_inputs(b, fwd);
  const std::string bschema = backward_schema(b, fwd, inputs);
  const std::string baclnn = b.value("aclnn", fwd.aclnn + "Grad");
  // Each gradient has the shape and dtype of the input it belongs to.
  Json grad_outputs = Json::array();
  for (const std::string& n : inputs) grad_outputs.push_back({{"size", n}, {"dtype", n}});
  OpPlan bwd =
      make_plan(Json(bschema), baclnn, versions, nullptr, false, section,
                b.contains("schema") ? Json::array() : grad_outputs, "spec.backward.schema");
  if (!yaml.find(bwd.schema.name.qualified()).empty()) {
    set->notes.push_back("backward op " + bwd.schema.name.qualified() +
                         " already exists; only the derivatives entry is added");
  } else {
    plans->push_back(bwd);
  }
  return derivatives_entry(b, fwd, bwd, inputs, versions);
}

void write_yaml_entries(const Tree& tree, ChangeSet& set, const std::vector<OpPlan>& plans,
                        const std::string& section) {
  Change& c = set.edit(tree, kFunctionsYaml);
  std::string entries;
  for (size_t i = 0; i < plans.size(); ++i) {
    entries += (i > 0 ? "\n" : "") + yaml_entry(plans[i], false);
  }
  std::string indent;
  c.after = insert_in_section(c.after, section, entries, &indent);
  for (const OpPlan& p : plans) {
    c.what.push_back(section + ": " + p.schema.name.qualified());
    if (has_symint(p.schema)) {
      c.after = insert_in_section(c.after, "symint", yaml_entry(p, true), &indent);
      c.what.push_back("symint: " + p.schema.name.qualified());
    }
  }
}

void write_derivatives(const Tree& tree, ChangeSet& set, const std::string& deriv_entry,
                       const ops::OpSource& yaml, const OpPlan& fwd) {
  Change& c = set.edit(tree, kDerivativesYaml);
  if (c.after.empty()) {
    c.after = "all_version: [" + detail::join(yaml.all_version, ", ") + "]\nbackward:\n";
  }
  // Entries of derivatives.yaml sit at the indentation of the existing ones.
  const size_t first = c.after.find("- name:");
  const std::string ind = first == std::string::npos ? "" : line_indent(c.after, first);
  if (!c.after.empty() && c.after.back() != '\n') c.after += '\n';
  c.after += "\n";
  for (const std::string& l : detail::split_lines(deriv_entry)) c.after += ind + l + "\n";
  c.what.push_back("backward formula of " + fwd.schema.name.qualified());
}

void write_allowlist(const Tree& tree, ChangeSet& set, const Json& exposed,
                     const ops::OpSource& yaml, const OpPlan& fwd) {
  if (!tree.exists(kAllowlistJson)) {
    set.not_produced.emplace_back("allowlist entry",
                                  std::string(kAllowlistJson) + " does not exist in this checkout");
  } else {
    Change& c = set.edit(tree, kAllowlistJson);
    const std::string name = fwd.schema.name.full_base();
    if (exposed.is_string() && exposed.get<std::string>() == "all_version") {
      c.after = allowlist_add(c.after, "all_version", name);
    } else {
      for (const std::string& v : ops::parse_version_spec(exposed, yaml.all_version).versions) {
        c.after = allowlist_add(c.after, v, name);
      }
    }
    c.what.push_back("allowlist: torch_npu." + name + " for " + version_text(exposed));
  }
}

// The unit test from op-test; a failed call leaves the part out.
void add_test(const Tree& tree, ChangeSet& set, const CallSkill& call_skill, const OpPlan& fwd,
              const std::string& section) {
  const std::string base = fwd.schema.name.full_base();
  try {
    const Json r =
        call_skill("op-test", {{"mode", "generate"}, {"schema", fwd.text}, {"device", "npu"}});
    const Json& tf = r.at("test_file");
    const std::string content = tf.at("content").get<std::string>();
    std::string path = relative_inside(tf.value("path", ""));
    const std::string house =
        std::string(section == "custom" ? "test/test_custom_ops/" : "test/test_base_ops/") +
        "test_" + base + ".py";
    if (path.empty() || !detail::starts_with(path, "test/")) {
      set.notes.push_back("op-test suggested '" + tf.value("path", "") + "'; written to " + house +
                          " (inside the checkout's test/ tree)");
      path = house;
    }
    Change& c = set.edit(tree, path);
    c.after = content;
    c.what.push_back("unit test from op-test");
  } catch (const std::exception& e) {
    set.not_produced.emplace_back("unit test (test/test_custom_ops/test_" + base + ".py)",
                                  std::string("skill op-test failed: ") + e.what() +
                                      "; install/enable the op-test plugin and rerun generate, or "
                                      "write the test by hand");
  }
}

// The API page from op-apidoc; a failed call leaves the part out.
void add_doc(const Tree& tree, ChangeSet& set, const CallSkill& call_skill, const OpPlan& fwd) {
  const std::string base = fwd.schema.name.full_base();
  const std::string doc = std::string(kDocDir) + "/torch_npu-" + base + ".md";
  try {
    const Json r =
        call_skill("op-apidoc", {{"mode", "generate"}, {"schema", fwd.text}, {"language", "zh"}});
    const Json& d = r.at("doc");
    Change& c = set.edit(tree, doc);
    c.after = d.at("content").get<std::string>();
    c.what.push_back("API page from op-apidoc");
    if (d.value("path", doc) != doc &&
        !detail::ends_with(d.value("path", ""), "/torch_npu-" + base + ".md")) {
      set.notes.push_back("op-apidoc suggested '" + d.value("path", "") + "'; written to " + doc);
    }
  } catch (const std::exception& e) {
    set.not_produced.emplace_back("API doc (" + doc + ")",
                                  std::string("skill op-apidoc failed: ") + e.what() +
                                      "; install/enable the op-apidoc plugin and rerun generate, "
                                      "or write the page by hand");
  }
}

// Chips are not written anywhere; the note says where they go by hand.
void note_chips(const Json& spec, ChangeSet& set) {
  if (!spec.contains("chips") || spec["chips"].empty()) return;
  std::vector<std::string> chips;
  for (const Json& c : spec["chips"]) chips.push_back(c.get<std::string>());
  set.notes.push_back(
      "chip generations " + detail::join(chips, ", ") +
      " are not written into any file: op-plugin gates chips in tests (SupportedDevices) and "
      "the API page (产品支持情况), whose generators (op-test, op-apidoc) take no chip field in "
      "their agreed contract; add SupportedDevices([" +
      detail::join(chips, ", ") + "]) to the generated test by hand");
}

}  // namespace

ChangeSet generate_op(const Tree& tree, const Json& spec, const CallSkill& call_skill) {
  ChangeSet set;
  const auto yaml_text = tree.read(kFunctionsYaml);
  if (!yaml_text) {
    throw std::invalid_argument("op_plugin: no " + std::string(kFunctionsYaml) + " under '" +
                                tree.root().string() + "'; pass the op-plugin checkout root");
  }
  const ops::OpSource yaml =
      ops::load_source_text(*yaml_text, kFunctionsYaml, ops::SourceFormat::kOpPluginFunctions);
  const Json versions = spec.contains("versions") ? spec["versions"] : Json("all_version");
  const ops::VersionSpec vs = ops::parse_version_spec(versions, yaml.all_version);
  if (!vs.problem.empty()) {
    throw std::invalid_argument("spec.versions: " + vs.problem + "; all_version is [" +
                                detail::join(yaml.all_version, ", ") + "]");
  }
  const Json exposed = exposed_versions(spec, versions, vs, yaml);
  const std::string schema_text = spec["schema"].get<std::string>();
  const bool npu_name =
      detail::starts_with(schema_text, "npu_") || detail::starts_with(schema_text, "_npu_");
  const std::string section = spec.value("section", npu_name ? "custom" : "official");
  const bool structured = spec.value("structured", false);
  OpPlan fwd = make_plan(spec["schema"], spec["aclnn"].get<std::string>(), versions, exposed,
                         structured, section, spec.value("outputs", Json::array()), "spec.schema");
  if (!yaml.find(fwd.schema.name.qualified()).empty()) {
    throw std::invalid_argument("spec.schema: " + fwd.schema.name.qualified() +
                                " already exists in " + kFunctionsYaml +
                                "; use mode modify to change it, or verify to check it");
  }
  std::vector<OpPlan> plans = {fwd};
  // Backward op and derivatives entry.
  std::string deriv_entry;
  if (spec.contains("backward")) {
    deriv_entry = plan_backward(spec["backward"], fwd, versions, section, yaml, &plans, &set);
  }
  write_yaml_entries(tree, set, plans, section);
  for (const OpPlan& p : plans) {
    set.ops.push_back(p.schema.name.qualified());
    if (!p.structured) add_kernel(tree, &set, p);
    if (p.section == "custom") add_meta(tree, &set, p);
    add_baseline(tree, &set, p, yaml.all_version);
  }
  if (!deriv_entry.empty()) write_derivatives(tree, set, deriv_entry, yaml, fwd);
  if (!exposed.is_null()) write_allowlist(tree, set, exposed, yaml, fwd);
  // Tests and the API doc come from their skills; a failed call leaves the part out.
  add_test(tree, set, call_skill, fwd, section);
  if (!exposed.is_null()) add_doc(tree, set, call_skill, fwd);
  note_chips(spec, set);
  return set;
}

void apply_changes(const std::string& root, const ChangeSet& set) {
  // Every target is checked before the first write, so a bad path changes nothing.
  std::vector<fs::path> targets;
  for (const Change& c : set.changes) {
    auto target = plugin_io::path_under(root, c.path);
    if (!target) {
      throw std::invalid_argument("refusing to write '" + c.path + "': it resolves outside " +
                                  root);
    }
    targets.push_back(std::move(*target));
  }
  for (size_t i = 0; i < set.changes.size(); ++i) {
    std::error_code ec;
    fs::create_directories(targets[i].parent_path(), ec);
    if (ec) {
      throw std::runtime_error("cannot create " + targets[i].parent_path().string() + ": " +
                               ec.message());
    }
    plugin_io::write_file_atomic(targets[i], set.changes[i].after);
  }
}

}  // namespace skillrt::opa
