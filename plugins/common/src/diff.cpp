#include "optoolkit/diff.hpp"

#include <map>
#include <utility>

namespace skillrt::ops {
namespace {

using Keyed = std::vector<std::pair<std::string, const OpEntry*>>;

// Keys are op names; a name seen again (op-plugin lists one op per disjoint version range)
// gets "#N" so that the N-th occurrence is compared with the N-th occurrence.
Keyed key_entries(const OpSource& source) {
  Keyed out;
  std::map<std::string, int> seen;
  for (const OpEntry& e : source.entries) {
    std::string key = e.op_name();
    const int n = ++seen[key];
    if (n > 1) key += "#" + std::to_string(n);
    out.emplace_back(std::move(key), &e);
  }
  return out;
}

OpRef ref(const std::string& key, const OpEntry& e) {
  return OpRef{key, e.section, e.schema_text, e.where};
}

std::optional<std::string> opt(const std::optional<std::string>& s) { return s; }
std::optional<std::string> annotation_text(const std::optional<Annotation>& a) {
  if (!a) return std::nullopt;
  return print_annotation(*a);
}

void add(std::vector<OpChange>* out, std::string what, std::string subject,
         std::optional<std::string> old_value, std::optional<std::string> new_value) {
  out->push_back(
      OpChange{std::move(what), std::move(subject), std::move(old_value), std::move(new_value)});
}

void diff_schemas(const FunctionSchema& a, const FunctionSchema& b, std::vector<OpChange>* out) {
  if (a.name.qualified() != b.name.qualified()) {
    add(out, "name", "name", a.name.qualified(), b.name.qualified());
  }
  auto index_of = [](const FunctionSchema& s, const std::string& name) -> std::optional<size_t> {
    for (size_t i = 0; i < s.arguments.size(); ++i) {
      if (s.arguments[i].name == name) return i;
    }
    return std::nullopt;
  };
  for (size_t i = 0; i < a.arguments.size(); ++i) {
    const Argument& x = a.arguments[i];
    const auto j = index_of(b, x.name);
    if (!j) {
      add(out, "argument_removed", x.name, print_argument(x), std::nullopt);
      continue;
    }
    const Argument& y = b.arguments[*j];
    if (x.type != y.type) add(out, "argument_type", x.name, print_type(x.type), print_type(y.type));
    if (x.default_value != y.default_value) {
      add(out, "argument_default", x.name, opt(x.default_value), opt(y.default_value));
    }
    if (x.annotation != y.annotation) {
      add(out, "argument_annotation", x.name, annotation_text(x.annotation),
          annotation_text(y.annotation));
    }
    if (x.kwarg_only != y.kwarg_only || x.out != y.out) {
      auto group = [](const Argument& g) {
        return std::string(g.out ? "out" : g.kwarg_only ? "kwarg_only" : "positional");
      };
      add(out, "argument_kwarg_only", x.name, group(x), group(y));
    }
  }
  // Order among the arguments both sides share: a reorder is a positional-API break.
  std::vector<std::string> common_a;
  std::vector<std::string> common_b;
  for (const Argument& x : a.arguments) {
    if (index_of(b, x.name)) common_a.push_back(x.name);
  }
  for (const Argument& y : b.arguments) {
    if (index_of(a, y.name)) common_b.push_back(y.name);
  }
  for (size_t i = 0; i < common_a.size(); ++i) {
    if (common_a[i] != common_b[i]) {
      add(out, "argument_moved", common_b[i], std::to_string(*index_of(a, common_b[i])),
          std::to_string(*index_of(b, common_b[i])));
      break;
    }
  }
  for (const Argument& y : b.arguments) {
    if (!index_of(a, y.name)) add(out, "argument_added", y.name, std::nullopt, print_argument(y));
  }
  const size_t n = std::max(a.returns.size(), b.returns.size());
  for (size_t i = 0; i < n; ++i) {
    const std::string subject = "return " + std::to_string(i + 1);
    if (i >= b.returns.size()) {
      add(out, "return_removed", subject, print_return(a.returns[i]), std::nullopt);
      continue;
    }
    if (i >= a.returns.size()) {
      add(out, "return_added", subject, std::nullopt, print_return(b.returns[i]));
      continue;
    }
    const Return& x = a.returns[i];
    const Return& y = b.returns[i];
    if (x.type != y.type) add(out, "return_type", subject, print_type(x.type), print_type(y.type));
    if (x.name != y.name) add(out, "return_name", subject, opt(x.name), opt(y.name));
    if (x.annotation != y.annotation) {
      add(out, "return_annotation", subject, annotation_text(x.annotation),
          annotation_text(y.annotation));
    }
  }
  if (a.kind != b.kind) {
    add(out, "kind", "kind", std::string(to_string(a.kind)), std::string(to_string(b.kind)));
  }
}

void diff_keys(const OpEntry& a, const OpEntry& b, const std::string& schema_key,
               std::vector<OpChange>* out) {
  for (const auto& [key, value] : a.keys.items()) {
    if (key == schema_key) continue;
    const Json* other = b.key(key);
    if (other == nullptr) {
      add(out, "key_removed", key, value.dump(), std::nullopt);
    } else if (*other != value) {
      add(out, "key_changed", key, value.dump(), other->dump());
    }
  }
  for (const auto& [key, value] : b.keys.items()) {
    if (key != schema_key && a.key(key) == nullptr) {
      add(out, "key_added", key, std::nullopt, value.dump());
    }
  }
}

}  // namespace

SourceDiff diff_sources(const OpSource& old_source, const OpSource& new_source) {
  SourceDiff d;
  const Keyed old_keyed = key_entries(old_source);
  const Keyed new_keyed = key_entries(new_source);
  std::map<std::string, const OpEntry*> new_by_key(new_keyed.begin(), new_keyed.end());
  std::map<std::string, const OpEntry*> old_by_key(old_keyed.begin(), old_keyed.end());
  const std::string schema_key = new_source.format == SourceFormat::kDerivatives ||
                                         new_source.format == SourceFormat::kOpPluginDerivatives
                                     ? "name"
                                     : "func";
  for (const auto& [key, a] : old_keyed) {
    const auto it = new_by_key.find(key);
    if (it == new_by_key.end()) {
      d.removed.push_back(ref(key, *a));
      continue;
    }
    const OpEntry& b = *it->second;
    ChangedOp c{ref(key, *a), ref(key, b), {}};
    if (a->schema_text != b.schema_text) {
      if (a->parsed.ok() && b.parsed.ok()) {
        diff_schemas(*a->parsed.schema, *b.parsed.schema, &c.changes);
      }
      // Text differs but the model does not (cannot happen for schemas that round-trip), or
      // one side does not parse: report the texts so nothing goes unnoticed.
      if (c.changes.empty())
        add(&c.changes, "schema_text", schema_key, a->schema_text, b.schema_text);
    }
    if (a->section != b.section) add(&c.changes, "key_changed", "section", a->section, b.section);
    diff_keys(*a, b, schema_key, &c.changes);
    if (c.changes.empty()) {
      ++d.unchanged;
    } else {
      d.changed.push_back(std::move(c));
    }
  }
  for (const auto& [key, b] : new_keyed) {
    if (old_by_key.find(key) == old_by_key.end()) d.added.push_back(ref(key, *b));
  }
  return d;
}

}  // namespace skillrt::ops
