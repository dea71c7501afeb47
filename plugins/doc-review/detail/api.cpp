#include "detail/api.hpp"
#include "optoolkit/default_value.hpp"
#include "optoolkit/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "detail/text.hpp"

namespace skillrt::doc_review::detail {

namespace {

std::vector<std::string> split_dots(std::string_view s) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find('.', b);
    if (e == std::string_view::npos) e = s.size();
    out.emplace_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

// Reads the arguments of the call whose '(' is at `open`: keyword names at depth 1.
size_t read_call(std::string_view t, size_t open, int line, std::vector<Keyword>* kws) {
  int depth = 0;
  char quote = 0;
  bool arg_start = true;
  for (size_t i = open; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '\n') ++line;
    if (quote) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '#' && depth > 0) {  // a comment inside a multi-line call
      while (i < t.size() && t[i] != '\n') ++i;
      --i;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      arg_start = false;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
      if (depth == 1) arg_start = true;
      continue;
    }
    if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) return i + 1;
      continue;
    }
    if (depth == 1 && c == ',') {
      arg_start = true;
      continue;
    }
    if (depth == 1 && arg_start && is_ident_start(c)) {
      size_t e = i;
      while (e < t.size() && is_ident_char(t[e])) ++e;
      size_t q = e;
      while (q < t.size() && (t[q] == ' ' || t[q] == '\t')) ++q;
      if (q < t.size() && t[q] == '=' && (q + 1 >= t.size() || t[q + 1] != '='))
        kws->push_back({std::string(t.substr(i, e - i)), line});
      arg_start = false;
      i = e - 1;
      continue;
    }
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') arg_start = false;
  }
  return t.size();
}

bool owned_by(const std::vector<std::string>& parts, const CodeIndex& code, std::string* reason) {
  const bool top_level = parts.size() == 2;
  const std::string& name = parts.back();
  switch (code.kind) {
    case CodeKind::kOpPlugin:
      // op-plugin defines torch_npu's npu_* operators; torch_npu's Python modules live elsewhere.
      if (top_level && starts_with(name, "npu_")) return true;
      *reason =
          "op-plugin defines the torch_npu.npu_* operators only; this name lives in torch_npu";
      return false;
    case CodeKind::kTorchNpu:
      // Top-level operators (npu_*, apply_rotary_pos_emb, ...) come from the op-plugin
      // submodule; without its YAML they cannot be judged.
      if (top_level && !code.has_op_plugin_yaml) {
        *reason =
            "torch_npu's top-level operators are defined in op-plugin "
            "(third_party/op-plugin), which this checkout lacks";
        return false;
      }
      if (top_level) return true;
      if (code.py_modules.count(parts[0] + "." + parts[1])) return true;
      *reason = "module " + parts[0] + "." + parts[1] + " is not in this checkout";
      return false;
    case CodeKind::kAscendC:
    case CodeKind::kGeneric:
      break;
  }
  *reason = "the checkout is not torch_npu or op-plugin";
  return false;
}

std::vector<std::string> nearest_names(const std::string& name, const CodeIndex& code) {
  std::vector<std::pair<size_t, std::string>> scored;
  const size_t limit = std::max<size_t>(2, name.size() / 4);
  auto consider = [&](const std::string& cand) {
    if (cand == name) return;
    const size_t len_diff =
        cand.size() > name.size() ? cand.size() - name.size() : name.size() - cand.size();
    if (len_diff > limit) return;
    const size_t d = edit_distance(name, cand);
    if (d <= limit) scored.emplace_back(d, cand);
  };
  for (const auto& [op, sigs] : code.ops) consider(op);
  for (const auto& [def, sigs] : code.py_defs) consider(def);
  std::sort(scored.begin(), scored.end());
  scored.erase(std::unique(scored.begin(), scored.end()), scored.end());
  std::vector<std::string> out;
  for (size_t k = 0; k < scored.size() && out.size() < 3; ++k) out.push_back(scored[k].second);
  return out;
}

void add_signatures(const std::vector<Signature>* sigs, ApiResolution* res) {
  if (!sigs) return;
  for (const Signature& s : *sigs) res->signatures.push_back(&s);
  if (!res->where && !sigs->empty()) res->where = sigs->front().where;
}

}  // namespace

std::vector<ApiRef> find_api_refs(std::string_view t, int first_line) {
  std::vector<ApiRef> out;
  int line = first_line;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '\n') {
      ++line;
      continue;
    }
    if (t[i] != 't' || (i > 0 && (is_ident_char(t[i - 1]) || t[i - 1] == '.'))) continue;
    const std::string_view rest = t.substr(i);
    if (!starts_with(rest, "torch_npu.") && !starts_with(rest, "torch.ops.") &&
        !starts_with(rest, "torch.npu."))
      continue;
    size_t e = i;
    while (e < t.size()) {
      if (!is_ident_start(t[e])) break;
      while (e < t.size() && is_ident_char(t[e])) ++e;
      if (e + 1 < t.size() && t[e] == '.' && is_ident_start(t[e + 1])) {
        ++e;
        continue;
      }
      break;
    }
    ApiRef ref;
    ref.name = std::string(t.substr(i, e - i));
    ref.line = line;
    size_t q = e;
    while (q < t.size() && (t[q] == ' ' || t[q] == '\t')) ++q;
    if (q < t.size() && t[q] == '(') {
      ref.call = true;
      read_call(t, q, line, &ref.keywords);
    }
    if (std::count(ref.name.begin(), ref.name.end(), '.') >= 1) out.push_back(std::move(ref));
    i = e - 1;
  }
  return out;
}

ApiResolution resolve_api(std::string_view dotted, const CodeIndex& code) {
  ApiResolution res;
  std::vector<std::string> parts = split_dots(dotted);
  if (parts.size() < 2) {
    res.reason = "not a dotted API name";
    return res;
  }
  // torch.ops.<namespace>.<op>[.<overload>]
  if (parts[0] == "torch" && parts[1] == "ops") {
    if (parts.size() < 4) {
      res.reason = "an operator namespace, not an operator";
      return res;
    }
    const std::string& ns = parts[2];
    const std::string& op = parts[3];
    const auto it = code.ops.find(op);
    if (it != code.ops.end()) {
      res.status = ApiStatus::kFound;
      add_signatures(&it->second, &res);
      return res;
    }
    if (code.op_namespaces.count(ns)) {
      res.status = ApiStatus::kMissing;
      res.nearest = nearest_names(op, code);
      return res;
    }
    res.reason = "the checkout registers no operators in namespace '" + ns + "'";
    return res;
  }
  // torch.npu.* is torch_npu.npu.* patched into torch.
  if (parts[0] == "torch" && parts[1] == "npu") parts[0] = "torch_npu";
  if (parts[0] != "torch_npu") {
    res.reason = "not a torch_npu name";
    return res;
  }
  const std::string& name = parts.back();
  std::string joined = parts[0];
  for (size_t k = 1; k < parts.size(); ++k) joined += "." + parts[k];
  if (parts.size() == 2) {
    const auto op = code.ops.find(name);
    if (op != code.ops.end()) {
      res.status = ApiStatus::kFound;
      add_signatures(&op->second, &res);
    }
  }
  // A Python def counts only where its module is the named one or a submodule of it (the
  // package re-exports it): a def of the same name elsewhere ("init", "step") is another function.
  const std::string parent = joined.substr(0, joined.rfind('.'));
  const auto def = code.py_defs.find(name);
  if (def != code.py_defs.end()) {
    for (const Signature& s : def->second) {
      if (s.module == parent || starts_with(s.module, parent + ".")) {
        res.status = ApiStatus::kFound;
        res.signatures.push_back(&s);
        if (!res.where) res.where = s.where;
      }
    }
  }
  if (res.status == ApiStatus::kFound) return res;
  if (code.py_modules.count(joined)) {
    res.status = ApiStatus::kFound;
    return res;
  }
  if (code.has_word(name)) {
    res.status = ApiStatus::kFound;
    res.where = code.word_location(name);
    return res;
  }
  if (!owned_by(parts, code, &res.reason)) return res;
  res.status = ApiStatus::kMissing;
  res.nearest = nearest_names(name, code);
  return res;
}

bool same_param_name(std::string_view doc, std::string_view code) {
  return doc == code || (doc == "input" && code == "self");
}

const Param* find_param(const std::vector<const Signature*>& sigs, std::string_view name) {
  for (const Signature* s : sigs)
    for (const Param& p : s->params)
      if (same_param_name(name, p.name) || (name == "out" && p.out)) return &p;
  return nullptr;
}

std::vector<Keyword> unknown_keywords(const ApiRef& ref, const ApiResolution& res) {
  std::vector<Keyword> out;
  if (res.signatures.empty()) return out;
  for (const Signature* s : res.signatures)
    if (s->open) return out;
  for (const Keyword& k : ref.keywords)
    if (!find_param(res.signatures, k.name)) out.push_back(k);
  return out;
}

bool same_default(std::string_view doc, std::string_view code) {
  std::string d(ops::trim_view(doc));
  while (d.size() >= 2 && d.front() == '`' && d.back() == '`') d = d.substr(1, d.size() - 2);
  return ops::same_default_value(d, code);
}

size_t edit_distance(std::string_view a, std::string_view b) { return ops::edit_distance(a, b); }

}  // namespace skillrt::doc_review::detail
