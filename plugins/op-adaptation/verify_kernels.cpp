// verify, the C++ rules: for each definition OpInterface.cpp's generated code calls, a kernel
// with exactly the declared parameter types, and what the kernel body shows (return type, aclnn
// probe, uninitialised locals, unused parameters).
#include <algorithm>

#include "detail/text.hpp"
#include "detail/verify_checker.hpp"

namespace skillrt::opa::detail {

namespace {

// Whether a definition has exactly the declaration's parameter types (as the compiler compares
// them: aliases resolved, top-level const of by-value parameters ignored).
bool defines(const Declaration& d, const LocatedFn& c) {
  if (c.fn->params.size() != d.param_types.size()) return false;
  for (size_t i = 0; i < d.param_types.size(); ++i) {
    if (cpp_type_key(d.param_types[i], {}) != cpp_type_key(c.fn->params[i].type, *c.aliases)) {
      return false;
    }
  }
  return true;
}

std::string versions_phrase(const std::vector<std::string>& v) {
  if (v.size() == 1) return "at " + v.front();
  return "at " + v.front() + " to " + v.back() + " (" + std::to_string(v.size()) + " versions)";
}

std::string found_params(const CppFunction& fn) {
  std::vector<std::string> parts;
  for (const CppParam& p : fn.params) parts.push_back(p.type + " " + p.name);
  return detail::join(parts, ", ");
}

// The nearest definition: same parameter count, fewest differing types. `first_diff` receives the
// index of its first differing parameter.
const LocatedFn* nearest_definition(const Requirement& r, const std::vector<LocatedFn>& cands,
                                    size_t* first_diff) {
  const LocatedFn* best = nullptr;
  size_t best_diff = 0;
  for (const LocatedFn& c : cands) {
    if (c.fn->params.size() != r.decl.param_types.size()) continue;
    size_t diff = 0;
    size_t first = 0;
    for (size_t i = 0; i < r.decl.param_types.size(); ++i) {
      if (cpp_type_key(r.decl.param_types[i], {}) ==
          cpp_type_key(c.fn->params[i].type, *c.aliases)) {
        continue;
      }
      if (diff++ == 0) first = i;
    }
    if (best == nullptr || diff < best_diff) {
      best = &c;
      best_diff = diff;
      *first_diff = first;
    }
  }
  return best;
}

}  // namespace

void Checker::check_sources(const OpEntry& e) {
  const FunctionSchema& s = *e.parsed.schema;
  if (e.section == "symint" || e.section == "autograd") return;  // registration mirrors
  if (e.key("gen_opapi") != nullptr && have_kernel_dir_.count("op_api") != 0) {
    check_generated_kernel(e, s);
  }
  for (const Requirement& r : interface_->requirements(e)) {
    if (have_kernel_dir_.count(r.ns) != 0) check_kernel(e, r);
  }
  if (!py_store_.empty()) check_meta(e, s);
  if (have_allowlist_) check_allowlist(e, s);
  if (have_tests_) check_test(e, s);
  if (have_docs_ && e.key("exposed") != nullptr) check_doc(e, s);
}

// gen_opapi: gen_struct_opapi writes op_api's kernel; a hand-written one with the same
// signature is a second definition.
void Checker::check_generated_kernel(const OpEntry& e, const FunctionSchema& s) {
  const std::string op = e.op_name();
  for (const std::string& v : versions(e, "op_api")) {
    const Declaration d = generated_declaration(s, interface_->flags(e, v));
    const auto it = kernels_.find("op_api::" + d.name);
    if (it == kernels_.end()) return;
    for (const LocatedFn& c : it->second) {
      if (!defines(d, c)) continue;
      Finding f = make("error", "cpp.handwritten_and_gen", op,
                       "gen_opapi generates op_api::" + d.name +
                           ", and a hand-written definition exists too: the build fails with "
                           "a redefinition",
                       c.file, Location{c.file, c.fn->line}, yaml_loc(e, "gen_opapi"));
      f.expected = "gen_opapi or a hand-written op_api::" + d.name + ", not both";
      f.found = "both";
      add(std::move(f));
      return;
    }
    return;  // one version is enough: the generated declaration rarely varies
  }
}

void Checker::check_kernel(const OpEntry& e, const Requirement& r) {
  const std::string op = e.op_name();
  const std::string& ns = r.ns;
  const std::string dir = ns == "op_api" ? kOpApiDir : kAclOpsDir;
  const std::string qualified = ns + "::" + r.decl.name;
  const std::string when = versions_phrase(r.versions);
  const auto it = kernels_.find(ns + "::" + (r.impl_name.empty() ? r.decl.name : r.impl_name));
  const std::vector<LocatedFn> none;
  const std::vector<LocatedFn>& cands = it == kernels_.end() ? none : it->second;
  const std::string expected_file = dir + "/" + detail::kernel_stem(e.parsed.schema->name.base) +
                                    (ns == "op_api" ? "KernelNpuOpApi.cpp" : "KernelNpu.cpp");
  if (!r.impl_name.empty()) {
    // OpInterface.cpp calls ns::impl_name(args): any overload the call resolves to will do, so
    // only its existence is decided here.
    if (!cands.empty()) return;
    Finding f = make("error", "cpp.missing", op,
                     "the YAML's impl_name makes OpInterface.cpp call " + ns + "::" + r.impl_name +
                         ", which no kernel under " + dir + " defines (" + when +
                         "): the build fails to compile that call",
                     expected_file, Location{expected_file, 0}, yaml_loc(e, "impl_name"));
    f.expected = ns + "::" + r.impl_name + "(...)";
    f.found = "none";
    add(std::move(f));
    return;
  }
  const LocatedFn* match = nullptr;
  for (const LocatedFn& c : cands) {
    if (defines(r.decl, c)) match = &c;
  }
  if (match == nullptr) {
    report_undefined(e, r, cands, expected_file, when);
    return;
  }
  check_kernel_definition(e, r, match);
}

// The definition that matches the declaration: its return type and what its body shows.
void Checker::check_kernel_definition(const OpEntry& e, const Requirement& r,
                                      const LocatedFn* match) {
  const std::string op = e.op_name();
  const std::string qualified = r.ns + "::" + r.decl.name;
  const CppFunction& fn = *match->fn;
  const Location here{match->file, fn.line};
  if (!r.decl.return_type.empty() &&
      cpp_type_key(r.decl.return_type, {}) != cpp_type_key(fn.return_type, *match->aliases)) {
    Finding f = make("error", "cpp.return_type", op,
                     qualified +
                         " is defined with the generated parameters but another return "
                         "type: the compiler rejects a definition that differs from its "
                         "declaration only in the return type",
                     match->file, here, yaml_loc(e));
    f.expected = r.decl.return_type;
    f.found = fn.return_type;
    add(std::move(f));
  }
  std::set<std::string> execs;
  for (const auto& [n, line] : fn.exec_calls) execs.insert(n);
  // Some kernels probe several symbols (one DO_COMPATIBILITY per aclnn they may run).
  const bool some_probe_runs = std::any_of(fn.compat_calls.begin(), fn.compat_calls.end(),
                                           [&](const auto& c) { return execs.count(c.first); });
  for (const auto& [n, line] : fn.compat_calls) {
    if (execs.empty() || execs.count(n) != 0 || some_probe_runs) continue;
    Finding f = make("warning", "cpp.aclnn_mismatch", op,
                     "DO_COMPATIBILITY checks " + n + " but the kernel runs " +
                         detail::join(std::vector<std::string>(execs.begin(), execs.end()), ", ") +
                         ": on a CANN that has one and not the other, the fallback choice is wrong",
                     match->file, Location{match->file, line},
                     Location{match->file, fn.exec_calls.front().second});
    f.expected = *execs.begin();
    f.found = n;
    add(std::move(f));
  }
  for (const auto& u : fn.maybe_uninitialized) {
    Finding f =
        make("warning", "cpp.uninitialized_local", op,
             "'" + u.name + "' is declared without a value at line " + std::to_string(u.decl_line) +
                 " and read at line " + std::to_string(u.read_line) +
                 " where some branch has not assigned it; it is passed to "
                 "EXEC_NPU_CMD, so a call that takes that path hands aclnn an "
                 "indeterminate value (unless an earlier check rules the path out)",
             match->file, Location{match->file, u.read_line}, Location{match->file, u.decl_line});
    f.expected = u.name + " assigned on every path (or given a value where declared)";
    f.found = "unassigned on some path";
    add(std::move(f));
  }
  for (const CppParam& p : fn.params) {
    if (p.name.empty() || fn.body_identifiers.count(p.name) != 0) continue;
    Finding f = make("warning", "cpp.unused_arg", op,
                     "parameter '" + p.name + "' is never used in " + qualified +
                         ": its value is silently ignored",
                     match->file, here, yaml_loc(e));
    f.expected = p.name + " passed to the kernel or checked";
    f.found = "unused";
    add(std::move(f));
  }
}

// No definition has the generated declaration's parameter types: OpInterface.cpp's call links
// against the declaration and fails with an undefined reference.
void Checker::report_undefined(const OpEntry& e, const Requirement& r,
                               const std::vector<LocatedFn>& cands,
                               const std::string& expected_file, const std::string& when) {
  const std::string op = e.op_name();
  const std::string qualified = r.ns + "::" + r.decl.name;
  const std::string consequence =
      ": OpInterface.cpp calls the declared function, so linking fails with an undefined "
      "reference to " +
      qualified;
  size_t first_diff = 0;
  const LocatedFn* best = nearest_definition(r, cands, &first_diff);
  if (best != nullptr) {
    const ops::Argument& a = e.parsed.schema->arguments[first_diff];
    Finding f = make("error", "cpp.param_type", op,
                     "no definition has the generated declaration's parameter types (" + when +
                         "); the nearest differs in parameter " + std::to_string(first_diff + 1) +
                         " ('" + a.name + "', schema type " +
                         ops::print_annotated_type(a.type, a.annotation) + ")" + consequence,
                     best->file, Location{best->file, best->fn->line}, yaml_loc(e));
    f.expected = r.decl.to_string();
    f.found = best->fn->return_type + " " + best->fn->name + "(" + found_params(*best->fn) + ")";
    add(std::move(f));
    return;
  }
  // Named with or without _symint the other way round.
  const std::string& name = r.decl.name;
  const std::string other =
      detail::ends_with(name, "_symint") ? name.substr(0, name.size() - 7) : name + "_symint";
  const auto alt = kernels_.find(r.ns + "::" + other);
  if (alt != kernels_.end()) {
    const LocatedFn& c = alt->second.front();
    Finding f =
        make("error", "cpp.symint_suffix", op,
             "the generated interface declares " + qualified + " (" + when + ": the op is " +
                 (detail::ends_with(name, "_symint") ? "" : "not ") +
                 "in the YAML's symint section); the kernel is named " + other + consequence,
             c.file, Location{c.file, c.fn->line}, yaml_loc(e, r.ns));
    f.expected = r.decl.to_string();
    f.found = other;
    add(std::move(f));
    return;
  }
  if (!cands.empty()) {
    const LocatedFn& c = cands.front();
    Finding f =
        make("error", "cpp.param_count", op,
             qualified + " is defined with " + std::to_string(c.fn->params.size()) +
                 " parameters; the generated declaration has " +
                 std::to_string(r.decl.param_types.size()) + " (" + when + ")" + consequence,
             c.file, Location{c.file, c.fn->line}, yaml_loc(e));
    f.expected = r.decl.to_string();
    f.found = found_params(*c.fn);
    add(std::move(f));
    return;
  }
  Finding f =
      make("error", "cpp.missing", op,
           "YAML declares '" + r.ns + "' (" + when + ") but no " + qualified +
               " is defined under " + (r.ns == "op_api" ? kOpApiDir : kAclOpsDir) + consequence,
           expected_file, Location{expected_file, 0}, yaml_loc(e, r.ns));
  f.expected = r.decl.to_string();
  f.found = "none";
  add(std::move(f));
}

}  // namespace skillrt::opa::detail
