#include "apidoc.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "optoolkit/op_request.hpp"
#include "optoolkit/schema.hpp"

namespace skillrt::op_apidoc {

namespace {

using ops::Argument;
using ops::FunctionSchema;

struct Lang {
  const char* fill;  // placeholder prefix; the page marks facts the schema cannot give
  const char *products, *function, *prototype, *params, *returns, *constraints, *examples;
  const char *required, *optional, *default_is, *kw_only, *eager, *graph, *api;
};
const Lang kZh = {
    "【待补充】",
    "产品支持情况",
    "功能说明",
    "函数原型",
    "参数说明",
    "返回值说明",
    "约束说明",
    "调用示例",
    "必选参数",
    "可选参数",
    "默认值为",
    "代表其之前的参数是位置相关的，必须按照顺序输入；之后的参数是键值对赋值的可选参数。",
    "单算子模式调用",
    "图模式调用",
    "API功能："};
const Lang kEn = {"[TO FILL]",
                  "Supported Products",
                  "Description",
                  "Prototype",
                  "Parameters",
                  "Return Values",
                  "Constraints",
                  "Examples",
                  "required",
                  "optional",
                  "default value: ",
                  "marks that the parameters before it are positional and those after it are "
                  "keyword-only.",
                  "Single-operator mode",
                  "Graph mode",
                  "Function: "};

// Section headings a page must have, with the variants measured in op-plugin's pages.
struct Section {
  std::vector<std::string> names;
};
const std::vector<Section> kSections = {
    {{"产品支持情况", "Supported Products"}},
    {{"功能说明", "Description"}},
    {{"函数原型", "Prototype"}},
    {{"参数说明", "Parameters"}},
    {{"返回值说明", "返回值", "输出说明", "Return Values", "Returns"}},
    {{"约束说明", "Constraints"}},
    {{"调用示例", "Examples"}},
};

std::string py_default(const std::string& d) {
  if (d == "[]") return "[]";
  if (d == "contiguous_format") return "torch.contiguous_format";
  return d;
}

// The type as a page writes it: the schema type without alias annotations.
std::string doc_type(const Argument& a) { return ops::print_type(a.type); }

std::vector<const Argument*> visible_args(const FunctionSchema& s) {
  std::vector<const Argument*> out;
  for (const Argument& a : s.arguments)
    if (!a.out) out.push_back(&a);
  return out;
}

std::string python_name(const FunctionSchema& s) {
  std::string base = s.name.full_base();
  const size_t c = base.find("::");
  return c == std::string::npos ? base : base.substr(c + 2);
}

std::string prototype(const FunctionSchema& s) {
  std::string out = "torch_npu." + python_name(s) + "(";
  bool first = true, star = false;
  for (const Argument* a : visible_args(s)) {
    if (a->kwarg_only && !star) {
      out += first ? "*" : ", *";
      star = true;
      first = false;
    }
    out += (first ? "" : ", ") + a->name;
    if (a->default_value) out += "=" + py_default(*a->default_value);
    first = false;
  }
  out += ") -> ";
  if (s.returns.size() == 1) {
    out += ops::print_type(s.returns[0].type);
  } else {
    out += "(";
    for (size_t i = 0; i < s.returns.size(); ++i)
      out += (i ? ", " : "") + ops::print_type(s.returns[i].type);
    out += ")";
  }
  return out;
}

// Example variables are named after the parameter, except `self`, which cannot be a name inside
// the graph-mode Model.forward.
std::string var_name(const Argument& a) { return a.name == "self" ? "input" : a.name; }

std::string example_value(const Argument& a) {
  if (a.type.base == "Tensor")
    return a.type.suffix == "[]" ? "[x, x]" : "torch.randn(2, 16, dtype=torch.float16).npu()";
  if (a.type.base == "int" || a.type.base == "SymInt") return a.type.is_list() ? "[1]" : "1";
  if (a.type.base == "float") return "1.0";
  if (a.type.base == "bool") return "False";
  return "None";
}

}  // namespace

Json run_generate(const Json& input) {
  const auto ops_found = ops::resolve_ops(input, false);
  const FunctionSchema& s = ops_found.front().schema;
  const bool en = input.value("language", std::string("zh")) == "en";
  const Lang& L = en ? kEn : kZh;
  const Json facts = input.value("facts", Json::object());
  const Json pfacts = facts.value("params", Json::object());
  const std::string name = python_name(s);

  std::vector<std::string> lines;
  Json placeholders = Json::array();
  auto add = [&](const std::string& l) { lines.push_back(l); };
  auto fill = [&](const std::string& what) {
    placeholders.push_back({{"line", lines.size() + 1}, {"what", what}});
    return std::string(L.fill) + what;
  };
  add("# torch_npu." + name);
  add("");
  add(std::string("## ") + L.products);
  add("");
  add(en ? "| Product | Supported |" : "| 产品 | 是否支持 |");
  add("| --- | :---: |");
  const Json chips = facts.value("products", Json::object());
  if (chips.empty()) {
    add("| " +
        fill(en ? "product (e.g. <term>Atlas A2 training series</term>)"
                : "产品（如 <term>Atlas A2 训练系列产品</term>）") +
        " | √ |");
  } else {
    for (auto it = chips.begin(); it != chips.end(); ++it)
      add("| <term>" + it.key() + "</term> | " + (it.value().get<bool>() ? "√" : "×") + " |");
  }
  add("");
  add(std::string("## ") + L.function);
  add("");
  add(std::string("- ") + L.api +
      (facts.contains("summary") ? facts.at("summary").get<std::string>()
                                 : fill(en ? "what the API computes" : "接口功能与计算公式")));
  add("");
  add(std::string("## ") + L.prototype);
  add("");
  add("```python");
  add(prototype(s));
  add("```");
  add("");
  add(std::string("## ") + L.params);
  add("");
  bool star = false;
  for (const Argument* a : visible_args(s)) {
    if (a->kwarg_only && !star) {
      add(std::string("- **\\***：") + L.kw_only);
      star = true;
    }
    const Json pf = pfacts.value(a->name, Json::object());
    std::string l = "- **" + a->name + "** (`" + doc_type(*a) + "`)" + (en ? ": " : "：") +
                    (a->default_value || a->type.is_optional() ? L.optional : L.required) +
                    (en ? ". " : "，");
    l += pf.contains("description") ? pf.at("description").get<std::string>()
                                    : fill(en ? "meaning of " + a->name : a->name + " 的含义");
    if (a->type.base == "Tensor") {
      l += en ? ". Data types: " : "。数据类型支持";
      l += pf.contains("dtypes") ? pf.at("dtypes").get<std::string>()
                                 : fill(en ? "dtypes" : "数据类型");
      l += en ? "; format ND" : "，数据格式支持ND";
      if (pf.contains("shape"))
        l += (en ? "; shape " : "，shape为") + pf.at("shape").get<std::string>();
    }
    if (a->default_value)
      l += std::string(en ? ". " : "。") + L.default_is + py_default(*a->default_value);
    add(l + (en ? "." : "。"));
  }
  add("");
  add(std::string("## ") + L.returns);
  add("");
  for (size_t i = 0; i < s.returns.size(); ++i) {
    const auto& r = s.returns[i];
    const std::string rname =
        r.name ? *r.name : (s.returns.size() > 1 ? "out" + std::to_string(i) : "out");
    add("- **" + rname + "** (`" + ops::print_type(r.type) + "`)" + (en ? ": " : "：") +
        fill(en ? "meaning, shape and dtype of output " + std::to_string(i)
                : "第" + std::to_string(i) + "个输出的含义、shape与数据类型"));
  }
  add("");
  add(std::string("## ") + L.constraints);
  add("");
  if (facts.contains("constraints")) {
    for (const auto& c : facts.at("constraints")) add("- " + c.get<std::string>());
  } else {
    add("- " + fill(en ? "constraints per chip generation" : "各产品型号的约束"));
  }
  add("");
  add(std::string("## ") + L.examples);
  add("");
  std::string call = "torch_npu." + name + "(";
  std::vector<std::string> setup;
  bool first = true;
  for (const Argument* a : visible_args(s)) {
    if (a->default_value || a->type.is_optional()) continue;
    if (a->type.base == "Tensor") setup.push_back(var_name(*a) + " = " + example_value(*a));
    const std::string v = a->type.base == "Tensor" ? var_name(*a) : example_value(*a);
    call += (first ? "" : ", ") + (a->kwarg_only ? a->name + "=" + v : v);
    first = false;
  }
  call += ")";
  add(std::string("- ") + L.eager);
  add("");
  add("    ```python");
  add("    # " + fill(en ? "input shapes and dtypes the op accepts"
                         : "按算子约束填写输入的 shape 与数据类型"));
  add("    import torch");
  add("    import torch_npu");
  for (const auto& l : setup) add("    " + l);
  add("    result = " + call);
  add("    ```");
  add("");
  add(std::string("- ") + L.graph);
  add("");
  add("    ```python");
  add("    import torch");
  add("    import torch_npu");
  add("    import torchair");
  add("    from torchair.configs.compiler_config import CompilerConfig");
  add("    config = CompilerConfig()");
  add("    npu_backend = torchair.get_npu_backend(compiler_config=config)");
  add("");
  add("    class Model(torch.nn.Module):");
  std::string params;
  for (const Argument* a : visible_args(s))
    if (!a->default_value && !a->type.is_optional() && a->type.base == "Tensor")
      params += ", " + a->name;
  add("        def forward(self" + params + "):");
  add("            return " + call);
  add("");
  add("    model = torch.compile(Model().npu(), backend=npu_backend, dynamic=False)");
  for (const auto& l : setup) add("    " + l);
  add("    result = model(" + (params.empty() ? std::string() : params.substr(2)) + ")");
  add("    ```");
  std::string content;
  for (const auto& l : lines) content += l + "\n";
  const std::string path =
      input.value("path", std::string(en ? "docs/en/custom_APIs/torch_npu/torch_npu-"
                                         : "docs/zh/custom_APIs/torch_npu/torch_npu-") +
                              name + ".md");
  return {{"mode", "generate"},
          {"op", s.name.qualified()},
          {"language", en ? "en" : "zh"},
          {"doc", {{"path", path}, {"content", content}}},
          {"placeholders", placeholders}};
}

}  // namespace skillrt::op_apidoc
