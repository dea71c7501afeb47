// verify, the Meta rules: each Python Meta/fake registration against its schema, the way the
// dispatcher calls it (parseIValuesToPyArgsKwargs), and registrations for ops nobody defines.
#include <algorithm>
#include <map>

#include "detail/text.hpp"
#include "detail/verify_checker.hpp"

namespace skillrt::opa::detail {

namespace {

using KwargsByName = std::map<std::string, const ops::Argument*>;

// A schema default and a Python default mean the same value. A sized list type takes a scalar
// default for every element ("int[2] stride=1" is [1, 1]).
bool same_default(const ops::Argument& a, const std::string& other) {
  int sized = 0;
  for (const ops::TypeSuffix& x : a.type.suffixes()) {
    if (x.kind == ops::TypeSuffix::kList && x.size > 0) sized = static_cast<int>(x.size);
  }
  return ops::same_default_value(*a.default_value, other, sized);
}

// The schema's parameter list and the Meta function's, side by side in a finding.
void signature_lists(const MetaBinding& mb, Finding& f) {
  const FunctionSchema& s = *mb.schema;
  const PyRegistration& r = *mb.reg;
  std::vector<std::string> want;
  bool star = false;
  for (const ops::Argument& a : s.arguments) {
    if (a.kwarg_only && !star) {
      want.push_back("*");
      star = true;
    }
    want.push_back(a.name + (a.default_value ? "=" + *a.default_value : ""));
  }
  std::vector<std::string> got;
  star = false;
  for (const PyParam& p : r.params) {
    if ((p.kwonly || p.varargs) && !star && !detail::starts_with(p.name, "*")) {
      got.push_back("*");
      star = true;
    }
    if (detail::starts_with(p.name, "*")) star = true;
    got.push_back(p.name + (p.default_text ? "=" + *p.default_text : ""));
  }
  f.expected = detail::join(want, ", ");
  f.found = detail::join(got, ", ");
}

}  // namespace

void Checker::check_meta(const OpEntry& e, const FunctionSchema& s) {
  const std::string op = e.op_name();
  const auto it = registrations_.find(op);
  if (it == registrations_.end()) {
    if (e.section != "custom") return;
    // A CompositeExplicitAutograd/CompositeImplicitAutograd kernel serves the Meta key too, and
    // an op that returns no tensor has no shapes for a Meta function to compute.
    for (const auto& [key, kernel] : e.dispatch()) {
      if (detail::starts_with(key, "Composite")) return;
    }
    const bool any_tensor =
        std::any_of(s.returns.begin(), s.returns.end(),
                    [](const ops::Return& r) { return r.type.base == "Tensor"; });
    if (!any_tensor) return;
    Finding f = make("warning", "meta.missing", op,
                     "a custom op without a Meta/fake registration fails under FakeTensor and "
                     "in graph mode (torch.compile)",
                     kMetaPy, Location{kMetaPy, 0}, yaml_loc(e));
    f.expected = "@impl(m, \"" + op + "\") def " + s.name.base + "_meta(...)";
    f.found = "none";
    add(std::move(f));
    return;
  }
  for (const LocatedReg& lr : it->second) check_one_meta(e, s, lr);
}

// How PyTorch calls a Python Meta kernel (parseIValuesToPyArgsKwargs): the schema's positional
// arguments by position, except a trailing run equal to their defaults, which is dropped; its
// keyword-only arguments by name, and only when they differ from their defaults. A Python
// parameter that receives nothing needs its own default. So names matter only for keyword-only
// arguments, and defaults only where the dispatcher may omit an argument.
void Checker::check_one_meta(const OpEntry& e, const FunctionSchema& s, const LocatedReg& lr) {
  MetaBinding mb;
  mb.schema = &s;
  mb.reg = lr.reg;
  mb.file = lr.file;
  mb.op = e.op_name();
  mb.call = "torch.ops.npu." + mb.op;
  mb.here = Location{lr.file, lr.reg->def_line};
  mb.schema_loc = yaml_loc(e);
  for (const PyParam& p : lr.reg->params) {
    if (p.varargs) {
      (detail::starts_with(p.name, "**") ? mb.star_kwargs : mb.star_args) = true;
    } else {
      (p.kwonly ? mb.kwonly : mb.positional).push_back(&p);
    }
  }
  for (const ops::Argument& a : s.arguments) (a.kwarg_only ? mb.s_kw : mb.s_pos).push_back(&a);
  // Positional values always passed: up to the last positional argument without a default.
  for (size_t i = 0; i < mb.s_pos.size(); ++i) {
    if (!mb.s_pos[i]->default_value) mb.always = i + 1;
  }
  check_meta_positional(mb);
  check_meta_keywords(mb);
  check_meta_unreached(mb);
  check_meta_returns(mb);
}

void Checker::report_meta(const MetaBinding& mb, const char* severity, const char* rule,
                          const std::string& message) {
  Finding f = make(severity, rule, mb.op, message, mb.file, mb.here, mb.schema_loc);
  signature_lists(mb, f);
  add(std::move(f));
}

// 1. More positional values than positional parameters. 2. Positional arguments bind by position.
void Checker::check_meta_positional(const MetaBinding& mb) {
  const auto& s_pos = mb.s_pos;
  const auto& positional = mb.positional;
  const std::string& call = mb.call;
  const size_t always = mb.always;
  const bool star_args = mb.star_args;
  if (!star_args && s_pos.size() > positional.size()) {
    const size_t m = positional.size();
    const std::string which = s_pos[m]->name;
    report_meta(mb, "error", "meta.param_count",
                "the Meta function takes " + std::to_string(m) +
                    " positional parameter(s); the dispatcher passes up to " +
                    std::to_string(s_pos.size()) + " by position, so " +
                    (always > m ? "every call to " + call + " fails"
                                : "a call to " + call + " that sets '" + which + "'" + " fails") +
                    " with TypeError (too many positional arguments)");
  }
  KwargsByName kw_by_name;
  for (const ops::Argument* a : mb.s_kw) kw_by_name[a->name] = a;
  for (size_t i = 0; i < s_pos.size() && i < positional.size(); ++i) {
    check_meta_positional_arg(mb, i, kw_by_name);
  }
}

// Positional argument i against the Meta parameter at position i: its name and its default.
void Checker::check_meta_positional_arg(const MetaBinding& mb, size_t i,
                                        const KwargsByName& kw_by_name) {
  const std::string& op = mb.op;
  const std::string& call = mb.call;
  const auto& s_pos = mb.s_pos;
  const auto& positional = mb.positional;
  const size_t always = mb.always;
  const Location& here = mb.here;
  const Location& schema_loc = mb.schema_loc;
  const LocatedReg lr{mb.file, mb.reg};
  const PyRegistration& r = *mb.reg;
  const ops::Argument& a = *s_pos[i];
  const PyParam& p = *positional[i];
  const bool names_other = std::any_of(s_pos.begin(), s_pos.end(),
                                       [&](const auto* o) { return o != &a && o->name == p.name; });
  if (p.name != a.name && names_other) {
    Finding f = make("warning", "meta.param_order", op,
                     "Meta parameter " + std::to_string(i + 1) + " is called '" + p.name +
                         "', the name of another schema argument, but receives '" + a.name +
                         "' (arguments bind by position): check the Meta body reads the "
                         "value it means",
                     lr.file, here, schema_loc);
    signature_lists(mb, f);
    add(std::move(f));
  } else if (p.name != a.name && kw_by_name.count(p.name) == 0) {
    Finding f = make("warning", "meta.param_renamed", op,
                     "positional argument " + std::to_string(i + 1) + " is '" + a.name +
                         "' in the schema and '" + p.name +
                         "' in the Meta function: it binds by position, but readers and "
                         "keyword callers of the Python function are misled",
                     lr.file, here, schema_loc);
    f.expected = a.name;
    f.found = p.name;
    add(std::move(f));
  }
  if (i >= always && !p.default_text) {
    Finding f = make("error", "meta.default_missing", op,
                     "'" + a.name + "' has the default " + *a.default_value +
                         " in the schema, and the dispatcher drops it from a call that "
                         "leaves it at that default; the Meta parameter '" +
                         p.name + "' has no default, so " + call + " without '" + a.name +
                         "' fails with TypeError (missing argument) under FakeTensor and "
                         "torch.compile",
                     lr.file, here, schema_loc);
    f.expected = p.name + "=" + *a.default_value;
    f.found = p.name + " (no default)";
    add(std::move(f));
  } else if (p.default_text && a.default_value && !same_default(a, *p.default_text)) {
    report_default_difference(op, a, p, r, lr.file, here, schema_loc);
  } else if (p.default_text && !a.default_value && i < always) {
    Finding f = make("info", "meta.default_extra", op,
                     "'" + p.name +
                         "' has a default in the Meta function that no call uses "
                         "(the schema argument has none, so it is always passed)",
                     lr.file, here, schema_loc);
    f.expected = "no default";
    f.found = *p.default_text;
    add(std::move(f));
  }
}

// 3. Keyword-only arguments bind by name.
void Checker::check_meta_keywords(MetaBinding& mb) {
  bool split_reported = false;
  for (size_t i = 0; i < mb.s_pos.size() && i < mb.positional.size(); ++i) {
    mb.bound.insert(mb.positional[i]);
  }
  for (const ops::Argument* a : mb.s_kw) check_meta_keyword(mb, *a, &split_reported);
}

void Checker::check_meta_keyword(MetaBinding& mb, const ops::Argument& arg, bool* split_reported) {
  const ops::Argument* a = &arg;
  const std::string& op = mb.op;
  const std::string& call = mb.call;
  const auto& s_pos = mb.s_pos;
  const auto& positional = mb.positional;
  const auto& kwonly = mb.kwonly;
  const bool star_kwargs = mb.star_kwargs;
  const Location& here = mb.here;
  const Location& schema_loc = mb.schema_loc;
  const LocatedReg lr{mb.file, mb.reg};
  const PyParam* target = nullptr;
  size_t pos_index = 0;
  for (size_t j = 0; j < positional.size(); ++j) {
    if (positional[j]->name == a->name) {
      target = positional[j];
      pos_index = j;
    }
  }
  const bool is_positional = target != nullptr;
  for (const PyParam* p : kwonly) {
    if (p->name == a->name) target = p;
  }
  if (target == nullptr) {
    if (star_kwargs) return;
    const std::string when = a->default_value ? "a call to " + call + " that sets '" + a->name + "'"
                                              : "every call to " + call;
    Finding f = make("error", "meta.kwarg_missing", op,
                     "keyword-only argument '" + a->name +
                         "' has no parameter of that name in the Meta function: " + when +
                         " passes it by name and fails with TypeError (unexpected keyword "
                         "argument)",
                     lr.file, here, schema_loc);
    signature_lists(mb, f);
    add(std::move(f));
    return;
  }
  if (is_positional && pos_index < s_pos.size() && pos_index < positional.size() &&
      target == positional[pos_index]) {
    Finding f = make("error", "meta.kwarg_conflict", op,
                     "keyword-only argument '" + a->name + "' names Meta parameter " +
                         std::to_string(pos_index + 1) +
                         ", which already receives the schema's positional argument '" +
                         s_pos[pos_index]->name +
                         "': a call that passes both fails with "
                         "TypeError (multiple values)",
                     lr.file, here, schema_loc);
    signature_lists(mb, f);
    add(std::move(f));
    return;
  }
  mb.bound.insert(target);
  if (is_positional && !*split_reported) {
    *split_reported = true;
    Finding f = make("info", "meta.kwonly_split", op,
                     "'" + a->name +
                         "' is keyword-only in the schema and positional-or-keyword "
                         "in the Meta function: it still binds by name",
                     lr.file, here, schema_loc);
    signature_lists(mb, f);
    add(std::move(f));
  }
  check_meta_keyword_default(mb, *a, *target);
}

// A keyword argument's default against the default of the parameter it binds to.
void Checker::check_meta_keyword_default(const MetaBinding& mb, const ops::Argument& arg,
                                         const PyParam& param) {
  const ops::Argument* a = &arg;
  const PyParam* target = &param;
  const std::string& op = mb.op;
  const std::string& call = mb.call;
  const Location& here = mb.here;
  const Location& schema_loc = mb.schema_loc;
  const LocatedReg lr{mb.file, mb.reg};
  const PyRegistration& r = *mb.reg;
  if (a->default_value && !target->default_text) {
    Finding f =
        make("error", "meta.default_missing", op,
             "'" + a->name + "' has the default " + *a->default_value +
                 " in the schema, so the dispatcher does not pass it when a call "
                 "leaves it there; the Meta parameter has no default, so " +
                 call + " without '" + a->name + "' fails with TypeError (missing argument)",
             lr.file, here, schema_loc);
    f.expected = a->name + "=" + *a->default_value;
    f.found = a->name + " (no default)";
    add(std::move(f));
  } else if (a->default_value && !same_default(*a, *target->default_text)) {
    report_default_difference(op, *a, *target, r, lr.file, here, schema_loc);
  } else if (!a->default_value && target->default_text) {
    Finding f = make("info", "meta.default_extra", op,
                     "'" + a->name +
                         "' has a default in the Meta function that no call uses "
                         "(the schema argument has none, so it is always passed)",
                     lr.file, here, schema_loc);
    f.expected = "no default";
    f.found = *target->default_text;
    add(std::move(f));
  }
}

// 4. Meta parameters no argument reaches.
void Checker::check_meta_unreached(const MetaBinding& mb) {
  const std::string& op = mb.op;
  const std::string& call = mb.call;
  const Location& here = mb.here;
  const Location& schema_loc = mb.schema_loc;
  const LocatedReg lr{mb.file, mb.reg};
  for (const std::vector<const PyParam*>* group : {&mb.positional, &mb.kwonly}) {
    for (const PyParam* p : *group) {
      if (mb.bound.count(p) != 0) continue;
      if (p->default_text) {
        Finding f = make("info", "meta.param_extra", op,
                         "the Meta parameter '" + p->name +
                             "' matches no schema argument; it always takes its default " +
                             *p->default_text,
                         lr.file, here, schema_loc);
        signature_lists(mb, f);
        add(std::move(f));
        continue;
      }
      Finding f = make("error", "meta.param_extra", op,
                       "the Meta parameter '" + p->name +
                           "' matches no schema argument and has no default: every call to " +
                           call + " fails with TypeError (missing argument)",
                       lr.file, here, schema_loc);
      signature_lists(mb, f);
      add(std::move(f));
    }
  }
}

// Outputs: as many return values as the schema returns, None only where it returns nothing.
void Checker::check_meta_returns(const MetaBinding& mb) {
  const std::string& op = mb.op;
  const Location& here = mb.here;
  const Location& schema_loc = mb.schema_loc;
  const LocatedReg lr{mb.file, mb.reg};
  const PyRegistration& r = *mb.reg;
  const int want = static_cast<int>(mb.schema->returns.size());
  if (r.returns.empty() && want > 0) {
    Finding f = make(
        "error", "meta.return_count", op,
        "the Meta function has no return statement; the schema returns " + std::to_string(want),
        lr.file, here, schema_loc);
    f.expected = std::to_string(want);
    f.found = "0";
    add(std::move(f));
  }
  bool decided = false;
  for (const PyReturn& ret : r.returns) {
    if (want == 0 && !ret.is_none) {
      Finding f = make("error", "meta.return_count", op,
                       "the schema returns nothing (-> ()), and the Meta function returns a "
                       "value: every call fails with RuntimeError (expected the kernel to "
                       "return None)",
                       lr.file, Location{lr.file, ret.line}, schema_loc);
      f.expected = "None";
      f.found = ret.count > 0 ? std::to_string(ret.count) + " item(s)" : "a value";
      add(std::move(f));
      decided = true;
      continue;
    }
    if (ret.is_none && want > 0) {
      Finding f = make("error", "meta.return_none", op,
                       "the Meta function returns None where the schema returns a Tensor", lr.file,
                       Location{lr.file, ret.line}, schema_loc);
      f.expected = std::to_string(want) + " tensor(s)";
      f.found = "None";
      add(std::move(f));
      decided = true;
      continue;
    }
    if (ret.count < 0) continue;
    decided = true;
    if (ret.count == want) continue;
    Finding f = make("error", "meta.return_count", op,
                     "the Meta function returns " + std::to_string(ret.count) +
                         " item(s), the schema " + std::to_string(want),
                     lr.file, Location{lr.file, ret.line}, schema_loc);
    f.expected = std::to_string(want);
    f.found = std::to_string(ret.count);
    add(std::move(f));
  }
  if (!decided && !r.returns.empty() && want != 1) {
    Finding f = make("info", "meta.return_unknown", op,
                     "the returned value is a name or helper call whose arity the text does not "
                     "show; output count not compared",
                     lr.file, Location{lr.file, r.returns.front().line}, schema_loc);
    f.expected = std::to_string(want);
    f.found = "undecided";
    add(std::move(f));
  }
}

// The Meta default is what the Meta function computes with when a call leaves the argument at
// the schema's default (the dispatcher omits it). Harmless when the body never reads it.
void Checker::report_default_difference(const std::string& op, const ops::Argument& a,
                                        const PyParam& p, const PyRegistration& r,
                                        const std::string& file, const Location& here,
                                        const Location& schema_loc) {
  const bool read = r.body_names.count(p.name) != 0;
  Finding f = make(read ? "warning" : "info", "meta.default_mismatch", op,
                   "default of '" + a.name + "' is " + *a.default_value + " in the schema and " +
                       *p.default_text + " in the Meta function; " +
                       (read ? "a call that leaves it at the schema default makes the Meta body "
                               "compute with " +
                                   *p.default_text
                             : "the Meta body never reads it, so nothing changes"),
                   file, here, schema_loc);
  f.expected = *a.default_value;
  f.found = *p.default_text;
  add(std::move(f));
}

void Checker::check_orphan_registrations() {
  for (const auto& [op, regs] : registrations_) {
    if (!options_.all && selected_names_.count(op) == 0 &&
        selected_bases_.count(op.substr(0, op.find('.'))) == 0) {
      continue;
    }
    if (by_name_.count(op) != 0) continue;
    const std::string base = op.substr(0, op.find('.'));
    if (torch_npu_ops_.count(op) != 0 || torch_npu_ops_.count(base) != 0) continue;
    for (const LocatedReg& lr : regs) {
      if (lr.reg->library == "m_aten") continue;  // aten ops are not all in this YAML
      // torch accepts an impl for an op defined later or elsewhere: nothing fails at import.
      // torch_npu defines some npu ops itself (npu_native_functions.yaml); only with that
      // file can the registration be called dead.
      Finding f = make(have_torch_npu_ops_ ? "warning" : "info", "meta.orphan", op,
                       have_torch_npu_ops_
                           ? "a Meta/fake registration for an op neither op-plugin's YAML nor "
                             "torch_npu defines: it never runs"
                           : "a Meta/fake registration for an op op-plugin's YAML does not "
                             "define; torch_npu may define it (pass torch_npu to decide)",
                       lr.file, Location{lr.file, lr.reg->decorator_line});
      f.expected = "an entry 'func: " + op + "(...)' in " + yaml_name_;
      f.found = "none; nearest: " + detail::join(yaml_.nearest(op, 3), ", ");
      add(std::move(f));
    }
  }
}

}  // namespace skillrt::opa::detail
