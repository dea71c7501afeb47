#include "interface.hpp"

#include <algorithm>
#include <tuple>

#include "detail/text.hpp"

namespace skillrt::opa {
namespace {

// torchnpugen/api/types: BaseTypeToCppMapping, namespaces dropped.
std::string base_cpp(const std::string& base, bool symint) {
  if (base == "int") return "int64_t";
  if (base == "float") return "double";
  if (base == "str") return "string_view";
  if (base == "SymInt") return symint ? "SymInt" : "int64_t";
  static const std::set<std::string> kSame = {
      "bool",   "Generator", "ScalarType",   "Tensor",  "Dimname", "DimVector", "Layout",
      "Device", "Scalar",    "MemoryFormat", "QScheme", "Storage", "Stream",    "DeviceIndex"};
  return kSame.count(base) != 0 ? base : std::string();
}

// A type with its suffixes applied left to right ("int[]?" = Optional(List(int))), mirroring
// torchnpugen/api/cpp.py: valuetype_type first, then argumenttype_type.
struct TypeView {
  std::string base;
  std::vector<ops::TypeSuffix> suffixes;  // applied left to right; the last is outermost
  bool is_base() const { return suffixes.empty(); }
  TypeView elem() const { return {base, {suffixes.begin(), suffixes.end() - 1}}; }
  const ops::TypeSuffix& outer() const { return suffixes.back(); }
  // A list (of any size) whose element type is exactly `elem_text`.
  bool is_list_of(const char* b, const char* elem_text) const {
    return !is_base() && outer().kind == ops::TypeSuffix::kList && elem().is(b, elem_text);
  }
  bool is(const char* b, const char* text) const {
    // "int[]" style comparison of the whole type
    std::string s = base;
    for (const ops::TypeSuffix& x : suffixes) {
      s += x.kind == ops::TypeSuffix::kOptional
               ? "?"
               : "[" + (x.size > 0 ? std::to_string(x.size) : std::string()) + "]";
    }
    return base == b && s == text;
  }
};

std::string value_type(const TypeView& t, bool symint) {
  if (t.is_base()) {
    if (t.base == "Tensor" || t.base == "Scalar") return "";
    return base_cpp(t.base, symint);
  }
  if (t.outer().kind == ops::TypeSuffix::kOptional) {
    const std::string e = value_type(t.elem(), symint);
    return e.empty() ? "" : "optional<" + e + ">";
  }
  if (t.elem().is_base() && t.base == "bool" && t.outer().size > 0) {
    return "array<bool," + std::to_string(t.outer().size) + ">";
  }
  return "";
}

std::string argument_type(const TypeView& t, bool mutable_arg, const GenFlags& g) {
  const bool symint = g.symint;
  const std::string v = value_type(t, symint);
  if (!v.empty()) return v;
  if (t.is_base()) {
    if (t.base == "Tensor")
      return mutable_arg && !g.const_ref_mutable ? "Tensor&" : "const Tensor&";
    if (t.base == "Scalar") return "const Scalar&";
    return "";
  }
  const TypeView e = t.elem();
  if (t.outer().kind == ops::TypeSuffix::kOptional) {
    if (e.is("Tensor", "Tensor")) {
      return mutable_arg && !g.const_ref_mutable ? "Tensor&" : "const optional<Tensor>&";
    }
    if (e.is("Scalar", "Scalar")) return "const optional<Scalar>&";
    if (e.is_list_of("int", "int")) return "OptionalIntArrayRef";
    if (e.is_list_of("SymInt", "SymInt")) {
      return symint ? "OptionalSymIntArrayRef" : "OptionalIntArrayRef";
    }
    const std::string inner = argument_type(e, mutable_arg, g);
    return inner.empty() ? "" : "optional<" + inner + ">";
  }
  // A list.
  if (e.is("int", "int")) return "IntArrayRef";
  if (e.is("SymInt", "SymInt")) return symint ? "SymIntArrayRef" : "IntArrayRef";
  if (e.is("Tensor", "Tensor")) return g.ilistref ? "const ITensorListRef&" : "TensorList";
  if (e.is("Scalar", "Scalar")) return "ArrayRef<Scalar>";
  if (e.is("Dimname", "Dimname")) return "DimnameList";
  if (e.is("Tensor", "Tensor?")) return "const List<optional<Tensor>>&";
  const std::string inner = argument_type(e, mutable_arg, g);
  return inner.empty() ? "" : "ArrayRef<" + inner + ">";
}

std::string return_type(const ops::Return& r, const GenFlags& g) {
  const TypeView t{r.type.base, r.type.suffixes()};
  const std::string v = value_type(t, true);  // the generator always keeps SymInt in returns
  if (!v.empty()) return v;
  if (t.is_base() && t.base == "Tensor") {
    if (!r.is_write()) return "Tensor";
    return g.const_ref_mutable ? "const Tensor&" : "Tensor&";
  }
  if (t.is_base() && t.base == "Scalar") return "Scalar";
  if (!t.is_base() && t.outer().kind == ops::TypeSuffix::kList && t.elem().is_base() &&
      t.base == "Tensor") {
    return "vector<Tensor>";
  }
  return "";
}

bool structured_delegate_without_interface(const ops::OpEntry& e) {
  // torchnpugen/gen.py should_generate_op_interface: the cat family keeps its interface.
  return e.key("structured_delegate") != nullptr && e.parsed.schema->name.base != "cat";
}

bool uses_ilistref(const ops::OpEntry& e) {
  // context.py: part of a structured group, or one of _FORCE_ILISTREF_TENSOR_LIST_OPS.
  const std::string& base = e.parsed.schema->name.base;
  const std::optional<bool> structured = e.flag("structured");
  return (structured && *structured) || e.key("structured_delegate") != nullptr ||
         base == "_scaled_mm_v2" || base == "_scaled_grouped_mm_v2";
}

}  // namespace

GenFlags InterfaceModel::flags(const ops::OpEntry& e, const std::string& version) const {
  GenFlags g;
  g.symint = symint_at(e.op_name(), version);
  g.ilistref = uses_ilistref(e);
  const std::optional<bool> c = e.flag("use_const_ref_for_mutable_tensors");
  g.const_ref_mutable = c && *c;
  return g;
}

bool Declaration::operator<(const Declaration& o) const {
  return std::tie(name, param_types, return_type) < std::tie(o.name, o.param_types, o.return_type);
}

bool Declaration::operator==(const Declaration& o) const {
  return name == o.name && param_types == o.param_types && return_type == o.return_type;
}

std::string Declaration::to_string() const {
  std::vector<std::string> parts;
  for (size_t i = 0; i < param_types.size(); ++i) {
    parts.push_back(param_types[i] + (i < param_names.size() ? " " + param_names[i] : ""));
  }
  return return_type + " " + name + "(" + detail::join(parts, ", ") + ")";
}

std::string generated_cpp_type(const ops::Argument& arg, const GenFlags& flags) {
  return argument_type(TypeView{arg.type.base, arg.type.suffixes()}, arg.is_write(), flags);
}

std::string generated_cpp_return(const ops::FunctionSchema& schema, const GenFlags& flags) {
  if (schema.returns.empty()) return "void";
  if (schema.returns.size() == 1) return return_type(schema.returns[0], flags);
  std::string out = "tuple<";
  for (size_t i = 0; i < schema.returns.size(); ++i) {
    const std::string r = return_type(schema.returns[i], flags);
    if (r.empty()) return "";
    out += (i > 0 ? "," : "") + r;
  }
  return out + ">";
}

std::string generated_cpp_name(const ops::FunctionSchema& schema, bool symint) {
  ops::OperatorName n = schema.name;
  n.ns.clear();
  std::string name = n.full_base();
  if (schema.kind == ops::SchemaKind::kOut) name += "_out";
  if (symint) name += "_symint";
  return name;
}

Declaration generated_declaration(const ops::FunctionSchema& schema, const GenFlags& flags) {
  Declaration d;
  d.name = generated_cpp_name(schema, flags.symint);
  d.return_type = generated_cpp_return(schema, flags);
  for (const ops::Argument& a : schema.arguments) {
    d.param_types.push_back(generated_cpp_type(a, flags));
    d.param_names.push_back(a.name);
  }
  return d;
}

InterfaceModel::InterfaceModel(const ops::OpSource& yaml) : yaml_(yaml) {
  for (const ops::OpEntry& e : yaml_.entries) {
    if (e.section != "symint") continue;
    // gen_op_plugin_functions.py keeps a symint entry for the versions it has a kernel in.
    for (const std::string& v : yaml_.all_version) {
      if (active_at(e, v)) symint_versions_[e.op_name()].insert(v);
    }
  }
}

std::vector<std::string> InterfaceModel::versions_of(const ops::OpEntry& e, const char* key) const {
  const ops::Json* v = e.key(key);
  if (v == nullptr) return {};
  return ops::parse_version_spec(*v, yaml_.all_version).versions;
}

bool InterfaceModel::active_at(const ops::OpEntry& e, const std::string& version) const {
  for (const char* k : {"op_api", "acl_op", "sparse"}) {
    const std::vector<std::string> vs = versions_of(e, k);
    if (std::find(vs.begin(), vs.end(), version) != vs.end()) return true;
  }
  return false;
}

bool InterfaceModel::symint_at(const std::string& op_name, const std::string& version) const {
  const auto it = symint_versions_.find(op_name);
  return it != symint_versions_.end() && it->second.count(version) != 0;
}

std::vector<Requirement> InterfaceModel::requirements(const ops::OpEntry& e) const {
  std::vector<Requirement> out;
  if (!e.parsed.ok()) return out;
  if (e.section != "official" && e.section != "custom" && e.section != "quant") return out;
  if (structured_delegate_without_interface(e)) return out;
  const ops::FunctionSchema& s = *e.parsed.schema;
  const std::string impl_name = e.text("impl_name");
  for (const char* ns : {"op_api", "acl_op"}) {
    // gen_struct_opapi writes the op_api kernel of a gen_opapi entry.
    if (std::string(ns) == "op_api" && e.key("gen_opapi") != nullptr) continue;
    for (const std::string& v : versions_of(e, ns)) {
      // gen_op_plugin_functions.py drops the quant section before v2.2.
      if (e.section == "quant" && (v == "v1.11" || v == "v2.0" || v == "v2.1")) continue;
      Declaration d = generated_declaration(s, flags(e, v));
      auto same = std::find_if(out.begin(), out.end(),
                               [&](const Requirement& r) { return r.ns == ns && r.decl == d; });
      if (same == out.end()) {
        out.push_back(Requirement{ns, std::move(d), impl_name, {}});
        same = out.end() - 1;
      }
      same->versions.push_back(v);
    }
  }
  return out;
}

std::vector<Declaration> InterfaceModel::header(const std::string& version) const {
  std::set<Declaration> all;
  for (const ops::OpEntry& e : yaml_.entries) {
    if (!e.parsed.ok() || !active_at(e, version)) continue;
    if (e.section != "official" && e.section != "custom" && e.section != "quant") continue;
    if (e.section == "quant" && (version == "v1.11" || version == "v2.0" || version == "v2.1")) {
      continue;
    }
    if (structured_delegate_without_interface(e)) continue;
    all.insert(generated_declaration(*e.parsed.schema, flags(e, version)));
  }
  return {all.begin(), all.end()};
}

}  // namespace skillrt::opa
