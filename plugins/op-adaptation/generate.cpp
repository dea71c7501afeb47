#include "generate.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <system_error>

#include "cpp_scan.hpp"
#include "detail/text.hpp"
#include "optoolkit/sources.hpp"
#include "plugin_io/atomic_file.hpp"

namespace skillrt::opa {
namespace {

namespace fs = std::filesystem;
using ops::Argument;
using ops::FunctionSchema;

// ---- small text editing helpers -----------------------------------------------------------------

std::string version_text(const Json& spec) {
  if (spec.is_string()) return spec.get<std::string>();
  std::vector<std::string> parts;
  for (const Json& v : spec) parts.push_back(v.get<std::string>());
  return "[" + detail::join(parts, ", ") + "]";
}

std::string json_list(const Json& list) {
  std::vector<std::string> parts;
  for (const Json& v : list) parts.push_back(v.dump());
  return "[" + detail::join(parts, ", ") + "]";
}

// The baseline JSON's version list for a YAML version spec (test_compatibility semantics).
Json baseline_versions(const Json& spec, const std::vector<std::string>& all) {
  if (spec.is_string() && spec.get<std::string>() == "all_version")
    return Json::array({"all_version"});
  if (spec.is_array() && spec.size() == 2 && spec[1] == "newest") return spec;
  return Json(ops::parse_version_spec(spec, all).versions);
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) != 0) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

std::string yaml_scalar(const std::string& s) {
  if (is_identifier(s)) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// Inserts `block` (full lines) at the end of top-level section `section`, creating it at the
// end of the file when absent. Item indentation follows the section's first item.
std::string insert_in_section(const std::string& text, const std::string& section,
                              const std::string& entry_lines_at_indent0, std::string* indent_used) {
  const std::vector<std::string> lines = detail::split_lines(text);
  size_t sec = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == section + ":" || detail::starts_with(lines[i], section + ": ")) sec = i;
  }
  std::string indent = "  ";
  if (sec == lines.size()) {
    std::string out = text;
    if (!out.empty() && out.back() != '\n') out += '\n';
    out += "\n" + section + ":\n";
    for (const std::string& l : detail::split_lines(entry_lines_at_indent0)) {
      out += (l.empty() ? "" : indent + l) + "\n";
    }
    *indent_used = indent;
    return out;
  }
  size_t end = lines.size();
  for (size_t i = sec + 1; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (!l.empty() && l[0] != ' ' && l[0] != '#' && l[0] != '-' && l[0] != '\t') {
      end = i;
      break;
    }
    if (detail::trim(l).rfind("- ", 0) == 0 && indent == "  " && i == sec + 1) {
      indent = l.substr(0, l.find('-'));
    }
  }
  for (size_t i = sec + 1; i < end; ++i) {
    const std::string t = detail::trim(lines[i]);
    if (detail::starts_with(t, "- ")) {
      indent = lines[i].substr(0, lines[i].find('-'));
      break;
    }
  }
  size_t last = end;
  while (last > sec + 1 && detail::trim(lines[last - 1]).empty()) --last;
  std::vector<std::string> out(lines.begin(), lines.begin() + static_cast<long>(last));
  out.push_back("");
  for (const std::string& l : detail::split_lines(entry_lines_at_indent0)) {
    out.push_back(l.empty() ? "" : indent + l);
  }
  out.insert(out.end(), lines.begin() + static_cast<long>(last), lines.end());
  *indent_used = indent;
  std::string joined = detail::join(out, "\n");
  if (!text.empty() && text.back() == '\n') joined += '\n';
  return joined;
}

// [open, close] offsets of the JSON array that is the value of "key" inside the text range.
bool find_json_list(const std::string& text, const std::string& key, size_t from, size_t* open,
                    size_t* close) {
  const size_t k = text.find("\"" + key + "\"", from);
  if (k == std::string::npos) return false;
  size_t p = k + key.size() + 2;
  while (p < text.size() &&
         (std::isspace(static_cast<unsigned char>(text[p])) != 0 || text[p] == ':'))
    ++p;
  if (p >= text.size() || text[p] != '[') return false;
  *open = p;
  *close = text.find(']', p);
  return *close != std::string::npos;
}

std::string line_indent(const std::string& text, size_t pos) {
  const size_t b = text.rfind('\n', pos);
  const size_t start = b == std::string::npos ? 0 : b + 1;
  size_t e = start;
  while (e < text.size() && (text[e] == ' ' || text[e] == '\t')) ++e;
  return text.substr(start, e - start);
}

// Adds "name" to the list of `version` in the allowlist text; adds the version key when absent.
std::string allowlist_add(std::string text, const std::string& version, const std::string& name) {
  size_t open = 0;
  size_t close = 0;
  if (find_json_list(text, version, 0, &open, &close)) {
    const std::string inner = text.substr(open + 1, close - open - 1);
    if (inner.find("\"" + name + "\"") != std::string::npos) return text;
    if (detail::trim(inner).empty()) {
      const std::string ind = line_indent(text, open);
      text.replace(open, close - open + 1, "[\n" + ind + "  \"" + name + "\"\n" + ind + "]");
      return text;
    }
    const size_t last_quote = text.rfind('"', close);
    const std::string ind = line_indent(text, last_quote);
    text.insert(last_quote + 1, ",\n" + ind + "\"" + name + "\"");
    return text;
  }
  // A new version key after the last list of the torch_npu object.
  const size_t last_close = text.rfind(']');
  if (last_close == std::string::npos) return text;
  const std::string ind = line_indent(text, last_close);
  text.insert(last_close + 1,
              ",\n" + ind + "\"" + version + "\": [\n" + ind + "  \"" + name + "\"\n" + ind + "]");
  return text;
}

std::string allowlist_remove(std::string text, const std::string& version,
                             const std::string& name) {
  size_t open = 0;
  size_t close = 0;
  if (!find_json_list(text, version, 0, &open, &close)) return text;
  const size_t item = text.find("\"" + name + "\"", open);
  if (item == std::string::npos || item > close) return text;
  size_t item_end = item + name.size() + 2;
  size_t after = item_end;
  while (after < close && std::isspace(static_cast<unsigned char>(text[after])) != 0) ++after;
  if (text[after] == ',') {
    // Not the last item: drop it, its comma and the whitespace up to the next item.
    size_t next = after + 1;
    while (next < close && std::isspace(static_cast<unsigned char>(text[next])) != 0) ++next;
    size_t start = item;
    text.erase(start, next - start);
    return text;
  }
  // The last item: drop the comma before it as well.
  size_t prev = item;
  while (prev > open + 1 && std::isspace(static_cast<unsigned char>(text[prev - 1])) != 0) --prev;
  if (text[prev - 1] == ',') {
    text.erase(prev - 1, item_end - (prev - 1));
  } else {
    text.erase(open + 1, item_end - (open + 1));
  }
  return text;
}

// ---- C++ and Python spelling
// ----------------------------------------------------------------------

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

struct OutputSpec {
  std::string size;
  std::string dtype;
  std::string meta_shape;
};

struct OpPlan {
  FunctionSchema schema;
  std::string text;
  std::string section;
  std::string aclnn;
  Json versions;
  Json exposed;  // null when private
  bool structured = false;
  std::vector<OutputSpec> outputs;
};

const Argument* find_arg(const FunctionSchema& s, const std::string& name) {
  for (const Argument& a : s.arguments) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

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

std::string relative_inside(const std::string& suggested) {
  if (suggested.empty() || suggested[0] == '/' || suggested.find("..") != std::string::npos) {
    return "";
  }
  return suggested;
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

}  // namespace

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
      const auto it = cpp_namespaces().find(word);
      out += (it == cpp_namespaces().end() ? "" : it->second) + word;
      i = j;
      continue;
    }
    out += canonical[i];
    if (canonical[i] == ',') out += ' ';
    ++i;
  }
  return out;
}

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
    const Json& b = spec["backward"];
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
    const size_t nret = fwd.schema.returns.size();
    std::string bschema = b.value("schema", "");
    std::vector<std::string> grads;
    if (nret == 1) {
      grads.push_back("grad");
    } else {
      for (size_t i = 0; i < nret; ++i) grads.push_back("grads[" + std::to_string(i) + "]");
    }
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
    const std::string baclnn = b.value("aclnn", fwd.aclnn + "Grad");
    // Each gradient has the shape and dtype of the input it belongs to.
    Json grad_outputs = Json::array();
    for (const std::string& n : inputs) grad_outputs.push_back({{"size", n}, {"dtype", n}});
    OpPlan bwd =
        make_plan(Json(bschema), baclnn, versions, nullptr, false, section,
                  b.contains("schema") ? Json::array() : grad_outputs, "spec.backward.schema");
    if (!yaml.find(bwd.schema.name.qualified()).empty()) {
      set.notes.push_back("backward op " + bwd.schema.name.qualified() +
                          " already exists; only the derivatives entry is added");
    } else {
      plans.push_back(bwd);
    }
    std::string formula = b.value("formula", "");
    if (formula.empty()) {
      std::vector<std::string> args = grads;
      for (size_t i = nret; i < bwd.schema.arguments.size(); ++i) {
        args.push_back(bwd.schema.arguments[i].name);
      }
      formula = bwd.schema.name.base + "(" + detail::join(args, ", ") + ")";
    }
    deriv_entry = "- name: " + fwd.text + "\n";
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
  }

  // op_plugin_functions.yaml
  {
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
  for (const OpPlan& p : plans) {
    set.ops.push_back(p.schema.name.qualified());
    if (!p.structured) add_kernel(tree, &set, p);
    if (p.section == "custom") add_meta(tree, &set, p);
    add_baseline(tree, &set, p, yaml.all_version);
  }
  if (!deriv_entry.empty()) {
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
  if (!exposed.is_null()) {
    if (!tree.exists(kAllowlistJson)) {
      set.not_produced.emplace_back(
          "allowlist entry", std::string(kAllowlistJson) + " does not exist in this checkout");
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
  // Tests and the API doc come from their skills; a failed call leaves the part out.
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
  if (!exposed.is_null()) {
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
  if (spec.contains("chips") && !spec["chips"].empty()) {
    std::vector<std::string> chips;
    for (const Json& c : spec["chips"]) chips.push_back(c.get<std::string>());
    set.notes.push_back(
        "chip generations " + detail::join(chips, ", ") +
        " are not written into any file: op-plugin gates chips in tests (SupportedDevices) and "
        "the API page (产品支持情况), whose generators (op-test, op-apidoc) take no chip field in "
        "their agreed contract; add SupportedDevices([" +
        detail::join(chips, ", ") + "]) to the generated test by hand");
  }
  return set;
}

ChangeSet modify_op(const Tree& tree, const std::string& op, const Json& changes) {
  ChangeSet set;
  const auto yaml_text = tree.read(kFunctionsYaml);
  if (!yaml_text) {
    throw std::invalid_argument("op_plugin: no " + std::string(kFunctionsYaml) + " under '" +
                                tree.root().string() + "'");
  }
  const ops::OpSource yaml =
      ops::load_source_text(*yaml_text, kFunctionsYaml, ops::SourceFormat::kOpPluginFunctions);
  std::vector<const ops::OpEntry*> main;
  std::vector<const ops::OpEntry*> mirrors;
  for (const ops::OpEntry& e : yaml.entries) {
    if (e.op_name() != op) continue;
    (e.section == "symint" ? mirrors : main).push_back(&e);
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
  const FunctionSchema& s = *e.parsed.schema;
  // The version fields after the change.
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
  auto expand = [&](const char* k) {
    const auto it = fields.find(k);
    return it == fields.end() ? std::vector<std::string>()
                              : ops::parse_version_spec(it->second, yaml.all_version).versions;
  };
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
    for (const std::string& v : expand(k)) backends.insert(v);
  }
  for (const std::string& v : expand("exposed")) {
    if (backends.count(v) == 0) {
      throw std::invalid_argument("changes: exposed includes " + v +
                                  ", where the op would have no kernel; pass changes.exposed too");
    }
  }
  // YAML: rewrite the version lines of the entry and of its symint mirror.
  Change& y = set.edit(tree, kFunctionsYaml);
  std::vector<std::string> lines = detail::split_lines(y.after);
  struct LineEdit {
    size_t line;  // 1-based; insert after when insert == true
    bool insert;
    bool erase;
    std::string text;
  };
  std::vector<LineEdit> edits;
  auto plan_entry = [&](const ops::OpEntry& entry, bool mirror) {
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
          edits.push_back({kl->second, false, true, ""});
        } else {
          edits.push_back(
              {kl->second, false, false, key_indent + k + ": " + version_text(nf->second)});
        }
      } else if (nf != fields.end()) {
        edits.push_back({last_line, true, false, key_indent + k + ": " + version_text(nf->second)});
      }
    }
  };
  plan_entry(e, false);
  for (const ops::OpEntry* m : mirrors) plan_entry(*m, true);
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
  set.ops.push_back(op);
  // The forward's versions as a spec for dependent files.
  Json fwd_spec;
  {
    std::vector<std::string> ordered;
    for (const std::string& v : yaml.all_version) {
      if (backends.count(v) != 0) ordered.push_back(v);
    }
    const auto first = std::find(yaml.all_version.begin(), yaml.all_version.end(), ordered.front());
    const bool contiguous = std::equal(
        ordered.begin(), ordered.end(), first,
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
  }
  // derivatives.yaml: the backward's version follows the forward's.
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
  // Baseline: the key's version list follows the forward's.
  if (tree.exists(kBaselineJson)) {
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
  // Allowlist: exposed versions.
  if (changes.contains("exposed") && tree.exists(kAllowlistJson) && e.section == "custom") {
    Change& c = set.edit(tree, kAllowlistJson);
    const std::string name = s.name.full_base();
    const std::vector<std::string> old_v =
        e.key("exposed") != nullptr
            ? ops::parse_version_spec(*e.key("exposed"), yaml.all_version).versions
            : std::vector<std::string>();
    const std::vector<std::string> new_v = expand("exposed");
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
    (void)old_v;
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
