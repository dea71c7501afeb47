// verify, the public-API rules: what op-plugin's CI tests check against the YAML (the schema
// baseline of test_compatibility, the public-API allowlist), and a unit test and an API page for
// each op.
#include <algorithm>
#include <cstdlib>
#include <map>

#include "detail/text.hpp"
#include "detail/verify_checker.hpp"

namespace skillrt::opa::detail {

namespace {

// 1-based line of the first occurrence of `needle` in `text`, 0 when absent.
size_t line_of(const std::string& text, const std::string& needle, size_t from = 0) {
  const size_t pos = text.find(needle, from);
  if (pos == std::string::npos) return 0;
  return static_cast<size_t>(
             std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n')) +
         1;
}

// test_compatibility.py's parse_func_str: the name is the text before '(', the signature what
// str.split(name)[1] leaves, i.e. the text up to the name's next occurrence (so "repeat(...
// SymInt[] repeats)" keeps "(Tensor self, SymInt[] ", on both sides alike).
std::pair<std::string, std::string> py_parse_func_str(const std::string& func) {
  const size_t open = func.find('(');
  if (open == std::string::npos) return {func, ""};
  const std::string name = func.substr(0, open);
  const size_t next = func.find(name, name.size());
  return {name, func.substr(name.size(),
                            next == std::string::npos ? std::string::npos : next - name.size())};
}

std::vector<std::string> py_split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t at = s.find(sep); at != std::string::npos; at = s.find(sep, start)) {
    out.push_back(s.substr(start, at - start));
    start = at + sep.size();
  }
  out.push_back(s.substr(start));
  return out;
}

// test_compatibility.py's is_not_compatibility, step for step (op-adaptation.md 7.2): the
// returns after the first "->" equal; every old parameter token still present; new tokens
// carry a default; the old required tokens a prefix of the new ones.
bool bc_compatible(const std::string& base_sig, const std::string& new_sig) {
  const auto base_io = py_split(base_sig, "->");
  const auto new_io = py_split(new_sig, "->");
  const std::string base_in = detail::trim(base_io[0]);
  const std::string new_in = detail::trim(new_io[0]);
  const std::string base_out = base_io.size() == 1 ? "" : detail::trim(base_io[1]);
  const std::string new_out = new_io.size() == 1 ? "" : detail::trim(new_io[1]);
  if (base_out != new_out) return false;
  auto inner = [](const std::string& s) {
    return s.size() >= 2 ? s.substr(1, s.size() - 2) : std::string();
  };
  const auto base_params = py_split(inner(base_in), ",");
  const auto new_params = py_split(inner(new_in), ",");
  const std::set<std::string> base_set(base_params.begin(), base_params.end());
  const std::set<std::string> new_set(new_params.begin(), new_params.end());
  for (const std::string& p : base_set) {
    if (new_set.count(p) == 0) return false;
  }
  for (const std::string& p : new_set) {
    if (base_set.count(p) == 0 && p.find('=') == std::string::npos) return false;
  }
  std::vector<std::string> base_arr;
  std::vector<std::string> new_arr;
  for (const std::string& p : base_params) {
    if (p.find('=') == std::string::npos) base_arr.push_back(p);
  }
  for (const std::string& p : new_params) {
    if (p.find('=') == std::string::npos) new_arr.push_back(p);
  }
  if (new_arr.size() < base_arr.size()) return false;  // the test's loop raises IndexError
  return std::equal(base_arr.begin(), base_arr.end(), new_arr.begin());
}

// Whether a baseline entry's version list applies when the test runs at `tag`: all_version or
// the tag itself; else with "newest", tags from the one before it on, compared as the test does
// (dots deleted, as integers: v2.10 -> 210).
bool baseline_applies(const Json& versions, const std::string& tag) {
  if (!versions.is_array()) return false;
  std::vector<std::string> v;
  for (const Json& x : versions) {
    if (x.is_string()) v.push_back(x.get<std::string>());
  }
  if (std::find(v.begin(), v.end(), "all_version") != v.end()) return true;
  if (std::find(v.begin(), v.end(), tag) != v.end()) return true;
  const auto newest = std::find(v.begin(), v.end(), "newest");
  if (newest == v.end() || newest == v.begin()) return false;
  auto number = [](std::string t) {
    t.erase(std::remove(t.begin(), t.end(), '.'), t.end());
    return std::atol(t.c_str() + 1);
  };
  return number(tag) >= number(*(newest - 1));
}

// Where test_compatibility fails for one name, and at which versions.
struct BaselineFailure {
  std::string kind;  // incompatible | new | deleted
  std::string base;
  std::string now;
  std::vector<std::string> versions;
};

// test_op_func_compatibility, run in the mind at every version of all_version the test does not
// skip: the baseline entries that apply there against the YAML's functions active there. Returns
// "kind name" -> where it fails; `entry_of` receives the YAML entry of each name.
std::map<std::string, BaselineFailure> baseline_failures(
    const OpSource& yaml, const std::vector<std::pair<std::string, Json>>& baseline,
    const InterfaceModel& iface, std::map<std::string, const OpEntry*>* entry_of) {
  std::map<std::string, BaselineFailure> failures;
  for (const std::string& tag : yaml.all_version) {
    if (tag == "v1.11" || tag == "v2.0" || tag == "v2.2") continue;  // @skipIf in the test
    std::map<std::string, std::string> base;  // "func: name" -> signature, first one wins
    for (const auto& [key, versions] : baseline) {
      if (!baseline_applies(versions, tag)) continue;
      const auto [name, sig] = py_parse_func_str(key);
      base.emplace(name, sig);
    }
    std::map<std::string, std::string> now;
    for (const OpEntry& e : yaml.entries) {
      if (e.section != "official" && e.section != "custom" && e.section != "quant") continue;
      if (e.section == "quant" && tag == "v2.1") continue;
      if (!iface.active_at(e, tag)) continue;
      const auto [name, sig] = py_parse_func_str(e.schema_text);
      now["func: " + name] = sig;
      entry_of->emplace("func: " + name, &e);
    }
    auto fail = [&](const std::string& kind, const std::string& name, const std::string& b,
                    const std::string& n) {
      BaselineFailure& f = failures[kind + " " + name];
      f.kind = kind;
      f.base = b;
      f.now = n;
      f.versions.push_back(tag);
    };
    for (const auto& [name, sig] : now) {
      const auto it = base.find(name);
      if (it == base.end()) {
        fail("new", name, "", sig);
      } else if (!bc_compatible(it->second, sig)) {
        fail("incompatible", name, it->second, sig);
      }
    }
    for (const auto& [name, sig] : base) {
      if (now.count(name) == 0) fail("deleted", name, sig, "");
    }
  }
  return failures;
}

}  // namespace

// The failures test_compatibility reports, for the selected ops: an error where the newest version
// fails, a warning where only older CI runs do.
void Checker::check_baseline() {
  std::map<std::string, const OpEntry*> entry_of;
  const auto failures = baseline_failures(yaml_, baseline_, *interface_, &entry_of);
  const std::string newest = yaml_.all_version.empty() ? "" : yaml_.all_version.back();
  for (const auto& [id, f] : failures) {
    const std::string name = id.substr(id.find(' ') + 1);
    const std::string op = name.substr(6);
    if (!options_.all && selected_names_.count(op) == 0) continue;
    const bool at_newest =
        std::find(f.versions.begin(), f.versions.end(), newest) != f.versions.end();
    const auto e = entry_of.find(name);
    const Location yaml_at = e == entry_of.end() ? Location{yaml_name_, 0} : yaml_loc(*e->second);
    const Location base_at{kBaselineJson, f.base.empty() ? 0 : line_of(baseline_text_, name)};
    std::string message;
    if (f.kind == "new") {
      message = "test_compatibility fails with '" + name +
                " is new': the YAML has the op where no baseline entry applies";
    } else if (f.kind == "deleted") {
      message = "test_compatibility fails with '" + name +
                " is deleted': a baseline entry applies where the YAML has no such op";
    } else {
      message =
          "test_compatibility reports the schema as incompatible with the baseline "
          "(return, removed/renamed/retyped parameter or a new one without default)";
    }
    message += " at " + join_versions(f.versions) +
               (at_newest ? "" : "; the newest version passes, older CI runs fail");
    Finding finding =
        make(at_newest ? "error" : "warning", "baseline." + f.kind, op, message,
             f.kind == "incompatible" ? yaml_name_ : kBaselineJson,
             f.kind == "new" ? yaml_at : base_at, f.kind == "new" ? base_at : yaml_at);
    finding.expected =
        f.kind == "new" ? "a baseline entry for " + name + " at these versions" : name + f.base;
    finding.found = f.kind == "deleted" ? "no YAML entry active there" : name + f.now;
    add(std::move(finding));
  }
}

void Checker::check_allowlist(const OpEntry& e, const FunctionSchema& s) {
  const std::string op = e.op_name();
  const std::string name = s.name.full_base();
  if (e.section != "custom") return;
  std::set<std::string> exposed_set;
  if (e.key("exposed") != nullptr) {
    const auto& all = allowlist_["all_version"];
    std::vector<std::string> missing;
    for (const std::string& v : versions(e, "exposed")) {
      exposed_set.insert(v);
      const auto it = allowlist_.find(v);
      const bool listed =
          all.count(name) != 0 || (it != allowlist_.end() && it->second.count(name));
      if (!listed) missing.push_back(v);
    }
    if (!missing.empty() && torch_npu_all_.count(name) == 0) {
      // A public op passes the test when it is in the allowlist or in torch_npu.__all__; only
      // with the torch_npu checkout can both be ruled out.
      Finding f =
          make(have_torch_npu_all_ ? "error" : "warning", "allowlist.missing", op,
               "the op is exposed as torch_npu." + name +
                   " but the public-API allowlist does not list it for every exposed "
                   "version" +
                   (have_torch_npu_all_ ? ", nor is it in torch_npu.__all__"
                                        : " (torch_npu.__all__ not checked: pass torch_npu)"),
               kAllowlistJson,
               Location{kAllowlistJson, line_of(allowlist_text_, "\"" + missing.front() + "\"")},
               yaml_loc(e, "exposed"));
      f.expected = name + " in " + join_versions(missing);
      f.found = "absent";
      add(std::move(f));
    }
  }
  std::vector<std::string> extra;
  for (const auto& [v, names] : allowlist_) {
    if (v == "all_version" || names.count(name) == 0) continue;
    if (exposed_set.count(v) == 0) extra.push_back(v);
  }
  if (!extra.empty()) {
    Finding f =
        make("warning", "allowlist.not_exposed", op,
             "the allowlist lists " + name +
                 " for versions in which the YAML does not "
                 "expose it",
             kAllowlistJson, Location{kAllowlistJson, line_of(allowlist_text_, "\"" + name + "\"")},
             yaml_loc(e, e.key("exposed") != nullptr ? "exposed" : "func"));
    f.expected = "exposed: covering " + join_versions(extra) + ", or the names removed";
    f.found = name + " listed in " + join_versions(extra);
    add(std::move(f));
  }
}

void Checker::check_test(const OpEntry& e, const FunctionSchema& s) {
  std::string base = s.name.base;
  if (detail::ends_with(base, "_backward")) return;  // covered by the forward op's test
  std::vector<std::string> names = {"test_" + base + ".py", "test_" + s.name.full_base() + ".py"};
  std::string stripped = base;
  while (!stripped.empty() && stripped[0] == '_') stripped.erase(0, 1);
  names.push_back("test_" + stripped + ".py");
  if (detail::starts_with(stripped, "npu_")) names.push_back("test_" + stripped.substr(4) + ".py");
  for (const std::string& n : names) {
    if (test_files_.count(n) != 0) return;
  }
  const std::string dir = e.section == "custom" ? "test/test_custom_ops" : "test/test_base_ops";
  Finding f =
      make("warning", "test.missing", e.op_name(), "no unit test file for the op under test/",
           dir + "/" + names.front(), Location{dir + "/" + names.front(), 0}, yaml_loc(e));
  f.expected = dir + "/" + names.front();
  f.found = "none";
  add(std::move(f));
}

void Checker::check_doc(const OpEntry& e, const FunctionSchema& s) {
  const std::string op = e.op_name();
  const std::string path = std::string(kDocDir) + "/torch_npu-" + s.name.full_base() + ".md";
  const auto text = tree_.read(path);
  if (!text) {
    Finding f =
        make("warning", "doc.missing", op, "the op is exposed (public API) but has no API page",
             path, Location{path, 0}, yaml_loc(e, "exposed"));
    f.expected = path;
    f.found = "none";
    add(std::move(f));
    return;
  }
  // The page is compared by op-apidoc, which reads op-plugin's page formats and knows the
  // Python binding's conventions (self shown as input, out=, defaults by value).
  if (!docs_usable_) return;
  if (!options_.call_skill) {
    docs_usable_ = false;
    result_->checks_skipped.emplace_back(
        "docs: pages against schemas",
        "no skill-to-skill calls in this run; the op-apidoc skill compares the pages");
    return;
  }
  Json out;
  try {
    out = options_.call_skill("op-apidoc",
                              {{"mode", "check"}, {"schema", e.schema_text}, {"doc_text", *text}});
  } catch (const std::exception& ex) {
    docs_usable_ = false;
    result_->checks_skipped.emplace_back(
        "docs: pages against schemas", std::string("the op-apidoc skill could not be called (") +
                                           ex.what() +
                                           "); install the op-apidoc plugin to compare the pages");
    return;
  }
  if (!out.contains("findings") || !out["findings"].is_array()) return;
  for (const Json& d : out["findings"]) {
    const std::string kind = d.value("kind", "page");
    Finding f = make("warning", "doc." + kind, op,
                     "API page: " + d.value("message", std::string("differs from the schema")),
                     path, Location{path, d.value("line", static_cast<size_t>(0))}, yaml_loc(e));
    f.expected = e.schema_text;
    f.found = d.value("parameter", std::string());
    add(std::move(f));
  }
  (void)s;
}

}  // namespace skillrt::opa::detail
