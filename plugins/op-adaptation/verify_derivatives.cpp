// verify, the derivatives rules: each derivatives.yaml entry against its forward op in
// op_plugin_functions.yaml (name, formula inputs and calls, result indices, versions).
#include <regex>

#include "detail/text.hpp"
#include "detail/verify_checker.hpp"

namespace skillrt::opa::detail {

namespace {

// torch_npu's codegen rewrites a few PyTorch schemas before matching derivatives
// (Ascend/pytorch torchnpugen/gen_backend_stubs.py, modify_func_in_native_yaml): the derivatives
// entry carries the rewritten form, op_plugin_functions.yaml the original. Returns the original.
std::string torch_npu_renamed(const std::string& schema) {
  static const std::map<std::string, std::string> kRewritten = {
      {"matmul_backward(Tensor grad_out, Tensor self, Tensor other, bool[2] mask) -> (Tensor, "
       "Tensor)",
       "matmul_backward(Tensor grad, Tensor self, Tensor other, bool[2] mask) -> (Tensor, Tensor)"},
  };
  const auto it = kRewritten.find(schema);
  return it == kRewritten.end() ? schema : it->second;
}

}  // namespace

void Checker::check_derivatives() {
  for (const OpEntry& d : derivs_->entries) {
    const std::string op = d.op_name();
    const std::string base = op.substr(0, op.find('.'));
    if (!options_.all && selected_names_.count(op) == 0 && selected_bases_.count(base) == 0) {
      continue;
    }
    check_derivative(d);
  }
}

void Checker::check_derivative(const OpEntry& d) {
  const std::string file = kDerivativesYaml;
  const std::string op = d.op_name();
  const Location here{file, d.where.line};
  if (!d.parsed.ok()) {
    Finding f =
        make("error", "deriv.schema_parse", op,
             "the derivatives name does not parse: " + d.parsed.error.to_string(), file, here);
    f.expected = "a function schema";
    f.found = d.schema_text;
    add(std::move(f));
    return;
  }
  const FunctionSchema& s = *d.parsed.schema;
  const std::vector<const OpEntry*>* forward = find_forward(d);
  std::set<std::string> inputs;
  for (const ops::Argument& a : s.arguments) inputs.insert(a.name);
  for (auto it = d.keys.begin(); it != d.keys.end(); ++it) {
    check_derivative_key(d, it.key(), it.value(), inputs, s.returns.size());
  }
  if (forward != nullptr && d.key("version") != nullptr) check_derivative_versions(d, *forward);
}

// The forward entries with the derivatives entry's schema (or the one torch_npu rewrote it from);
// null, with a finding, when op_plugin_functions.yaml has none.
const std::vector<const OpEntry*>* Checker::find_forward(const OpEntry& d) {
  const std::string file = kDerivativesYaml;
  const std::string op = d.op_name();
  const std::string base = op.substr(0, op.find('.'));
  const Location here{file, d.where.line};
  auto forward = by_schema_.find(d.schema_text);
  if (forward == by_schema_.end()) forward = by_schema_.find(torch_npu_renamed(d.schema_text));
  if (forward != by_schema_.end()) return &forward->second;
  const auto named = by_name_.find(op);
  if (named != by_name_.end() && !named->second.empty()) {
    const OpEntry& fwd = *named->second.front();
    Finding f = make("error", "deriv.schema_mismatch", op,
                     "the derivatives name differs from the func in op_plugin_functions.yaml: "
                     "codegen finds no forward op for this formula",
                     file, here, yaml_loc(fwd));
    f.expected = fwd.schema_text;
    f.found = d.schema_text;
    add(std::move(f));
  } else if (torch_npu_ops_.count(op) == 0 && torch_npu_ops_.count(base) == 0) {
    // torch_npu defines some ops itself (npu_native_functions.yaml); without that file an
    // unknown name may be one of them.
    Finding f = make(have_torch_npu_ops_ ? "error" : "warning", "deriv.name_unknown", op,
                     std::string("the derivatives entry names an op that "
                                 "op_plugin_functions.yaml does not define") +
                         (have_torch_npu_ops_ ? " and torch_npu does not either"
                                              : " (torch_npu's own ops not checked: pass "
                                                "torch_npu)"),
                     file, here);
    f.expected = "an op of " + yaml_name_;
    f.found = op + "; nearest: " + detail::join(yaml_.nearest(op, 3), ", ");
    add(std::move(f));
  }
  return nullptr;
}

// One key of a derivatives entry: output_differentiability's length, or a formula for the named
// inputs.
void Checker::check_derivative_key(const OpEntry& d, const std::string& key, const Json& value,
                                   const std::set<std::string>& inputs, size_t nret) {
  const std::string file = kDerivativesYaml;
  const std::string op = d.op_name();
  const Location kloc{file, d.key_lines.count(key) != 0 ? d.key_lines.at(key) : d.where.line};
  if (key == "name" || key == "version" || key == "result" || key == "dispatch") return;
  if (key == "output_differentiability") {
    if (value.is_array() && value.size() != nret) {
      Finding f = make("error", "deriv.output_diff_len", op,
                       "output_differentiability has " + std::to_string(value.size()) +
                           " entries, the op returns " + std::to_string(nret),
                       file, kloc, yaml_loc_for(d.schema_text));
      f.expected = std::to_string(nret);
      f.found = std::to_string(value.size());
      add(std::move(f));
    }
    return;
  }
  size_t start = 0;
  while (start <= key.size()) {
    const size_t comma = key.find(',', start);
    const std::string name = detail::trim(key.substr(start, comma - start));
    if (!name.empty() && inputs.count(name) == 0) {
      Finding f = make("error", "deriv.unknown_input", op,
                       "a formula is given for '" + name + "', which is not an argument", file,
                       kloc, yaml_loc_for(d.schema_text));
      f.expected = detail::join(std::vector<std::string>(inputs.begin(), inputs.end()), ", ");
      f.found = name;
      add(std::move(f));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!value.is_string()) return;
  check_formula(d, value.get<std::string>(), kloc, nret);
}

// A formula's calls of npu ops op-plugin does not define, and result/grads indices past the
// outputs.
void Checker::check_formula(const OpEntry& d, const std::string& formula, const Location& kloc,
                            size_t nret) {
  static const std::regex kCall(R"(\b(_?npu_[A-Za-z0-9_]*)\s*\()");
  static const std::regex kResult(R"(\bresult(\d+)\b)");
  static const std::regex kGrads(R"(\bgrads\[(\d+)\])");
  const std::string file = kDerivativesYaml;
  const std::string op = d.op_name();
  for (std::sregex_iterator m(formula.begin(), formula.end(), kCall), end; m != end; ++m) {
    const std::string callee = (*m)[1];
    if (by_base_.count(callee) != 0 || by_name_.count(callee) != 0) continue;
    Finding f =
        make("error", "deriv.backward_missing", op,
             "the formula calls " + callee + ", which op_plugin_functions.yaml does not define",
             yaml_name_, kloc);
    f.expected = "an entry 'func: " + callee + "(...)'";
    f.found = "none";
    add(std::move(f));
  }
  for (const std::regex* re : {&kResult, &kGrads}) {
    for (std::sregex_iterator m(formula.begin(), formula.end(), *re), end; m != end; ++m) {
      const size_t idx = std::stoul((*m)[1]);
      if (idx < nret) continue;
      Finding f = make("error", "deriv.result_index", op,
                       "the formula uses " + m->str() + " but the op returns " +
                           std::to_string(nret) + " output(s)",
                       file, kloc, yaml_loc_for(d.schema_text));
      f.expected = "index < " + std::to_string(nret);
      f.found = m->str();
      add(std::move(f));
    }
  }
}

// The backward's versions must be ones where the forward op has a kernel.
void Checker::check_derivative_versions(const OpEntry& d,
                                        const std::vector<const OpEntry*>& forward_entries) {
  const std::string file = kDerivativesYaml;
  const std::string op = d.op_name();
  std::set<std::string> fwd;
  for (const OpEntry* e : forward_entries) {
    for (const std::string& v : active_versions(*e)) fwd.insert(v);
  }
  const auto extra =
      minus(ops::parse_version_spec(*d.key("version"), yaml_.all_version).versions, fwd);
  if (!extra.empty()) {
    Finding f =
        make("warning", "deriv.version_not_covered", op,
             "the backward is registered for versions in which the forward op has "
             "no kernel",
             file, Location{file, d.key_lines.at("version")}, yaml_loc(*forward_entries.front()));
    f.expected = "a subset of the forward's versions";
    f.found = "extra: " + join_versions(extra);
    add(std::move(f));
  }
}

Location Checker::yaml_loc_for(const std::string& schema) const {
  const auto it = by_schema_.find(schema);
  if (it == by_schema_.end()) return {};
  return yaml_loc(*it->second.front());
}

}  // namespace skillrt::opa::detail
