#include "apidoc.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "detail/op_input.hpp"
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
  const auto ops_found = op_test::detail::resolve_ops(input, false);
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

namespace {

struct DocLine {
  size_t number;
  std::string text;
};

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// Splits "a, b=[1, 2], *, c" at top-level commas.
std::vector<std::string> split_args(const std::string& text) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  bool quote = false;
  for (char c : text) {
    if (c == '\'' || c == '"') quote = !quote;
    if (!quote && (c == '(' || c == '[' || c == '{')) ++depth;
    if (!quote && (c == ')' || c == ']' || c == '}')) --depth;
    if (!quote && depth == 0 && c == ',') {
      out.push_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

// The text between the parenthesis after `open` and its match, possibly over several lines;
// `end_line` receives the index of the line holding the closing parenthesis.
std::string call_args(const std::vector<DocLine>& lines, size_t i, size_t pos, size_t* end_line) {
  int depth = 0;
  std::string out;
  for (size_t k = i; k < lines.size(); ++k) {
    const std::string& t = lines[k].text;
    for (size_t p = (k == i ? pos : 0); p < t.size(); ++p) {
      const char c = t[p];
      if (c == '(') {
        if (depth++ == 0) continue;
      }
      if (c == ')' && --depth == 0) {
        *end_line = k;
        return out;
      }
      if (depth > 0) out += c;
    }
    out += ' ';
  }
  *end_line = lines.size() - 1;
  return out;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t prev = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cur = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
      prev = cur;
    }
  }
  return row[b.size()];
}

bool type_matches(const std::string& doc, const Argument& a) {
  std::string d;
  for (char c : doc)
    if (c != ' ') d += c;
  const std::string t = ops::print_type(a.type);
  if (d == t) return true;
  const std::string base = a.type.base;
  const bool list = a.type.suffix.find('[') != std::string::npos;
  const std::map<std::string, std::vector<std::string>> kAliases = {
      {"Tensor", {"Tensor", "torch.Tensor"}},
      {"int", {"int", "int64_t"}},
      {"SymInt", {"int", "SymInt"}},
      {"float", {"float", "double"}},
      {"bool", {"bool"}},
      {"str", {"str", "string"}},
      {"Scalar", {"Scalar", "float", "int", "Number"}},
      {"ScalarType", {"ScalarType", "torch.dtype", "dtype", "int"}},
  };
  auto it = kAliases.find(base);
  if (it == kAliases.end()) return d.find(base) != std::string::npos;
  for (const auto& alias : it->second) {
    if (list) {
      if (d.find("List[" + alias + "]") != std::string::npos ||
          d.find("list[" + alias + "]") != std::string::npos || d.rfind(alias + "[", 0) == 0 ||
          d.find("Sequence[" + alias) != std::string::npos)
        return true;
    } else {
      std::string dd = d;
      if (dd.size() > 1 && dd.back() == '?') dd.pop_back();
      if (dd.rfind("Optional[", 0) == 0) dd = dd.substr(9, dd.size() - 10);
      if (dd == alias) return true;
    }
  }
  return false;
}

}  // namespace

Json run_check(const Json& input) {
  const auto ops_found = op_test::detail::resolve_ops(input, false);
  const FunctionSchema& s = ops_found.front().schema;
  std::string text, doc_name = "doc";
  if (input.contains("doc_text")) {
    text = input.at("doc_text").get<std::string>();
  } else if (input.contains("doc")) {
    doc_name = input.at("doc").get<std::string>();
    std::ifstream f(doc_name, std::ios::binary);
    if (!f)
      throw invalid_argument("field 'doc': cannot read " + doc_name + "; give the page's path");
    std::ostringstream ss;
    ss << f.rdbuf();
    text = ss.str();
  } else {
    throw invalid_argument("check needs 'doc' (path of the page) or 'doc_text'");
  }
  std::vector<DocLine> lines;
  {
    std::istringstream in(text);
    std::string l;
    size_t n = 0;
    while (std::getline(in, l)) lines.push_back({++n, l});
  }
  const std::string name = python_name(s);
  const std::string schema_text = ops_found.front().text;
  Json findings = Json::array();
  auto finding = [&](const std::string& kind, size_t line, const std::string& message,
                     const std::string& param = "") {
    Json f = {{"kind", kind}, {"line", line}, {"message", message}, {"schema", schema_text}};
    if (!param.empty()) f["parameter"] = param;
    findings.push_back(f);
  };

  // Headings.
  std::vector<std::pair<size_t, std::string>> headings;  // index into lines, text
  bool fence = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string t = trim(lines[i].text);
    if (t.rfind("```", 0) == 0) fence = !fence;
    if (fence) continue;
    if (t.rfind("## ", 0) == 0) {
      std::string h = trim(t.substr(3));
      const size_t a = h.find("<a");
      if (a != std::string::npos) h = trim(h.substr(0, a));
      headings.push_back({i, h});
    }
  }
  size_t title_line = 0;
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].text.rfind("# ", 0) == 0) {
      title_line = i + 1;
      std::string t = lines[i].text;
      std::string clean;
      for (char c : t)
        if (c != '\\') clean += c;
      if (clean.find("torch_npu." + name) == std::string::npos ||
          (clean.size() > clean.find("torch_npu." + name) + 10 + name.size() &&
           (std::isalnum(static_cast<unsigned char>(
                clean[clean.find("torch_npu." + name) + 10 + name.size()])) ||
            clean[clean.find("torch_npu." + name) + 10 + name.size()] == '_')))
        finding("title", i + 1, "title names another API than torch_npu." + name);
      break;
    }
  if (title_line == 0) finding("title", 1, "no '# torch_npu." + name + "' title");

  std::map<std::string, std::pair<size_t, size_t>> section_range;  // canonical -> [begin, end)
  for (size_t si = 0; si < kSections.size(); ++si) {
    const auto& sec = kSections[si];
    bool found = false;
    for (size_t h = 0; h < headings.size(); ++h)
      for (const auto& n : sec.names)
        if (headings[h].second == n) {
          found = true;
          const size_t end = h + 1 < headings.size() ? headings[h + 1].first : lines.size();
          section_range[sec.names[0]] = {headings[h].first, end};
        }
    if (!found) {
      // Where it belongs: before the first later section that is present.
      size_t where = lines.size();
      for (size_t later = si + 1; later < kSections.size() && where == lines.size(); ++later)
        for (const auto& h : headings)
          for (const auto& n : kSections[later].names)
            if (h.second == n && where == lines.size()) where = h.first;
      finding("missing-section", where < lines.size() ? lines[where].number : lines.size(),
              "section '## " + sec.names[0] +
                  "' is missing (house template order: 产品支持情况, 功能说明, 函数原型, 参数说明, "
                  "返回值说明, 约束说明, 调用示例)");
    }
  }

  const auto visible = visible_args(s);
  auto schema_arg = [&](const std::string& n) -> const Argument* {
    for (const Argument* a : visible)
      if (a->name == n) return a;
    return nullptr;
  };
  // Names present on the page but not in the schema, matched to the nearest missing schema
  // name: one misnamed parameter, not a missing one plus an extra one.
  auto compare_names = [&](const std::vector<std::pair<std::string, size_t>>& page,
                           const std::string& where, size_t fallback_line) {
    std::vector<std::string> missing;
    for (const Argument* a : visible) {
      bool seen = false;
      for (const auto& p : page) seen = seen || p.first == a->name;
      if (!seen) missing.push_back(a->name);
    }
    std::vector<std::string> used;
    for (const auto& p : page) {
      if (schema_arg(p.first)) continue;
      std::string best;
      size_t best_d = 3;
      for (const auto& m : missing) {
        const size_t d = edit_distance(p.first, m);
        if (d < best_d && std::find(used.begin(), used.end(), m) == used.end()) {
          best = m;
          best_d = d;
        }
      }
      if (!best.empty()) {
        used.push_back(best);
        finding("misnamed-parameter", p.second,
                where + ": '" + p.first + "' should be '" + best + "'", best);
      } else {
        finding("extra-parameter", p.second, where + ": '" + p.first + "' is not in the schema",
                p.first);
      }
    }
    for (const auto& m : missing)
      if (std::find(used.begin(), used.end(), m) == used.end())
        finding("missing-parameter", fallback_line,
                where + ": schema parameter '" + m + "' is missing", m);
  };

  // Prototype.
  if (section_range.count("函数原型")) {
    const auto [b, e] = section_range["函数原型"];
    const std::string needle = "torch_npu." + name + "(";
    bool seen = false;
    for (size_t i = b; i < e && !seen; ++i) {
      const size_t pos = lines[i].text.find(needle);
      if (pos == std::string::npos) continue;
      seen = true;
      size_t end = i;
      const std::string args = call_args(lines, i, pos + needle.size() - 1, &end);
      std::vector<std::pair<std::string, size_t>> page;
      bool star = false;
      for (const std::string& tok : split_args(args)) {
        if (tok == "*") {
          star = true;
          continue;
        }
        std::string pname = trim(tok.substr(0, tok.find('=')));
        const size_t colon = pname.find(':');
        if (colon != std::string::npos) pname = trim(pname.substr(0, colon));
        // The line of this parameter inside a multi-line prototype.
        size_t line = lines[i].number;
        for (size_t k = i; k <= end; ++k)
          if (std::regex_search(lines[k].text, std::regex("\\b" + pname + "\\b"))) {
            line = lines[k].number;
            break;
          }
        page.push_back({pname, line});
        const Argument* a = schema_arg(pname);
        if (!a) continue;
        const size_t eq = tok.find('=');
        const std::string written = eq == std::string::npos ? "" : trim(tok.substr(eq + 1));
        if (a->default_value && written.empty())
          finding(
              "wrong-default", line,
              "prototype: '" + pname + "' has no default; schema default is " + *a->default_value,
              pname);
        else if (!a->default_value && !written.empty())
          finding("wrong-default", line,
                  "prototype: '" + pname + "=" + written + "' but the schema has no default",
                  pname);
        else if (a->default_value && written != py_default(*a->default_value) &&
                 written != *a->default_value)
          finding("wrong-default", line,
                  "prototype: '" + pname + "=" + written + "' but the schema default is " +
                      *a->default_value,
                  pname);
        if (a->kwarg_only != star)
          finding("keyword-only", line,
                  "prototype: '" + pname + "' is " +
                      (a->kwarg_only ? "keyword-only" : "positional") +
                      " in the schema but written " + (star ? "after" : "before") + " '*'",
                  pname);
      }
      compare_names(page, "prototype", lines[i].number);
    }
    if (!seen)
      finding("prototype", lines[b].number,
              "no 'torch_npu." + name + "(' in the prototype section");
  }

  // Parameter list.
  if (section_range.count("参数说明")) {
    const auto [b, e] = section_range["参数说明"];
    static const std::regex kBullet(
        R"(^\s*[-*]\s+\*\*([A-Za-z_][A-Za-z0-9_]*)\*\*\s*[（(]`([^`]+)`[)）])");
    static const std::regex kDefault(
        R"((?:默认值为|默认为|default value:?|defaults? to)\s*[`]?([^`，。,;；\s]+))",
        std::regex::icase);
    std::vector<std::pair<std::string, size_t>> page;
    for (size_t i = b; i < e; ++i) {
      std::smatch m;
      if (!std::regex_search(lines[i].text, m, kBullet)) continue;
      const std::string pname = m[1].str(), type = m[2].str();
      page.push_back({pname, lines[i].number});
      const Argument* a = schema_arg(pname);
      if (!a) continue;
      if (!type_matches(type, *a))
        finding("wrong-type", lines[i].number,
                "parameters: '" + pname + "' is documented as `" + type +
                    "` but the schema type is " + ops::print_type(a->type),
                pname);
      std::smatch d;
      if (std::regex_search(lines[i].text, d, kDefault)) {
        std::string written = d[1].str();
        if (!written.empty() && written.back() == '.') written.pop_back();
        if (!a->default_value)
          finding(
              "wrong-default", lines[i].number,
              "parameters: '" + pname + "' says default " + written + " but the schema has none",
              pname);
        else if (written != *a->default_value && written != py_default(*a->default_value))
          finding("wrong-default", lines[i].number,
                  "parameters: '" + pname + "' says default " + written +
                      " but the schema default is " + *a->default_value,
                  pname);
      }
    }
    compare_names(page, "parameters", lines[b].number);
  }

  // Example calls.
  if (section_range.count("调用示例")) {
    const auto [b, e] = section_range["调用示例"];
    const std::string needle = "torch_npu." + name + "(";
    for (size_t i = b; i < e; ++i) {
      const size_t pos = lines[i].text.find(needle);
      if (pos == std::string::npos) continue;
      size_t end = i;
      const std::string args = call_args(lines, i, pos + needle.size() - 1, &end);
      size_t positional = 0;
      std::vector<std::string> given;
      for (const std::string& tok : split_args(args)) {
        const size_t eq = tok.find('=');
        const bool kw =
            eq != std::string::npos && tok.find("==") == std::string::npos &&
            std::regex_match(trim(tok.substr(0, eq)), std::regex("[A-Za-z_][A-Za-z0-9_]*"));
        if (!kw) {
          ++positional;
          continue;
        }
        const std::string k = trim(tok.substr(0, eq));
        given.push_back(k);
        if (!schema_arg(k))
          finding("example", lines[i].number,
                  "example passes '" + k + "=' which the schema does not have", k);
      }
      size_t n_positional = 0;
      for (const Argument* a : visible)
        if (!a->kwarg_only) ++n_positional;
      if (positional > n_positional)
        finding("example", lines[i].number,
                "example passes " + std::to_string(positional) +
                    " positional arguments; the schema has " + std::to_string(n_positional));
      size_t idx = 0;
      for (const Argument* a : visible) {
        const bool by_position = !a->kwarg_only && idx++ < positional;
        const bool by_name = std::find(given.begin(), given.end(), a->name) != given.end();
        if (!by_position && !by_name && !a->default_value && !a->type.is_optional())
          finding("example", lines[i].number, "example omits required parameter '" + a->name + "'",
                  a->name);
      }
    }
  }
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Json& a, const Json& b) { return a.at("line") < b.at("line"); });
  return {{"mode", "check"},
          {"op", s.name.qualified()},
          {"doc", doc_name},
          {"findings", findings},
          {"summary", {{"findings", findings.size()}, {"ok", findings.empty()}}}};
}

}  // namespace skillrt::op_apidoc
