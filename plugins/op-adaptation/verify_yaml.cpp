// verify, the YAML rules: each entry of op_plugin_functions.yaml on its own (keys, version
// specs, backends, section, gen_opapi) and the entries against each other (duplicates, symint).
#include <algorithm>
#include <cctype>

#include "detail/text.hpp"
#include "detail/verify_checker.hpp"

namespace skillrt::opa::detail {

namespace {

const std::set<std::string> kVersionKeys = {"op_api", "acl_op", "exposed", "internal_format_opapi",
                                            "dvm",    "sparse"};
const std::set<std::string> kKnownKeys = {"func",
                                          "op_api",
                                          "acl_op",
                                          "gen_opapi",
                                          "exposed",
                                          "internal_format_opapi",
                                          "dvm",
                                          "device_check",
                                          "tags",
                                          "sparse",
                                          "dispatch",
                                          "structured",
                                          "structured_delegate",
                                          "use_const_ref_for_mutable_tensors"};

std::set<std::string> to_set(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

// What gen_opapi's exec may pass: schema arguments, return names, output specs and new_params
// locals. Also the output spec keys and the schema's out arguments.
void gen_opapi_names(const Json& g, const FunctionSchema& s, std::set<std::string>* known,
                     std::set<std::string>* spec_keys, std::vector<std::string>* out_names) {
  for (const ops::Argument& a : s.arguments) {
    known->insert(a.name);
    if (a.out) out_names->push_back(a.name);
  }
  for (auto it = g.begin(); it != g.end(); ++it) {
    const std::string& k = it.key();
    if (k == "exec" || k == "new_params" || k == "cpu_scalar_h2d" || k == "cpu_scalar_op" ||
        k == "integral_identity_tensor") {
      continue;
    }
    spec_keys->insert(k);
    known->insert(k);
  }
  if (g.contains("new_params") && g["new_params"].is_object()) {
    for (auto it = g["new_params"].begin(); it != g["new_params"].end(); ++it) {
      known->insert(it.key());
    }
  }
  for (const ops::Return& r : s.returns) {
    if (r.name) known->insert(*r.name);
  }
}

}  // namespace

void Checker::check_yaml_entry(const OpEntry& e) {
  const std::string op = e.op_name();
  if (!e.parsed.ok()) {
    Finding f =
        make("error", "yaml.schema_parse", op,
             "the schema does not parse: " + e.parsed.error.to_string(), yaml_name_, yaml_loc(e));
    f.expected = "a function schema torchnpugen accepts";
    f.found = e.schema_text;
    add(std::move(f));
    return;
  }
  const FunctionSchema& s = *e.parsed.schema;
  check_entry_keys(e);
  check_backends(e);
  check_version_coverage(e);
  check_section(e, s);
  if (e.key("gen_opapi") != nullptr) check_gen_opapi(e, s);
}

// Keys codegen does not read, and version specs it cannot expand.
void Checker::check_entry_keys(const OpEntry& e) {
  const std::string op = e.op_name();
  for (auto it = e.keys.begin(); it != e.keys.end(); ++it) {
    const std::string& key = it.key();
    if (kKnownKeys.count(key) == 0) {
      Finding f = make("warning", "yaml.unknown_key", op,
                       "key '" + key + "' is not one op-plugin codegen reads", yaml_name_,
                       yaml_loc(e, key));
      f.expected = "one of op_api, acl_op, gen_opapi, exposed, internal_format_opapi, ...";
      f.found = key;
      add(std::move(f));
    }
    if (kVersionKeys.count(key) != 0) {
      const ops::VersionSpec spec = ops::parse_version_spec(it.value(), yaml_.all_version);
      bool bad = !spec.problem.empty();
      std::string why = spec.problem;
      if (!bad && (spec.form == ops::VersionSpec::Form::kSingle ||
                   spec.form == ops::VersionSpec::Form::kCommaList)) {
        // Codegen does not check these forms against all_version; a typo silently drops the op.
        for (const std::string& v : spec.versions) {
          if (std::find(yaml_.all_version.begin(), yaml_.all_version.end(), v) ==
              yaml_.all_version.end()) {
            bad = true;
            why = "'" + v + "' is not in all_version";
          }
        }
      }
      if (bad) {
        Finding f = make("error", "yaml.version_invalid", op,
                         "'" + key + "' cannot be expanded: " + why, yaml_name_, yaml_loc(e, key));
        f.expected =
            "all_version, [vX.Y, vX.Y|newest], vX.Y or 'vX.Y, vX.Y' with members of "
            "all_version";
        f.found = spec.written;
        add(std::move(f));
      }
    }
  }
}

void Checker::check_backends(const OpEntry& e) {
  const std::string op = e.op_name();
  if (e.key("op_api") == nullptr && e.key("acl_op") == nullptr && e.key("sparse") == nullptr) {
    Finding f = make("error", "yaml.no_backend", op,
                     "the entry declares no backend, so codegen drops it for every version",
                     yaml_name_, yaml_loc(e));
    f.expected = "op_api and/or acl_op";
    f.found = "neither";
    add(std::move(f));
  }
  if (e.key("gen_opapi") != nullptr && e.key("op_api") == nullptr) {
    Finding f = make("error", "yaml.gen_opapi_without_op_api", op,
                     "gen_opapi generates an op_api kernel, but the entry has no op_api versions",
                     yaml_name_, yaml_loc(e, "gen_opapi"));
    f.expected = "op_api: <versions>";
    f.found = "no op_api";
    add(std::move(f));
  }
}

// exposed, dvm and internal_format_opapi may only name versions that have a kernel.
void Checker::check_version_coverage(const OpEntry& e) {
  const std::string op = e.op_name();
  const std::set<std::string> active_set = to_set(active_versions(e));
  const std::set<std::string> op_api_set = to_set(versions(e, "op_api"));
  for (const char* key : {"exposed", "dvm", "internal_format_opapi"}) {
    if (e.key(key) == nullptr) continue;
    const auto& base = std::string(key) == "internal_format_opapi" ? op_api_set : active_set;
    const auto extra = minus(versions(e, key), base);
    if (extra.empty()) continue;
    // codegen ignores internal_format_opapi where there is no op_api kernel: dead config.
    Finding f =
        make(std::string(key) == "internal_format_opapi" ? "warning" : "error",
             "yaml.version_not_covered", op,
             std::string("'") + key + "' names versions in which the op has no " +
                 (std::string(key) == "internal_format_opapi" ? "op_api kernel" : "kernel at all"),
             yaml_name_, yaml_loc(e, key), yaml_loc(e, "op_api"));
    f.expected = "a subset of " + join_versions(std::vector<std::string>(base.begin(), base.end()));
    f.found = "extra: " + join_versions(extra);
    add(std::move(f));
  }
}

void Checker::check_section(const OpEntry& e, const FunctionSchema& s) {
  const std::string op = e.op_name();
  if (e.section == "official" && detail::starts_with(s.name.base, "npu_")) {
    Finding f = make("error", "yaml.section", op,
                     "an npu_* op is a torch.ops.npu custom op but sits in 'official' (aten)",
                     yaml_name_, yaml_loc(e));
    f.expected = "section custom";
    f.found = "section official";
    add(std::move(f));
  }
  if (e.section == "symint" && !has_symint(s)) {
    Finding f = make("error", "yaml.section", op,
                     "an entry in 'symint' has no SymInt argument, so the dual registration "
                     "has nothing to convert",
                     yaml_name_, yaml_loc(e));
    f.expected = "a SymInt or SymInt[] argument, or the entry moved out of symint";
    f.found = e.schema_text;
    add(std::move(f));
  }
}

void Checker::check_gen_opapi(const OpEntry& e, const FunctionSchema& s) {
  const std::string op = e.op_name();
  const Json& g = *e.key("gen_opapi");
  if (!g.is_object()) return;
  const Location loc = yaml_loc(e, "gen_opapi");
  if (g.contains("structured_inherit")) {
    const std::string target = g["structured_inherit"].is_string()
                                   ? g["structured_inherit"].get<std::string>()
                                   : std::string();
    if (by_name_.count(target) == 0) {
      Finding f = make("error", "gen_opapi.inherit_missing", op,
                       "structured_inherit names an op that is not in the YAML", yaml_name_, loc);
      f.expected = "an existing op such as " + s.name.base + ".out";
      f.found = target;
      add(std::move(f));
    }
    return;
  }
  if (!g.contains("exec") || !g["exec"].is_string()) {
    Finding f = make("error", "gen_opapi.no_exec", op,
                     "gen_opapi has neither exec nor structured_inherit", yaml_name_, loc);
    f.expected = "exec: aclnnName[, args...]";
    f.found = "none";
    add(std::move(f));
    return;
  }
  std::set<std::string> known;
  std::set<std::string> spec_keys;
  std::vector<std::string> out_names;
  gen_opapi_names(g, s, &known, &spec_keys, &out_names);
  check_gen_opapi_outputs(e, s, spec_keys, out_names);
  check_gen_opapi_exec(e, g["exec"].get<std::string>(), known);
}

// Output specs: out-arg names for .out overloads, out / out0..N for functional ones.
void Checker::check_gen_opapi_outputs(const OpEntry& e, const FunctionSchema& s,
                                      const std::set<std::string>& spec_keys,
                                      const std::vector<std::string>& out_names) {
  const std::string op = e.op_name();
  const Location loc = yaml_loc(e, "gen_opapi");
  std::set<std::string> expected_keys;
  if (s.kind == ops::SchemaKind::kOut) {
    expected_keys.insert(out_names.begin(), out_names.end());
  } else if (s.kind == ops::SchemaKind::kFunctional) {
    if (s.returns.size() == 1) {
      expected_keys.insert(s.returns[0].name ? *s.returns[0].name : "out");
      // One output: codegen takes the single spec whatever its key (out, result, out0).
      if (spec_keys.size() == 1) expected_keys = spec_keys;
    } else {
      for (size_t i = 0; i < s.returns.size(); ++i) {
        expected_keys.insert(s.returns[i].name ? *s.returns[i].name : "out" + std::to_string(i));
      }
    }
  }
  const bool out_kind = s.kind == ops::SchemaKind::kOut;
  if (out_kind) {
    // .out overloads: each output spec is keyed by the out argument it fills.
    for (const std::string& k : spec_keys) {
      if (expected_keys.count(k) != 0) continue;
      Finding f =
          make("error", "gen_opapi.out_key", op,
               "output spec '" + k + "' is not an out argument of the schema", yaml_name_, loc);
      f.expected = detail::join(out_names, ", ");
      f.found = k;
      add(std::move(f));
    }
  } else if (s.kind == ops::SchemaKind::kFunctional && spec_keys.size() != s.returns.size()) {
    // Functional ops: codegen allocates one output per spec, in order, whatever the keys.
    Finding f = make("error", "gen_opapi.out_key", op,
                     std::to_string(spec_keys.size()) + " output spec(s) for " +
                         std::to_string(s.returns.size()) + " return(s): codegen allocates " +
                         "the wrong number of outputs",
                     yaml_name_, loc);
    f.expected =
        std::to_string(s.returns.size()) + " (" +
        detail::join(std::vector<std::string>(expected_keys.begin(), expected_keys.end()), ", ") +
        ")";
    f.found = detail::join(std::vector<std::string>(spec_keys.begin(), spec_keys.end()), ", ");
    if (f.found.empty()) f.found = "none";
    add(std::move(f));
  }
}

// exec's arguments after the aclnn name must name something the generated kernel has.
void Checker::check_gen_opapi_exec(const OpEntry& e, const std::string& exec,
                                   const std::set<std::string>& known) {
  const std::string op = e.op_name();
  const Location loc = yaml_loc(e, "gen_opapi");
  std::vector<std::string> args;
  size_t start = 0;
  while (start <= exec.size()) {
    const size_t comma = exec.find(',', start);
    args.push_back(detail::trim(exec.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.empty() || known.count(a) != 0) continue;
    if (std::isdigit(static_cast<unsigned char>(a[0])) != 0) continue;  // literal argument
    Finding f = make("error", "gen_opapi.exec_arg", op,
                     "exec passes '" + a +
                         "', which is neither a schema argument, an output nor a new_params "
                         "local",
                     yaml_name_, loc);
    f.expected = detail::join(std::vector<std::string>(known.begin(), known.end()), ", ");
    f.found = a;
    add(std::move(f));
  }
}

void Checker::check_duplicates_and_symint() {
  // Same schema twice with overlapping versions: codegen registers it twice.
  for (const auto& [schema, entries] : by_schema_) {
    std::vector<const OpEntry*> main;
    const OpEntry* in_symint = nullptr;
    for (const OpEntry* e : entries) {
      if (e->section == "symint") {
        in_symint = e;
      } else if (e->section == "autograd") {
        continue;  // a registration mirror of an official entry, like symint
      } else {
        main.push_back(e);
      }
    }
    bool selected = false;
    for (const OpEntry* e : entries) selected = selected || selected_names_.count(e->op_name());
    if (!selected) continue;
    for (size_t i = 0; i < main.size(); ++i) {
      for (size_t j = i + 1; j < main.size(); ++j) {
        const auto a = to_set(active_versions(*main[i]));
        std::vector<std::string> both;
        for (const std::string& v : active_versions(*main[j])) {
          if (a.count(v) != 0) both.push_back(v);
        }
        if (both.empty()) continue;
        Finding f = make("error", "yaml.duplicate", main[j]->op_name(),
                         "the same schema is registered twice for overlapping versions", yaml_name_,
                         yaml_loc(*main[j]), yaml_loc(*main[i]));
        f.expected = "one entry per version";
        f.found = "both active in " + join_versions(both);
        add(std::move(f));
      }
    }
    const OpEntry* any = entries.front();
    if (!any->parsed.ok()) continue;
    if (has_symint(*any->parsed.schema) && in_symint == nullptr && !main.empty()) {
      Finding f = make("info", "yaml.symint_missing", any->op_name(),
                       "the op takes SymInt arguments but has no entry in the symint section",
                       yaml_name_, yaml_loc(*main.front()));
      f.expected = "the same func under symint:";
      f.found = "none";
      add(std::move(f));
    }
    if (in_symint != nullptr && main.empty()) {
      Finding f = make("warning", "yaml.symint_orphan", in_symint->op_name(),
                       "a symint entry without the same func in official/custom", yaml_name_,
                       yaml_loc(*in_symint));
      f.expected = "the same func under official: or custom:";
      f.found = "none";
      add(std::move(f));
    }
  }
}

}  // namespace skillrt::opa::detail
