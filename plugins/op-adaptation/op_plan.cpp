// The C++ and Python spelling of an op: kernels, Meta functions, YAML entries and baseline keys
// written from an OpPlan.
#include "detail/op_plan.hpp"

#include <cctype>
#include <map>
#include <set>
#include <stdexcept>

#include "cpp_scan.hpp"
#include "detail/file_edits.hpp"
#include "detail/text.hpp"
#include "optoolkit/sources.hpp"
#include "tree.hpp"

namespace skillrt::opa {

namespace detail {

namespace {

const std::map<std::string, std::string>& cpp_namespaces() {
  static const std::map<std::string, std::string> k = {{"Tensor", "at::"},
                                                       {"TensorList", "at::"},
                                                       {"IntArrayRef", "at::"},
                                                       {"OptionalIntArrayRef", "at::"},
                                                       {"Scalar", "at::"},
                                                       {"ScalarType", "at::"},
                                                       {"ArrayRef", "at::"},
                                                       {"Layout", "at::"},
                                                       {"Device", "at::"},
                                                       {"MemoryFormat", "at::"},
                                                       {"Dimname", "at::"},
                                                       {"DimnameList", "at::"},
                                                       {"Generator", "at::"},
                                                       {"optional", "c10::"},
                                                       {"SymInt", "c10::"},
                                                       {"SymIntArrayRef", "c10::"},
                                                       {"OptionalSymIntArrayRef", "c10::"},
                                                       {"string_view", "c10::"},
                                                       {"List", "c10::"},
                                                       {"array", "std::"},
                                                       {"tuple", "std::"},
                                                       {"vector", "std::"},
                                                       {"string", "std::"}};
  return k;
}

std::string torch_dtype(const std::string& at_const) {
  static const std::map<std::string, std::string> k = {
      {"at::kFloat", "torch.float32"},     {"at::kHalf", "torch.float16"},
      {"at::kBFloat16", "torch.bfloat16"}, {"at::kInt", "torch.int32"},
      {"at::kLong", "torch.int64"},        {"at::kBool", "torch.bool"},
      {"at::kChar", "torch.int8"},         {"at::kByte", "torch.uint8"},
      {"at::kDouble", "torch.float64"},    {"at::kShort", "torch.int16"}};
  const auto it = k.find(at_const);
  return it == k.end() ? "" : it->second;
}

}  // namespace

const Argument* find_arg(const FunctionSchema& s, const std::string& name) {
  for (const Argument& a : s.arguments) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

namespace {

std::vector<std::string> output_names(const FunctionSchema& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.returns.size(); ++i) {
    std::string n = s.returns[i].name ? *s.returns[i].name
                                      : (s.returns.size() == 1 ? "out" : "out" + std::to_string(i));
    while (find_arg(s, n) != nullptr) n += "_npu";
    out.push_back(n);
  }
  return out;
}

// The tensor whose options new outputs take: the first Tensor argument, else the first element
// of the first Tensor[] argument.
std::string like_tensor(const FunctionSchema& s) {
  for (const Argument& a : s.arguments) {
    if (a.type.is_plain("Tensor")) return a.name;
  }
  for (const Argument& a : s.arguments) {
    if (a.type.base == "Tensor" && a.type.suffix == "[]") return a.name + "[0]";
  }
  return "";
}

// An output spec names a tensor (whose shape or dtype it copies) rather than an expression.
bool names_tensor(const FunctionSchema& s, const std::string& text) {
  return find_arg(s, text) != nullptr || (!text.empty() && text == like_tensor(s));
}

std::string kernel_function(const OpPlan& p) {
  const FunctionSchema& s = p.schema;
  const std::string name = expected_cpp_name(s);
  std::vector<std::string> params;
  for (const Argument& a : s.arguments) {
    params.push_back(spell_cpp_type(expected_cpp_type(a)) + " " + a.name);
  }
  std::string body;
  std::vector<std::string> exec_args;
  for (const Argument& a : s.arguments) {
    if (a.out) continue;
    if (a.type.base == "SymInt" && a.type.is_list()) {
      body += "    auto " + a.name + "_int = c10::asIntArrayRefUnchecked(" + a.name + ");\n";
      exec_args.push_back(a.name + "_int");
    } else if (a.type.is_plain("SymInt")) {
      body += "    int64_t " + a.name + "_int = " + a.name + ".expect_int();\n";
      exec_args.push_back(a.name + "_int");
    } else if (a.type.is_plain("str")) {
      // aclnn takes a C string; the view is not guaranteed to be terminated, so copy it.
      body += "    std::string " + a.name + "_str = std::string(" + a.name + ");\n";
      body += "    char* " + a.name + "_ptr = const_cast<char*>(" + a.name + "_str.c_str());\n";
      exec_args.push_back(a.name + "_ptr");
    } else {
      exec_args.push_back(a.name);
    }
  }
  std::string ret;
  if (s.kind == ops::SchemaKind::kInplace) {
    const std::string self = s.arguments.front().name;
    body += "    EXEC_NPU_CMD(" + p.aclnn + ", " + detail::join(exec_args, ", ") + ");\n";
    ret = "    return " + self + ";\n";
  } else if (s.kind == ops::SchemaKind::kOut) {
    std::vector<std::string> outs;
    std::vector<std::string> inputs;
    for (const Argument& a : s.arguments) {
      if (a.out) outs.push_back(a.name);
      if (!a.out && a.type.is_plain("Tensor")) inputs.push_back(a.name);
    }
    for (const std::string& o : outs) {
      body += "    npu_preparation::check_tensor({" + detail::join(inputs, ", ") + "}, " + o +
              ", " + o + ".scalar_type(), " + o + ".sizes());\n";
    }
    std::vector<std::string> all = exec_args;
    all.insert(all.end(), outs.begin(), outs.end());
    body += "    EXEC_NPU_CMD(" + p.aclnn + ", " + detail::join(all, ", ") + ");\n";
    ret = outs.size() == 1
              ? "    return " + outs[0] + ";\n"
              : "    return std::forward_as_tuple(" + detail::join(outs, ", ") + ");\n";
  } else {
    const std::vector<std::string> outs = output_names(s);
    for (size_t i = 0; i < outs.size(); ++i) {
      const OutputSpec& o = p.outputs[i];
      const std::string size = names_tensor(s, o.size) ? o.size + ".sizes()" : o.size;
      const std::string like = like_tensor(s);
      const std::string options = names_tensor(s, o.dtype)
                                      ? o.dtype + ".options()"
                                      : like + ".options().dtype(" + o.dtype + ")";
      body += "    at::Tensor " + outs[i] + " = npu_preparation::apply_tensor_without_format(" +
              size + ", " + options + ");\n";
    }
    std::vector<std::string> all = exec_args;
    all.insert(all.end(), outs.begin(), outs.end());
    body += "    EXEC_NPU_CMD(" + p.aclnn + ", " + detail::join(all, ", ") + ");\n";
    ret = outs.size() == 1 ? "    return " + outs[0] + ";\n"
          : outs.empty()   ? ""
                           : "    return std::make_tuple(" + detail::join(outs, ", ") + ");\n";
  }
  std::string head =
      spell_cpp_type(expected_cpp_return(s)) + " " + name + "(" + detail::join(params, ", ") + ")";
  if (head.size() > 100) {
    // One parameter per line, as clang-format lays out long kernel signatures.
    head = spell_cpp_type(expected_cpp_return(s)) + " " + name + "(\n    " +
           detail::join(params, ",\n    ") + ")";
  }
  return head + "\n{\n" + body + ret + "}\n";
}

}  // namespace

namespace {

const char* kLicense =
    "// Copyright (c) 2025 Huawei Technologies Co., Ltd\n"
    "// All rights reserved.\n"
    "//\n"
    "// Licensed under the BSD 3-Clause License  (the \"License\");\n"
    "// you may not use this file except in compliance with the License.\n"
    "// You may obtain a copy of the License at\n"
    "//\n"
    "// https://opensource.org/licenses/BSD-3-Clause\n"
    "//\n"
    "// Unless required by applicable law or agreed to in writing, software\n"
    "// distributed under the License is distributed on an \"AS IS\" BASIS,\n"
    "// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.\n"
    "// See the License for the specific language governing permissions and\n"
    "// limitations under the License.\n\n";

}  // namespace

// Adds the kernel to its file: a new file in house layout, or before the closing namespace of
// an existing one.
void add_kernel(const Tree& tree, ChangeSet* set, const OpPlan& p) {
  const std::string path =
      std::string(kOpApiDir) + "/" + detail::kernel_stem(p.schema.name.base) + "KernelNpuOpApi.cpp";
  Change& c = set->edit(tree, path);
  const std::string fn = kernel_function(p);
  const size_t close = c.after.rfind("}  // namespace op_api");
  if (!c.after.empty() && close != std::string::npos) {
    c.after.insert(close, "\n" + fn);
  } else {
    c.after = std::string(kLicense) +
              "#include \"op_plugin/OpApiInterface.h\"\n"
              "#include \"op_plugin/AclOpsInterface.h\"\n"
              "#include \"op_plugin/utils/op_api_common.h\"\n\n"
              "namespace op_api {\n"
              "using npu_preparation = at_npu::native::OpPreparation;\n\n" +
              fn + "\n}  // namespace op_api\n";
  }
  c.what.push_back("op_api::" + expected_cpp_name(p.schema) + " calling " + p.aclnn);
}

namespace {

std::string python_default(const std::string& schema_default) {
  if (schema_default == "Mean") return "1";
  if (schema_default == "Sum") return "2";
  return schema_default;
}

// The Meta function; empty with `why` set when an output's shape cannot be written in Python.
std::string meta_function(const OpPlan& p, std::string* why) {
  const FunctionSchema& s = p.schema;
  const std::string op = s.name.qualified();
  std::vector<std::string> params;
  bool star = false;
  for (const Argument& a : s.arguments) {
    if (a.kwarg_only && !star) {
      params.push_back("*");
      star = true;
    }
    params.push_back(a.name + (a.default_value ? "=" + python_default(*a.default_value) : ""));
  }
  std::vector<std::string> rets;
  if (s.kind == ops::SchemaKind::kInplace) {
    rets.push_back(s.arguments.front().name);
  } else if (s.kind == ops::SchemaKind::kOut) {
    for (const Argument& a : s.arguments) {
      if (a.out) rets.push_back(a.name);
    }
  } else {
    for (size_t i = 0; i < s.returns.size(); ++i) {
      const OutputSpec& o = p.outputs[i];
      std::string dtype;
      if (names_tensor(s, o.dtype)) {
        dtype = o.dtype == o.size ? "" : ", dtype=" + o.dtype + ".dtype";
      } else if (o.dtype.find("::") == std::string::npos) {
        dtype = ", dtype=" + like_tensor(s) + ".dtype";
      } else {
        const std::string t = torch_dtype(o.dtype);
        if (t.empty()) {
          *why = "output " + std::to_string(i) + " dtype '" + o.dtype +
                 "' has no torch spelling known to the generator; give an input name or one of "
                 "at::kFloat, at::kHalf, at::kBFloat16, at::kInt, at::kLong, at::kBool, at::kChar, "
                 "at::kByte, at::kDouble, at::kShort";
          return "";
        }
        dtype = ", dtype=" + t;
      }
      if (names_tensor(s, o.size)) {
        rets.push_back("torch.empty_like(" + o.size + dtype + ")");
      } else if (!o.meta_shape.empty()) {
        rets.push_back(like_tensor(s) + ".new_empty(" + o.meta_shape + dtype + ")");
      } else {
        *why = "output " + std::to_string(i) + " size '" + o.size +
               "' is a C++ expression; give outputs[" + std::to_string(i) +
               "].meta_shape (a Python shape expression) to generate the Meta function";
        return "";
      }
    }
  }
  std::string ret = rets.size() == 1 ? rets[0] : "(" + detail::join(rets, ", ") + ")";
  std::string fname = s.name.base + (s.name.inplace ? "_" : "");
  if (!s.name.overload.empty()) fname += "_" + s.name.overload;
  return "\n\n@impl(m, \"" + op + "\")\ndef " + fname + "_meta(" + detail::join(params, ", ") +
         "):\n    return " + ret + "\n";
}

}  // namespace

void add_meta(const Tree& tree, ChangeSet* set, const OpPlan& p) {
  std::string why;
  const std::string fn = meta_function(p, &why);
  if (fn.empty()) {
    set->not_produced.emplace_back("Meta registration of " + p.schema.name.qualified(), why);
    return;
  }
  Change& c = set->edit(tree, kMetaPy);
  if (c.after.empty()) {
    c.after =
        "import torch\n"
        "from torch.library import Library, impl\n\n"
        "m = Library(\"npu\", \"IMPL\", \"Meta\")\n"
        "m_aten = Library(\"aten\", \"IMPL\", \"Meta\")\n";
  }
  if (!c.after.empty() && c.after.back() != '\n') c.after += '\n';
  while (detail::ends_with(c.after, "\n\n")) c.after.pop_back();
  c.after += fn;
  c.what.push_back("Meta kernel for " + p.schema.name.qualified());
}

std::string yaml_entry(const OpPlan& p, bool symint_mirror) {
  std::string e = "- func: " + p.text + "\n";
  e += "  op_api: " + version_text(p.versions) + "\n";
  if (symint_mirror) return e;
  if (!p.exposed.is_null()) e += "  exposed: " + version_text(p.exposed) + "\n";
  if (p.structured) {
    e += "  gen_opapi:\n";
    const FunctionSchema& s = p.schema;
    if (s.kind == ops::SchemaKind::kFunctional) {
      const std::vector<std::string> outs = output_names(s);
      for (size_t i = 0; i < outs.size(); ++i) {
        std::string key = s.returns[i].name
                              ? *s.returns[i].name
                              : (outs.size() == 1 ? "out" : "out" + std::to_string(i));
        e += "    " + key + ":\n";
        e += "      size: " + yaml_scalar(p.outputs[i].size) + "\n";
        e += "      dtype: " + yaml_scalar(p.outputs[i].dtype) + "\n";
      }
    } else if (s.kind == ops::SchemaKind::kOut) {
      for (const Argument& a : s.arguments) {
        if (a.out) e += "    " + a.name + ": {}\n";
      }
    }
    e += "    exec: " + p.aclnn + "\n";
  }
  return e;
}

void add_baseline(const Tree& tree, ChangeSet* set, const OpPlan& p,
                  const std::vector<std::string>& all) {
  if (!tree.exists(kBaselineJson)) {
    set->not_produced.emplace_back("schema baseline entry of " + p.schema.name.qualified(),
                                   std::string(kBaselineJson) +
                                       " does not exist in this checkout; add '\"func: " + p.text +
                                       "\": {\"version\": [...]}' where your baseline lives");
    return;
  }
  Change& c = set->edit(tree, kBaselineJson);
  const std::string key = Json("func: " + p.text).dump();
  if (c.after.find(key) != std::string::npos) return;
  const size_t end = c.after.rfind('}');
  if (end == std::string::npos) {
    throw std::invalid_argument(std::string(kBaselineJson) + " is not a JSON object; fix it first");
  }
  size_t prev = end;
  while (prev > 0 && std::isspace(static_cast<unsigned char>(c.after[prev - 1])) != 0) --prev;
  const size_t first_key = c.after.find('"');
  const std::string ind =
      first_key != std::string::npos && first_key < end ? line_indent(c.after, first_key) : "    ";
  const std::string value =
      key + ": {\"version\": " + json_list(baseline_versions(p.versions, all)) + "}";
  if (prev > 0 && c.after[prev - 1] == '{') {
    c.after.insert(prev, "\n" + ind + value + "\n");
  } else {
    c.after.insert(prev, ",\n" + ind + value);
  }
  c.what.push_back("baseline key func: " + p.schema.name.qualified());
}

OpPlan make_plan(const Json& spec_schema, const std::string& aclnn, const Json& versions,
                 const Json& exposed, bool structured, const std::string& section,
                 const Json& outputs_spec, const std::string& field) {
  OpPlan p;
  p.text = spec_schema.get<std::string>();
  const ops::SchemaParseResult r =
      ops::parse_schema(p.text, ops::grammar_for(ops::SourceFormat::kOpPluginFunctions));
  if (!r.ok()) {
    throw std::invalid_argument(field + ": schema '" + p.text + "' does not parse: " +
                                r.error.to_string() + "; write it as in op_plugin_functions.yaml");
  }
  p.schema = *r.schema;
  p.aclnn = aclnn;
  p.versions = versions;
  p.exposed = exposed;
  p.structured = structured;
  p.section = section;
  const std::string first_tensor = like_tensor(p.schema);
  if (p.schema.kind == ops::SchemaKind::kFunctional) {
    for (size_t i = 0; i < p.schema.returns.size(); ++i) {
      if (p.schema.returns[i].type.base != "Tensor" || !p.schema.returns[i].type.suffix.empty()) {
        throw std::invalid_argument(field + ": return " + std::to_string(i) +
                                    " is not a Tensor; the generator allocates Tensor outputs "
                                    "only, write this kernel by hand");
      }
      OutputSpec o;
      if (outputs_spec.is_array() && i < outputs_spec.size()) {
        o.size = outputs_spec[i].value("size", "");
        o.dtype = outputs_spec[i].value("dtype", "");
        o.meta_shape = outputs_spec[i].value("meta_shape", "");
      }
      if (o.size.empty()) o.size = first_tensor;
      if (o.dtype.empty()) o.dtype = first_tensor;
      if (o.size.empty() || o.dtype.empty()) {
        throw std::invalid_argument(field + ": the op has no Tensor input to take output " +
                                    std::to_string(i) + "'s shape from; give spec.outputs[" +
                                    std::to_string(i) + "].size and .dtype");
      }
      p.outputs.push_back(o);
    }
  }
  return p;
}

}  // namespace detail

std::string spell_cpp_type(const std::string& canonical) {
  std::string out;
  size_t i = 0;
  while (i < canonical.size()) {
    if (std::isalpha(static_cast<unsigned char>(canonical[i])) != 0 || canonical[i] == '_') {
      size_t j = i;
      while (j < canonical.size() &&
             (std::isalnum(static_cast<unsigned char>(canonical[j])) != 0 || canonical[j] == '_')) {
        ++j;
      }
      const std::string word = canonical.substr(i, j - i);
      const auto it = detail::cpp_namespaces().find(word);
      out += (it == detail::cpp_namespaces().end() ? "" : it->second) + word;
      i = j;
      continue;
    }
    out += canonical[i];
    if (canonical[i] == ',') out += ' ';
    ++i;
  }
  return out;
}

}  // namespace skillrt::opa
