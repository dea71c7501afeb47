// check: an API page against its schema, the way torch_npu's Python binding shows the schema to
// users: `self` is `input`, an `.out` overload takes `out=`, arguments after `*` are keyword-only,
// and defaults are values (1e-5 = 0.00001). Every finding names the page line and the YAML line.
#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "apidoc.hpp"
#include "optoolkit/default_value.hpp"
#include "optoolkit/op_request.hpp"
#include "optoolkit/sources.hpp"
#include "optoolkit/text.hpp"
#include "page.hpp"

namespace skillrt::op_apidoc {
namespace {

using ops::Argument;
using ops::FunctionSchema;

struct Candidate {
  FunctionSchema schema;
  std::string text;
  std::string file;
  size_t line = 0;
  // The arguments a Python caller sees: an out overload's outputs become one keyword `out`
  // (a tuple when there are several), as torch's binding names it whatever the schema calls it.
  std::vector<Argument> python;
};

Candidate make_candidate(FunctionSchema schema, std::string text, std::string file, size_t line) {
  Candidate c{std::move(schema), std::move(text), std::move(file), line, {}};
  bool has_out = false;
  for (const Argument& a : c.schema.arguments) {
    if (a.out) {
      has_out = true;
      continue;
    }
    c.python.push_back(a);
  }
  if (has_out) {
    Argument out;
    out.name = "out";
    out.type.base = "Tensor";
    out.kwarg_only = true;
    out.out = true;
    out.default_value = "None";
    c.python.push_back(out);
  }
  return c;
}

std::string python_name(const FunctionSchema& s) {
  std::string base = s.name.full_base();
  const size_t c = base.find("::");
  return c == std::string::npos ? base : base.substr(c + 2);
}

std::vector<const Argument*> python_args(const Candidate& c) {
  std::vector<const Argument*> out;
  for (const Argument& a : c.python) out.push_back(&a);
  return out;
}

bool same_name(const std::string& page, const Argument& a) {
  if (page == a.name) return true;
  return a.name == "self" && page == "input";  // the binding shows `self` as `input`
}

int sized_list(const Argument& a) {
  const auto sx = a.type.suffixes();
  for (const auto& x : sx) {
    if (x.kind == ops::TypeSuffix::kList && x.size > 0) return static_cast<int>(x.size);
  }
  return 0;
}

bool defaults_agree(const Argument& a, const std::string& page_default) {
  if (a.out) return true;  // `out=(var, m, v)`: the page shows what to pass, not a default
  if (!a.default_value) return false;
  return ops::same_default_value(*a.default_value, page_default, sized_list(a));
}

// The kind of value a type admits, coarse enough that loose spellings agree ("List[int]",
// "list", "int[]" are one class) and precise enough that a Tensor documented as an int differs.
std::string type_class(std::string t) {
  t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* wrap : {"optional[", "typing.optional["}) {
    if (t.rfind(wrap, 0) == 0 && t.back() == ']') {
      t = t.substr(std::string(wrap).size(), t.size() - std::string(wrap).size() - 1);
    }
  }
  if (!t.empty() && t.back() == '?') t.pop_back();
  const bool list = t.find('[') != std::string::npos || t.rfind("list", 0) == 0 ||
                    t.rfind("tuple", 0) == 0 || t.rfind("sequence", 0) == 0;
  std::string base = t;
  for (const char* w : {"list[", "tuple[", "sequence[", "typing.list["}) {
    if (base.rfind(w, 0) == 0) base = base.substr(std::string(w).size());
  }
  base = base.substr(0, base.find_first_of("[],?"));
  if (base.rfind("torch.", 0) == 0) base = base.substr(6);
  std::string cls;
  if (base == "tensor") cls = "tensor";
  if (base == "int" || base == "int64" || base == "int64_t" || base == "symint" || base == "long")
    cls = "int";
  if (base == "float" || base == "double" || base == "float32") cls = "float";
  if (base == "bool" || base == "boolean") cls = "bool";
  if (base == "str" || base == "string") cls = "str";
  if (cls.empty()) return "";  // Scalar, dtype, Union[...]: nothing decided
  return list ? cls + "[]" : cls;
}

std::string schema_class(const Argument& a) {
  const std::string base = a.type.base;
  std::string cls;
  if (base == "Tensor") cls = "tensor";
  if (base == "int" || base == "SymInt") cls = "int";
  if (base == "float") cls = "float";
  if (base == "bool") cls = "bool";
  if (base == "str") cls = "str";
  if (cls.empty()) return "";
  return a.type.is_list() || a.type.suffix.find('[') != std::string::npos ? cls + "[]" : cls;
}

struct Finding {
  std::string kind;
  std::string where;  // prototype | parameters | example | page
  size_t line = 0;
  std::string parameter;
  std::string message;
  const Candidate* against;  // the overload compared with; null for template findings
};

// The prototype compared with one overload. Findings in page order.
std::vector<Finding> compare_prototype(const PagePrototype& p, const Candidate& c) {
  std::vector<Finding> out;
  const FunctionSchema& s = c.schema;
  const auto args = python_args(c);
  auto add = [&](const std::string& kind, size_t line, const std::string& param,
                 const std::string& message) {
    out.push_back({kind, "prototype", line, param, message, &c});
  };
  std::vector<int> page_to_schema(p.args.size(), -1);
  std::vector<bool> used(args.size(), false);
  // Where the page's `*` is misplaced, one finding per direction: it is one marker.
  std::vector<const PageArg*> kw_but_positional;
  std::vector<const PageArg*> positional_but_kw;
  for (size_t i = 0; i < p.args.size(); ++i) {
    for (size_t j = 0; j < args.size(); ++j) {
      if (!used[j] && same_name(p.args[i].name, *args[j])) {
        page_to_schema[i] = static_cast<int>(j);
        used[j] = true;
        break;
      }
    }
  }
  // A page name that is no schema name, paired with a missing schema name at the same
  // position or a near spelling: one renamed argument, not a missing one plus an extra one.
  for (size_t i = 0; i < p.args.size(); ++i) {
    if (page_to_schema[i] >= 0) continue;
    int best = -1;
    if (i < args.size() && !used[i]) {
      best = static_cast<int>(i);  // the same position
    } else {
      size_t best_d = 3;
      for (size_t j = 0; j < args.size(); ++j) {
        if (used[j]) continue;
        const size_t d = ops::edit_distance(p.args[i].name, args[j]->name);
        if (d < best_d) {
          best = static_cast<int>(j);
          best_d = d;
        }
      }
    }
    if (p.has_varargs) best = -1;
    if (best >= 0) {
      used[best] = true;
      page_to_schema[i] = best;
      add("misnamed-parameter", p.args[i].line, args[best]->name,
          "prototype: '" + p.args[i].name + "' is '" + args[best]->name + "' in the schema");
    }
  }
  for (size_t i = 0; i < p.args.size(); ++i) {
    if (page_to_schema[i] < 0) {
      add("extra-parameter", p.args[i].line, p.args[i].name,
          "prototype: '" + p.args[i].name + "' is not an argument of the schema");
      continue;
    }
    const Argument& a = *args[static_cast<size_t>(page_to_schema[i])];
    const PageArg& pa = p.args[i];
    if (pa.default_text) {
      if (!defaults_agree(a, *pa.default_text)) {
        add("wrong-default", pa.line, a.name,
            "prototype: '" + pa.name + "=" + *pa.default_text + "' but the schema " +
                (a.default_value ? "default is " + *a.default_value : "has no default"));
      }
    } else if (a.default_value) {
      add("wrong-default", pa.line, a.name,
          "prototype: '" + pa.name + "' is written without its default " + *a.default_value +
              " (the page makes it look required)");
    }
    if (pa.kwonly != a.kwarg_only && !p.has_varargs) {
      (a.kwarg_only ? kw_but_positional : positional_but_kw).push_back(&pa);
    }
    if (!pa.type.empty() && !a.out) {
      const std::string want = schema_class(a);
      const std::string got = type_class(pa.type);
      if (!want.empty() && !got.empty() && want != got) {
        add("wrong-type", pa.line, a.name,
            "prototype: '" + pa.name + "' is typed " + pa.type + "; the schema type is " +
                ops::print_type(a.type));
      }
    }
  }
  auto names = [](const std::vector<const PageArg*>& v) {
    std::string out;
    for (const PageArg* a : v) out += (out.empty() ? "" : ", ") + a->name;
    return out;
  };
  if (!kw_but_positional.empty()) {
    add("keyword-only", kw_but_positional.front()->line, kw_but_positional.front()->name,
        "prototype: " + names(kw_but_positional) +
            (kw_but_positional.size() == 1 ? " is" : " are") +
            " keyword-only in the schema but positional on the page (the '*' is missing or "
            "later)");
  }
  if (!positional_but_kw.empty()) {
    add("keyword-only", positional_but_kw.front()->line, positional_but_kw.front()->name,
        "prototype: " + names(positional_but_kw) +
            (positional_but_kw.size() == 1 ? " is" : " are") +
            " positional in the schema but after '*' on the page");
  }
  if (!p.has_varargs) {
    for (size_t j = 0; j < args.size(); ++j) {
      if (used[j]) continue;
      add("missing-parameter", p.line, args[j]->name,
          "prototype: schema argument '" + args[j]->name + "' (" + ops::print_type(args[j]->type) +
              ") is missing");
    }
  }
  // Positional order: the schema's positional arguments in the page's order. The order of
  // keyword-only arguments does not matter to a caller.
  std::vector<int> order;
  for (size_t i = 0; i < p.args.size(); ++i) {
    const int j = page_to_schema[i];
    if (j >= 0 && !args[static_cast<size_t>(j)]->kwarg_only && !p.args[i].kwonly) {
      order.push_back(j);
    }
  }
  for (size_t k = 1; k < order.size(); ++k) {
    if (order[k] > order[k - 1]) continue;
    const Argument& a = *args[static_cast<size_t>(order[k])];
    size_t line = p.line;
    for (size_t i = 0; i < p.args.size(); ++i) {
      if (page_to_schema[i] == order[k]) line = p.args[i].line;
    }
    add("order", line, a.name,
        "prototype: positional argument '" + a.name + "' comes before '" +
            args[static_cast<size_t>(order[k - 1])]->name +
            "' in the schema; a positional call binds by this order");
    break;
  }
  if (p.return_count >= 0 && static_cast<size_t>(p.return_count) != s.returns.size()) {
    add("return", p.line, "",
        "prototype: returns " + std::to_string(p.return_count) + " value(s) (" + p.returns_text +
            "); the schema returns " + std::to_string(s.returns.size()));
  }
  return out;
}

// The parameter section against the page's own prototype (names), and its stated defaults and
// types against the schema. Without a prototype the names are compared with the schema.
std::vector<Finding> compare_params(const ApiPage& page, const PagePrototype* proto,
                                    const Candidate& c) {
  std::vector<Finding> out;
  const auto args = python_args(c);
  auto add = [&](const std::string& kind, size_t line, const std::string& param,
                 const std::string& message) {
    out.push_back({kind, "parameters", line, param, message, &c});
  };
  // The names the items should have: the prototype's, or the schema's.
  std::vector<std::string> expected;
  if (proto != nullptr) {
    for (const PageArg& a : proto->args) expected.push_back(a.name);
  } else {
    for (const Argument* a : args) {
      if (!a->out) expected.push_back(a->name == "self" ? "input" : a->name);
    }
  }
  auto schema_arg = [&](const std::string& page_name) -> const Argument* {
    for (const Argument* a : args) {
      if (same_name(page_name, *a)) return a;
    }
    return nullptr;
  };
  std::vector<bool> used(expected.size(), false);
  std::vector<const PageParamItem*> unknown;
  for (const PageParamItem& item : page.params) {
    bool hit = false;
    for (size_t j = 0; j < expected.size() && !hit; ++j) {
      if (used[j]) continue;
      const Argument* a = schema_arg(expected[j]);
      if (item.name == expected[j] || (a != nullptr && same_name(item.name, *a))) {
        used[j] = hit = true;
      }
    }
    if (!hit) {
      unknown.push_back(&item);
      continue;
    }
    const Argument* a = schema_arg(item.name);
    if (a == nullptr) continue;  // named like the prototype, which differs from the schema
    // A default the page states next to a schema default of None usually describes what None
    // does ("默认值为int8"): only two concrete values can disagree.
    // The same wrong default in the prototype and the item is one mistake, reported there.
    const PageArg* in_proto = nullptr;
    if (proto != nullptr) {
      for (const PageArg& pa : proto->args) {
        if (pa.name == item.name) in_proto = &pa;
      }
    }
    const bool as_prototype = in_proto != nullptr && in_proto->default_text && item.default_text &&
                              ops::same_default_value(*in_proto->default_text, *item.default_text);
    if (item.default_text && a->default_value && *a->default_value != "None" && !as_prototype &&
        !ops::same_default_value(*a->default_value, *item.default_text, sized_list(*a))) {
      add("wrong-default", item.line, a->name,
          "parameters: '" + item.name + "' says the default is " + *item.default_text +
              "; the schema default is " + *a->default_value);
    }
    if (!item.type.empty() && !a->out) {
      const std::string want = schema_class(*a);
      const std::string got = type_class(item.type);
      if (!want.empty() && !got.empty() && want != got) {
        add("wrong-type", item.line, a->name,
            "parameters: '" + item.name + "' is documented as " + item.type +
                "; the schema type is " + ops::print_type(a->type));
      }
    }
  }
  const std::string against = proto != nullptr ? "the prototype" : "the schema";
  for (const PageParamItem* item : unknown) {
    // The members of an `out=(var, m, v)` tuple described one by one.
    const Argument* member = nullptr;
    for (const Argument& a : c.schema.arguments) {
      if (a.out && a.name == item->name) member = &a;
    }
    const bool has_out = std::find(expected.begin(), expected.end(), "out") != expected.end();
    if (member != nullptr && (has_out || proto == nullptr)) continue;
    // A near spelling of a name still without item: one misnamed item.
    int best = -1;
    size_t best_d = 3;
    for (size_t j = 0; j < expected.size(); ++j) {
      if (used[j]) continue;
      const size_t d = ops::edit_distance(item->name, expected[j]);
      if (d < best_d) {
        best = static_cast<int>(j);
        best_d = d;
      }
    }
    if (best >= 0) {
      used[static_cast<size_t>(best)] = true;
      const Argument* a = schema_arg(expected[static_cast<size_t>(best)]);
      add("misnamed-parameter", item->line, a != nullptr ? a->name : expected[best],
          "parameters: '" + item->name + "' is '" + expected[best] + "' in " + against);
      continue;
    }
    add("extra-parameter", item->line, item->name,
        "parameters: '" + item->name + "' is not an argument of " + against);
  }
  for (size_t j = 0; j < expected.size(); ++j) {
    if (used[j]) continue;
    const Argument* a = schema_arg(expected[j]);
    // Checked against the schema, an out tensor is often described under the returns; the page's
    // own prototype showing `out=` is another matter.
    if (proto == nullptr && a != nullptr && a->out) continue;
    // `out` described through the members of its tuple (var, m, v).
    if (a != nullptr && a->out) {
      bool members = false;
      for (const PageParamItem& item : page.params) {
        for (const Argument& x : c.schema.arguments)
          members = members || (x.out && x.name == item.name);
      }
      if (members) continue;
    }
    add("missing-parameter", page.params_heading_line, a != nullptr ? a->name : expected[j],
        "parameters: '" + expected[j] + "' of " + against + " has no item");
  }
  return out;
}

// Whether a call binds to the overload: positional values within the positional arguments,
// keywords named like arguments, every argument without default given.
std::vector<Finding> compare_call(const PageCall& call, const Candidate& c) {
  std::vector<Finding> out;
  const auto args = python_args(c);
  auto add = [&](const std::string& param, const std::string& message) {
    out.push_back({"example", "example", call.line, param, message, &c});
  };
  bool splat = false;
  for (const auto& [k, v] : call.keywords) splat = splat || k == "**";
  size_t n_positional = 0;
  for (const Argument* a : args) n_positional += a->kwarg_only ? 0 : 1;
  if (call.positional.size() > n_positional) {
    add("", "example passes " + std::to_string(call.positional.size()) +
                " positional arguments; the schema has " + std::to_string(n_positional));
  }
  std::set<std::string> given;
  for (const auto& [k, v] : call.keywords) {
    if (k == "**") continue;
    const Argument* a = nullptr;
    for (const Argument* x : args) {
      if (same_name(k, *x)) a = x;
    }
    if (a == nullptr) {
      add(k, "example passes '" + k + "=', which the schema does not have");
    } else {
      given.insert(a->name);
    }
  }
  if (splat) return out;
  size_t idx = 0;
  for (const Argument* a : args) {
    const bool by_position = !a->kwarg_only && idx++ < call.positional.size();
    if (by_position || given.count(a->name) != 0 || a->default_value || a->type.is_optional() ||
        a->out) {
      continue;
    }
    add(a->name, "example omits required argument '" + a->name + "'");
  }
  return out;
}

std::vector<Candidate> candidates_of(const Json& input) {
  std::vector<Candidate> out;
  if (!input.contains("source") || input.contains("schema")) {
    const auto resolved = ops::resolve_ops(input, false);
    const auto& primary = resolved.front();
    out.push_back(make_candidate(primary.schema, primary.text, primary.file, primary.line));
    return out;
  }
  // Every overload of the Python function: the page may document any of them, and `op` may
  // name the function ("npu_max") rather than one overload ("npu_max.dim").
  ops::OpSource source;
  try {
    source = ops::load_source_file(ops::resolve_source_path(input.at("source").get<std::string>()));
  } catch (const std::exception& e) {
    throw invalid_argument(std::string("field 'source': ") + e.what());
  }
  const std::string op = input.value("op", "");
  std::string name = op;
  for (const ops::OpEntry& e : source.entries) {
    if (e.parsed.ok() && e.op_name() == op) name = python_name(*e.parsed.schema);
  }
  for (const ops::OpEntry& e : source.entries) {
    if (!e.parsed.ok() || python_name(*e.parsed.schema) != name) continue;
    if (e.section == "symint" || e.section == "autograd") continue;  // mirrors of an entry
    bool dup = false;
    for (const Candidate& c : out) dup = dup || c.text == e.schema_text;
    if (!dup)
      out.push_back(make_candidate(*e.parsed.schema, e.schema_text, source.file, e.where.line));
  }
  if (out.empty()) {
    // Not a function name either: resolve_ops says what is wrong and what is near.
    const auto resolved = ops::resolve_ops(input, false);
    const auto& primary = resolved.front();
    out.push_back(make_candidate(primary.schema, primary.text, primary.file, primary.line));
  }
  return out;
}

// Template checks: the house sections and the title (opt in: real pages vary in these).
void check_template(const ApiPage& page, const std::string& api, std::vector<Finding>* out) {
  static const std::vector<std::vector<std::string>> kSections = {
      {"产品支持情况", "Supported Products"},
      {"功能说明", "Description"},
      {"函数原型", "Prototype"},
      {"参数说明", "Parameters"},
      {"返回值说明", "返回值", "输出说明", "Return Values", "Returns"},
      {"约束说明", "Constraints"},
      {"调用示例", "Examples"}};
  if (page.title_line == 0) {
    out->push_back({"title", "page", 1, "", "no '# torch_npu." + api + "' title", nullptr});
  } else {
    const std::string want = "torch_npu." + api;
    const size_t at = page.title.find(want);
    const size_t after = at + want.size();
    const bool ok = at != std::string::npos &&
                    (after >= page.title.size() ||
                     !(std::isalnum(static_cast<unsigned char>(page.title[after])) != 0 ||
                       page.title[after] == '_'));
    if (!ok) {
      out->push_back(
          {"title", "page", page.title_line, "", "title names another API than " + want, nullptr});
    }
  }
  for (size_t si = 0; si < kSections.size(); ++si) {
    bool found = false;
    for (const PageSection& s : page.sections) {
      for (const std::string& n : kSections[si]) found = found || s.title == n;
    }
    if (found) continue;
    // Reported where it belongs: at the first later section that is present.
    size_t where = page.lines.empty() ? 1 : page.lines.back().number;
    bool placed = false;
    for (size_t later = si + 1; later < kSections.size() && !placed; ++later) {
      for (const PageSection& s : page.sections) {
        for (const std::string& n : kSections[later]) {
          if (!placed && s.title == n) {
            where = page.lines[s.heading].number;
            placed = true;
          }
        }
      }
    }
    out->push_back({"missing-section", "page", where, "",
                    "section '## " + kSections[si][0] +
                        "' is missing (house template order: 产品支持情况, 功能说明, 函数原型, "
                        "参数说明, 返回值说明, 约束说明, 调用示例)",
                    nullptr});
  }
}

}  // namespace

Json run_check(const Json& input) {
  const std::vector<Candidate> cands = candidates_of(input);
  std::string text;
  std::string doc_name = "doc";
  if (input.contains("doc_text")) {
    text = input.at("doc_text").get<std::string>();
  } else if (input.contains("doc")) {
    doc_name = input.at("doc").get<std::string>();
    std::ifstream f(doc_name, std::ios::binary);
    if (!f) {
      throw invalid_argument("field 'doc': cannot read " + doc_name + "; give the page's path");
    }
    std::ostringstream ss;
    ss << f.rdbuf();
    text = ss.str();
  } else {
    throw invalid_argument("check needs 'doc' (path of the page) or 'doc_text'");
  }
  const std::string api = python_name(cands.front().schema);
  const ApiPage page = read_api_page(text, api);
  std::vector<Finding> findings;
  if (input.value("template", false)) check_template(page, api, &findings);

  // Each prototype against the overload it documents: the one it disagrees with least.
  const Candidate* documented = &cands.front();
  bool has_proto_section = false;
  for (const PageSection& s : page.sections) {
    has_proto_section = has_proto_section || s.title == "函数原型" || s.title == "Prototype";
  }
  for (size_t i = 0; i < page.prototypes.size(); ++i) {
    std::vector<Finding> best;
    const Candidate* best_c = nullptr;
    // Names that do not exist weigh more than a misplaced '*' or a default: `out=None` without
    // '*' documents the .out overload badly, not the functional one with an extra argument.
    auto weight = [](const std::vector<Finding>& fs) {
      size_t w = 0;
      for (const Finding& f : fs) {
        const bool name = f.kind == "extra-parameter" || f.kind == "missing-parameter" ||
                          f.kind == "misnamed-parameter";
        w += name ? 2 : 1;
      }
      return w;
    };
    for (const Candidate& c : cands) {
      auto f = compare_prototype(page.prototypes[i], c);
      if (best_c == nullptr || weight(f) < weight(best)) {
        best = std::move(f);
        best_c = &c;
      }
    }
    if (i == 0) documented = best_c;
    findings.insert(findings.end(), best.begin(), best.end());
  }
  if (page.prototypes.empty() && has_proto_section) {
    findings.push_back({"prototype", "prototype", 0, "",
                        "no 'torch_npu." + api + "(' in the prototype section", &cands.front()});
    for (const PageSection& s : page.sections) {
      if (s.title == "函数原型" || s.title == "Prototype") {
        findings.back().line = page.lines[s.heading].number;
      }
    }
  }
  // The parameter items against the documented overload (or whichever they fit best when the
  // page has no prototype).
  if (page.params_heading_line != 0) {
    const PagePrototype* proto = page.prototypes.empty() ? nullptr : &page.prototypes.front();
    std::vector<Finding> best;
    bool first = true;
    for (const Candidate& c : cands) {
      if (proto != nullptr && &c != documented) continue;
      auto f = compare_params(page, proto, c);
      if (first || f.size() < best.size()) best = std::move(f);
      first = false;
    }
    findings.insert(findings.end(), best.begin(), best.end());
  }
  // Example calls: each must bind to some overload.
  for (const PageCall& call : page.calls) {
    std::vector<Finding> best;
    bool first = true;
    for (const Candidate& c : cands) {
      auto f = compare_call(call, c);
      if (first || f.size() < best.size()) best = std::move(f);
      first = false;
    }
    findings.insert(findings.end(), best.begin(), best.end());
  }
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding& a, const Finding& b) { return a.line < b.line; });
  Json list = Json::array();
  for (const Finding& f : findings) {
    Json j = {{"kind", f.kind}, {"where", f.where}, {"line", f.line}, {"message", f.message}};
    if (!f.parameter.empty()) j["parameter"] = f.parameter;
    const Candidate& c = f.against != nullptr ? *f.against : *documented;
    j["schema"] = c.text;
    if (c.line > 0) j["yaml_line"] = c.line;
    list.push_back(std::move(j));
  }
  Json overloads = Json::array();
  for (const Candidate& c : cands) overloads.push_back(c.text);
  return {{"mode", "check"},
          {"op", documented->schema.name.qualified()},
          {"doc", doc_name},
          {"overloads", overloads},
          {"read",
           {{"prototypes", page.prototypes.size()},
            {"parameter_items", page.params.size()},
            {"example_calls", page.calls.size()}}},
          {"findings", list},
          {"summary", {{"findings", list.size()}, {"ok", list.empty()}}}};
}

}  // namespace skillrt::op_apidoc
