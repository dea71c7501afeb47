#include "verify.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <stdexcept>

#include "cpp_scan.hpp"
#include "detail/text.hpp"
#include "interface.hpp"
#include "optoolkit/default_value.hpp"
#include "optoolkit/sources.hpp"
#include "py_scan.hpp"

namespace skillrt::opa {
namespace {

using ops::FunctionSchema;
using ops::OpEntry;
using ops::OpSource;

const std::set<std::string> kVersionKeys = {"op_api", "acl_op", "exposed", "internal_format_opapi",
                                            "dvm",    "sparse"};
const std::set<std::string> kKnownKeys = {"func",
                                          "op_api",
                                          "acl_op",
                                          "gen_opapi",
                                          "exposed",
                                          "internal_format_opapi",
                                          "dvm",
                                          "device_check",
                                          "tags",
                                          "sparse",
                                          "dispatch",
                                          "structured",
                                          "structured_delegate",
                                          "use_const_ref_for_mutable_tensors"};

struct LocatedFn {
  std::string file;
  const CppFunction* fn;
  const TypeAliases* aliases;  // the file's own
};

struct LocatedReg {
  std::string file;
  const PyRegistration* reg;
};

std::string join_versions(const std::vector<std::string>& v) { return detail::join(v, ", "); }

std::set<std::string> to_set(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

std::vector<std::string> minus(const std::vector<std::string>& a, const std::set<std::string>& b) {
  std::vector<std::string> out;
  for (const std::string& x : a) {
    if (b.count(x) == 0) out.push_back(x);
  }
  return out;
}

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

// torch_npu's codegen rewrites a few PyTorch schemas before matching derivatives
// (Ascend/pytorch torchnpugen/gen_backend_stubs.py, modify_func_in_native_yaml): the derivatives
// entry carries the rewritten form, op_plugin_functions.yaml the original. Returns the original.
std::string torch_npu_renamed(const std::string& schema) {
  static const std::map<std::string, std::string> kRewritten = {
      {"matmul_backward(Tensor grad_out, Tensor self, Tensor other, bool[2] mask) -> (Tensor, "
       "Tensor)",
       "matmul_backward(Tensor grad, Tensor self, Tensor other, bool[2] mask) -> (Tensor, Tensor)"},
  };
  const auto it = kRewritten.find(schema);
  return it == kRewritten.end() ? schema : it->second;
}

// A schema default and a Python default mean the same value. A sized list type takes a scalar
// default for every element ("int[2] stride=1" is [1, 1]).
bool same_default(const ops::Argument& a, const std::string& other) {
  int sized = 0;
  for (const ops::TypeSuffix& x : a.type.suffixes()) {
    if (x.kind == ops::TypeSuffix::kList && x.size > 0) sized = static_cast<int>(x.size);
  }
  return ops::same_default_value(*a.default_value, other, sized);
}

class Checker {
 public:
  Checker(const Tree& tree, const VerifyOptions& options, VerifyResult* result)
      : tree_(tree), options_(options), result_(result) {}

  void run() {
    load_yaml();
    select_ops();
    const bool yaml_only = options_.yaml_only || !options_.yaml_file.empty();
    load_derivatives();
    load_torch_npu();
    if (!yaml_only) load_sources();
    const size_t total = selected_.size();
    size_t done = 0;
    for (const OpEntry* e : selected_) {
      if (options_.cancelled && options_.cancelled()) break;
      check_yaml_entry(*e);
      if (e->parsed.ok()) {
        if (!yaml_only) check_sources(*e);
      }
      if (options_.progress && (++done % 100 == 0 || done == total)) {
        options_.progress(static_cast<double>(done), static_cast<double>(total), "ops checked");
      }
    }
    check_duplicates_and_symint();
    if (!yaml_only && have_baseline_) check_baseline();
    if (derivs_) check_derivatives();
    if (!yaml_only) check_orphan_registrations();
  }

 private:
  void add(Finding f) {
    ++result_->findings_total;
    Json& br = result_->by_rule[f.rule];
    if (br.is_null()) br = {{"severity", f.severity}, {"count", 0}};
    br["count"] = br["count"].get<size_t>() + 1;
    ++result_->severity_counts[f.severity == "error" ? 0 : f.severity == "warning" ? 1 : 2];
    auto rank = [](const std::string& sev) {
      return sev == "error" ? 2 : sev == "warning" ? 1 : 0;
    };
    if (rank(f.severity) < rank(options_.min_severity)) return;
    if (result_->findings.size() < options_.max_findings) result_->findings.push_back(std::move(f));
  }

  Finding make(const std::string& severity, const std::string& rule, const std::string& op,
               std::string message, std::string change, Location where, Location other = {}) {
    Finding f;
    f.severity = severity;
    f.rule = rule;
    f.op = op;
    f.message = std::move(message);
    f.change = std::move(change);
    f.where = std::move(where);
    f.other = std::move(other);
    return f;
  }

  Location yaml_loc(const OpEntry& e, const std::string& key = "func") const {
    const auto it = e.key_lines.find(key);
    return Location{yaml_name_, it == e.key_lines.end() ? e.where.line : it->second};
  }

  // ---- loading -------------------------------------------------------------------------------

  void load_yaml() {
    std::optional<std::string> text;
    if (!options_.yaml_file.empty()) {
      text = read_file(options_.yaml_file);
      yaml_name_ = options_.yaml_file;
    } else {
      text = tree_.read(kFunctionsYaml);
      yaml_name_ = kFunctionsYaml;
    }
    if (!text) {
      throw std::invalid_argument("cannot read " + yaml_name_ + " under '" + tree_.root().string() +
                                  "': pass op_plugin as an op-plugin checkout (the directory that "
                                  "holds op_plugin/config/) or the YAML file itself");
    }
    yaml_ = ops::load_source_text(*text, yaml_name_, ops::SourceFormat::kOpPluginFunctions);
    interface_ = std::make_unique<InterfaceModel>(yaml_);
    result_->checks_run.push_back("yaml");
    for (const OpEntry& e : yaml_.entries) {
      if (e.parsed.ok()) {
        by_name_[e.op_name()].push_back(&e);
        by_base_[e.parsed.schema->name.full_base()].push_back(&e);
        by_schema_[e.schema_text].push_back(&e);
      } else {
        by_name_[e.op_name()].push_back(&e);
      }
    }
  }

  void select_ops() {
    std::set<const OpEntry*> chosen;
    if (options_.all) {
      for (const OpEntry& e : yaml_.entries) selected_.push_back(&e);
    } else {
      for (const std::string& name : options_.ops) {
        std::vector<const OpEntry*> hits;
        for (auto* m : {&by_name_, &by_base_}) {
          const auto it = m->find(name);
          if (it != m->end()) hits.insert(hits.end(), it->second.begin(), it->second.end());
        }
        if (hits.empty()) {
          result_->unknown_ops.push_back(name);
          Finding f = make("error", "op.unknown", name,
                           "no entry for '" + name + "' in " + yaml_name_ +
                               "; nearest: " + detail::join(yaml_.nearest(name, 3), ", "),
                           yaml_name_, Location{yaml_name_, 0});
          f.expected = "an entry 'func: " + name + "(...)'";
          f.found = "none";
          add(std::move(f));
        }
        for (const OpEntry* e : hits) {
          if (chosen.insert(e).second) selected_.push_back(e);
        }
      }
    }
    std::set<std::string> names;
    for (const OpEntry* e : selected_) {
      if (names.insert(e->op_name()).second) result_->ops_checked.push_back(e->op_name());
      selected_names_.insert(e->op_name());
      if (e->parsed.ok()) selected_bases_.insert(e->parsed.schema->name.full_base());
    }
  }

  void load_torch_npu() {
    if (options_.torch_npu.empty()) return;
    const std::filesystem::path root(options_.torch_npu);
    std::vector<std::string> read;
    if (const auto init = read_file(root / "torch_npu/__init__.py")) {
      // Strings inside the brackets of `__all__ = [...]`, `__all__ += [...]`,
      // `__all__.extend([...])` and `__all__.append("x")`.
      const auto t = tokenize_python(*init);
      for (size_t i = 0; i + 1 < t.size(); ++i) {
        if (t[i].text != "__all__") continue;
        size_t k = i + 1;
        while (k < t.size() && t[k].kind == PyToken::Kind::kOp && t[k].text != "[" &&
               t[k].text != "(") {
          ++k;
        }
        if (k < t.size() && t[k].kind == PyToken::Kind::kName) ++k;  // extend / append
        int depth = 0;
        for (; k < t.size(); ++k) {
          if (t[k].text == "[" || t[k].text == "(") ++depth;
          if (t[k].text == "]" || t[k].text == ")") {
            if (--depth <= 0) break;
          }
          if (t[k].kind == PyToken::Kind::kNewline && depth == 0) break;
          if (t[k].kind == PyToken::Kind::kString && t[k].text.size() >= 2) {
            torch_npu_all_.insert(t[k].text.substr(1, t[k].text.size() - 2));
          }
        }
      }
      have_torch_npu_all_ = true;
      read.push_back("torch_npu/__init__.py (__all__: " + std::to_string(torch_npu_all_.size()) +
                     " names)");
    }
    if (const auto nf = read_file(root / "torch_npu/csrc/aten/npu_native_functions.yaml")) {
      // Entries are bare names or `func:` schemas; the name is what matters here.
      static const std::regex kEntry(R"(^\s*-\s*(?:func:\s*)?([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)?))");
      for (const std::string& line : detail::split_lines(*nf)) {
        std::smatch m;
        if (std::regex_search(line, m, kEntry)) torch_npu_ops_.insert(m[1]);
      }
      have_torch_npu_ops_ = true;
      read.push_back("torch_npu/csrc/aten/npu_native_functions.yaml (" +
                     std::to_string(torch_npu_ops_.size()) + " ops)");
    }
    result_->torch_npu_note = read.empty()
                                  ? "neither torch_npu/__init__.py nor torch_npu/csrc/aten/"
                                    "npu_native_functions.yaml found under " +
                                        options_.torch_npu
                                  : "read " + detail::join(read, ", ");
  }

  void load_derivatives() {
    std::optional<std::string> text;
    std::string name = kDerivativesYaml;
    if (!options_.yaml_file.empty()) {
      result_->checks_skipped.emplace_back(
          "derivatives", "op_plugin is a YAML file, not a checkout: no derivatives.yaml to read");
      return;
    }
    text = tree_.read(kDerivativesYaml);
    if (!text) {
      result_->checks_skipped.emplace_back(
          "derivatives", std::string(kDerivativesYaml) + " not found in the checkout");
      return;
    }
    derivs_ = std::make_unique<OpSource>(
        ops::load_source_text(*text, name, ops::SourceFormat::kOpPluginDerivatives));
    result_->checks_run.push_back("derivatives");
  }

  void load_sources() {
    // C++ kernels.
    for (const auto& [dir, ns] : {std::pair<std::string, std::string>{kOpApiDir, "op_api"},
                                  std::pair<std::string, std::string>{kAclOpsDir, "acl_op"}}) {
      if (!tree_.is_dir(dir)) {
        result_->checks_skipped.emplace_back("cpp:" + ns, dir + " not found in the checkout");
        continue;
      }
      have_kernel_dir_.insert(ns);
      for (const std::string& file : tree_.list(dir, ".cpp", false)) {
        const auto text = tree_.read(file);
        if (!text) continue;
        auto fns = std::make_unique<std::vector<CppFunction>>(scan_cpp(*text));
        const TypeAliases& aliases = aliases_[file] = scan_cpp_aliases(*text);
        for (const CppFunction& f : *fns) {
          if (f.ns != ns) continue;
          kernels_[ns + "::" + f.name].push_back(LocatedFn{file, &f, &aliases});
        }
        cpp_store_.push_back(std::move(fns));
      }
      result_->checks_run.push_back("cpp:" + ns);
    }
    // Meta / fake registrations.
    bool any_meta = false;
    for (const char* file : {kMetaPy, kFakePy}) {
      const auto text = tree_.read(file);
      if (!text) continue;
      any_meta = true;
      auto regs = std::make_unique<std::vector<PyRegistration>>(scan_registrations(*text));
      for (const PyRegistration& r : *regs) {
        registrations_[r.op].push_back(LocatedReg{file, &r});
      }
      py_store_.push_back(std::move(regs));
    }
    if (any_meta) {
      result_->checks_run.push_back("meta");
    } else {
      result_->checks_skipped.emplace_back("meta", std::string(kMetaPy) + " not found");
    }
    // Schema baseline.
    if (auto text = tree_.read(kBaselineJson)) {
      baseline_text_ = *text;
      // In file order: the test keeps the first entry of each name.
      const nlohmann::ordered_json j = nlohmann::ordered_json::parse(*text, nullptr, false);
      if (j.is_object()) {
        have_baseline_ = true;
        for (auto it = j.begin(); it != j.end(); ++it) {
          const std::string& key = it.key();
          if (!detail::starts_with(key, "func: ") || !it.value().is_object()) continue;
          baseline_.push_back({key, Json(it.value().value("version", nlohmann::ordered_json()))});
        }
        result_->checks_run.push_back("baseline");
      } else {
        add(make("error", "baseline.unreadable", "", "the schema baseline is not a JSON object",
                 kBaselineJson, Location{kBaselineJson, 1}));
      }
    } else {
      result_->checks_skipped.emplace_back("baseline", std::string(kBaselineJson) + " not found");
    }
    // Public-API allowlist.
    if (auto text = tree_.read(kAllowlistJson)) {
      allowlist_text_ = *text;
      const Json j = Json::parse(*text, nullptr, false);
      if (j.is_object() && j.contains("torch_npu") && j["torch_npu"].is_object()) {
        have_allowlist_ = true;
        for (auto it = j["torch_npu"].begin(); it != j["torch_npu"].end(); ++it) {
          if (!it.value().is_array()) continue;
          for (const Json& n : it.value()) {
            if (n.is_string()) allowlist_[it.key()].insert(n.get<std::string>());
          }
        }
        result_->checks_run.push_back("allowlist");
      } else {
        add(make("error", "allowlist.unreadable", "",
                 "the allowlist is not {\"torch_npu\": {version: [names]}}", kAllowlistJson,
                 Location{kAllowlistJson, 1}));
      }
    } else {
      result_->checks_skipped.emplace_back("allowlist", std::string(kAllowlistJson) + " not found");
    }
    // Tests and docs: only where the checkout has those trees.
    if (tree_.is_dir(kTestDir)) {
      for (const std::string& f : tree_.list(kTestDir, ".py", true)) {
        const size_t slash = f.rfind('/');
        test_files_[f.substr(slash + 1)] = f;
      }
      have_tests_ = true;
      result_->checks_run.push_back("tests");
    } else {
      result_->checks_skipped.emplace_back("tests", "no test/ directory in the checkout");
    }
    if (tree_.is_dir(kDocDir)) {
      have_docs_ = true;
      result_->checks_run.push_back("docs");
    } else {
      result_->checks_skipped.emplace_back("docs", std::string(kDocDir) + " not found");
    }
  }

  // ---- YAML entry ------------------------------------------------------------------------------

  std::vector<std::string> versions(const OpEntry& e, const std::string& key) const {
    const Json* v = e.key(key);
    if (v == nullptr) return {};
    return ops::parse_version_spec(*v, yaml_.all_version).versions;
  }

  std::vector<std::string> active_versions(const OpEntry& e) const {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const char* k : {"op_api", "acl_op", "sparse"}) {
      for (const std::string& v : versions(e, k)) {
        if (seen.insert(v).second) out.push_back(v);
      }
    }
    return out;
  }

  void check_yaml_entry(const OpEntry& e) {
    const std::string op = e.op_name();
    if (!e.parsed.ok()) {
      Finding f =
          make("error", "yaml.schema_parse", op,
               "the schema does not parse: " + e.parsed.error.to_string(), yaml_name_, yaml_loc(e));
      f.expected = "a function schema torchnpugen accepts";
      f.found = e.schema_text;
      add(std::move(f));
      return;
    }
    const FunctionSchema& s = *e.parsed.schema;
    for (auto it = e.keys.begin(); it != e.keys.end(); ++it) {
      const std::string& key = it.key();
      if (kKnownKeys.count(key) == 0) {
        Finding f = make("warning", "yaml.unknown_key", op,
                         "key '" + key + "' is not one op-plugin codegen reads", yaml_name_,
                         yaml_loc(e, key));
        f.expected = "one of op_api, acl_op, gen_opapi, exposed, internal_format_opapi, ...";
        f.found = key;
        add(std::move(f));
      }
      if (kVersionKeys.count(key) != 0) {
        const ops::VersionSpec spec = ops::parse_version_spec(it.value(), yaml_.all_version);
        bool bad = !spec.problem.empty();
        std::string why = spec.problem;
        if (!bad && (spec.form == ops::VersionSpec::Form::kSingle ||
                     spec.form == ops::VersionSpec::Form::kCommaList)) {
          // Codegen does not check these forms against all_version; a typo silently drops the op.
          for (const std::string& v : spec.versions) {
            if (std::find(yaml_.all_version.begin(), yaml_.all_version.end(), v) ==
                yaml_.all_version.end()) {
              bad = true;
              why = "'" + v + "' is not in all_version";
            }
          }
        }
        if (bad) {
          Finding f =
              make("error", "yaml.version_invalid", op, "'" + key + "' cannot be expanded: " + why,
                   yaml_name_, yaml_loc(e, key));
          f.expected =
              "all_version, [vX.Y, vX.Y|newest], vX.Y or 'vX.Y, vX.Y' with members of "
              "all_version";
          f.found = spec.written;
          add(std::move(f));
        }
      }
    }
    const auto active = active_versions(e);
    if (e.key("op_api") == nullptr && e.key("acl_op") == nullptr && e.key("sparse") == nullptr) {
      Finding f = make("error", "yaml.no_backend", op,
                       "the entry declares no backend, so codegen drops it for every version",
                       yaml_name_, yaml_loc(e));
      f.expected = "op_api and/or acl_op";
      f.found = "neither";
      add(std::move(f));
    }
    if (e.key("gen_opapi") != nullptr && e.key("op_api") == nullptr) {
      Finding f = make("error", "yaml.gen_opapi_without_op_api", op,
                       "gen_opapi generates an op_api kernel, but the entry has no op_api versions",
                       yaml_name_, yaml_loc(e, "gen_opapi"));
      f.expected = "op_api: <versions>";
      f.found = "no op_api";
      add(std::move(f));
    }
    const std::set<std::string> active_set = to_set(active);
    const std::set<std::string> op_api_set = to_set(versions(e, "op_api"));
    for (const char* key : {"exposed", "dvm", "internal_format_opapi"}) {
      if (e.key(key) == nullptr) continue;
      const auto& base = std::string(key) == "internal_format_opapi" ? op_api_set : active_set;
      const auto extra = minus(versions(e, key), base);
      if (extra.empty()) continue;
      // codegen ignores internal_format_opapi where there is no op_api kernel: dead config.
      Finding f = make(
          std::string(key) == "internal_format_opapi" ? "warning" : "error",
          "yaml.version_not_covered", op,
          std::string("'") + key + "' names versions in which the op has no " +
              (std::string(key) == "internal_format_opapi" ? "op_api kernel" : "kernel at all"),
          yaml_name_, yaml_loc(e, key), yaml_loc(e, "op_api"));
      f.expected =
          "a subset of " + join_versions(std::vector<std::string>(base.begin(), base.end()));
      f.found = "extra: " + join_versions(extra);
      add(std::move(f));
    }
    if (e.section == "official" && detail::starts_with(s.name.base, "npu_")) {
      Finding f = make("error", "yaml.section", op,
                       "an npu_* op is a torch.ops.npu custom op but sits in 'official' (aten)",
                       yaml_name_, yaml_loc(e));
      f.expected = "section custom";
      f.found = "section official";
      add(std::move(f));
    }
    if (e.section == "symint" && !has_symint(s)) {
      Finding f = make("error", "yaml.section", op,
                       "an entry in 'symint' has no SymInt argument, so the dual registration "
                       "has nothing to convert",
                       yaml_name_, yaml_loc(e));
      f.expected = "a SymInt or SymInt[] argument, or the entry moved out of symint";
      f.found = e.schema_text;
      add(std::move(f));
    }
    if (e.key("gen_opapi") != nullptr) check_gen_opapi(e, s);
  }

  void check_gen_opapi(const OpEntry& e, const FunctionSchema& s) {
    const std::string op = e.op_name();
    const Json& g = *e.key("gen_opapi");
    if (!g.is_object()) return;
    const Location loc = yaml_loc(e, "gen_opapi");
    if (g.contains("structured_inherit")) {
      const std::string target = g["structured_inherit"].is_string()
                                     ? g["structured_inherit"].get<std::string>()
                                     : std::string();
      if (by_name_.count(target) == 0) {
        Finding f = make("error", "gen_opapi.inherit_missing", op,
                         "structured_inherit names an op that is not in the YAML", yaml_name_, loc);
        f.expected = "an existing op such as " + s.name.base + ".out";
        f.found = target;
        add(std::move(f));
      }
      return;
    }
    if (!g.contains("exec") || !g["exec"].is_string()) {
      Finding f = make("error", "gen_opapi.no_exec", op,
                       "gen_opapi has neither exec nor structured_inherit", yaml_name_, loc);
      f.expected = "exec: aclnnName[, args...]";
      f.found = "none";
      add(std::move(f));
      return;
    }
    std::set<std::string> known;
    std::vector<std::string> out_names;
    for (const ops::Argument& a : s.arguments) {
      known.insert(a.name);
      if (a.out) out_names.push_back(a.name);
    }
    std::set<std::string> spec_keys;
    for (auto it = g.begin(); it != g.end(); ++it) {
      const std::string& k = it.key();
      if (k == "exec" || k == "new_params" || k == "cpu_scalar_h2d" || k == "cpu_scalar_op" ||
          k == "integral_identity_tensor") {
        continue;
      }
      spec_keys.insert(k);
      known.insert(k);
    }
    if (g.contains("new_params") && g["new_params"].is_object()) {
      for (auto it = g["new_params"].begin(); it != g["new_params"].end(); ++it) {
        known.insert(it.key());
      }
    }
    for (const ops::Return& r : s.returns) {
      if (r.name) known.insert(*r.name);
    }
    // Output specs: out-arg names for .out overloads, out / out0..N for functional ones.
    std::set<std::string> expected_keys;
    if (s.kind == ops::SchemaKind::kOut) {
      expected_keys.insert(out_names.begin(), out_names.end());
    } else if (s.kind == ops::SchemaKind::kFunctional) {
      if (s.returns.size() == 1) {
        expected_keys.insert(s.returns[0].name ? *s.returns[0].name : "out");
        // One output: codegen takes the single spec whatever its key (out, result, out0).
        if (spec_keys.size() == 1) expected_keys = spec_keys;
      } else {
        for (size_t i = 0; i < s.returns.size(); ++i) {
          expected_keys.insert(s.returns[i].name ? *s.returns[i].name : "out" + std::to_string(i));
        }
      }
    }
    const bool out_kind = s.kind == ops::SchemaKind::kOut;
    if (out_kind) {
      // .out overloads: each output spec is keyed by the out argument it fills.
      for (const std::string& k : spec_keys) {
        if (expected_keys.count(k) != 0) continue;
        Finding f =
            make("error", "gen_opapi.out_key", op,
                 "output spec '" + k + "' is not an out argument of the schema", yaml_name_, loc);
        f.expected = detail::join(out_names, ", ");
        f.found = k;
        add(std::move(f));
      }
    } else if (s.kind == ops::SchemaKind::kFunctional && spec_keys.size() != s.returns.size()) {
      // Functional ops: codegen allocates one output per spec, in order, whatever the keys.
      Finding f = make("error", "gen_opapi.out_key", op,
                       std::to_string(spec_keys.size()) + " output spec(s) for " +
                           std::to_string(s.returns.size()) + " return(s): codegen allocates " +
                           "the wrong number of outputs",
                       yaml_name_, loc);
      f.expected =
          std::to_string(s.returns.size()) + " (" +
          detail::join(std::vector<std::string>(expected_keys.begin(), expected_keys.end()), ", ") +
          ")";
      f.found = detail::join(std::vector<std::string>(spec_keys.begin(), spec_keys.end()), ", ");
      if (f.found.empty()) f.found = "none";
      add(std::move(f));
    }
    const std::string exec = g["exec"].get<std::string>();
    std::vector<std::string> args;
    size_t start = 0;
    while (start <= exec.size()) {
      const size_t comma = exec.find(',', start);
      args.push_back(detail::trim(exec.substr(start, comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    for (size_t i = 1; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a.empty() || known.count(a) != 0) continue;
      if (std::isdigit(static_cast<unsigned char>(a[0])) != 0) continue;  // literal argument
      Finding f = make("error", "gen_opapi.exec_arg", op,
                       "exec passes '" + a +
                           "', which is neither a schema argument, an output nor a new_params "
                           "local",
                       yaml_name_, loc);
      f.expected = detail::join(std::vector<std::string>(known.begin(), known.end()), ", ");
      f.found = a;
      add(std::move(f));
    }
  }

  void check_duplicates_and_symint() {
    // Same schema twice with overlapping versions: codegen registers it twice.
    for (const auto& [schema, entries] : by_schema_) {
      std::vector<const OpEntry*> main;
      const OpEntry* in_symint = nullptr;
      for (const OpEntry* e : entries) {
        if (e->section == "symint") {
          in_symint = e;
        } else if (e->section == "autograd") {
          continue;  // a registration mirror of an official entry, like symint
        } else {
          main.push_back(e);
        }
      }
      bool selected = false;
      for (const OpEntry* e : entries) selected = selected || selected_names_.count(e->op_name());
      if (!selected) continue;
      for (size_t i = 0; i < main.size(); ++i) {
        for (size_t j = i + 1; j < main.size(); ++j) {
          const auto a = to_set(active_versions(*main[i]));
          std::vector<std::string> both;
          for (const std::string& v : active_versions(*main[j])) {
            if (a.count(v) != 0) both.push_back(v);
          }
          if (both.empty()) continue;
          Finding f = make("error", "yaml.duplicate", main[j]->op_name(),
                           "the same schema is registered twice for overlapping versions",
                           yaml_name_, yaml_loc(*main[j]), yaml_loc(*main[i]));
          f.expected = "one entry per version";
          f.found = "both active in " + join_versions(both);
          add(std::move(f));
        }
      }
      const OpEntry* any = entries.front();
      if (!any->parsed.ok()) continue;
      if (has_symint(*any->parsed.schema) && in_symint == nullptr && !main.empty()) {
        Finding f = make("info", "yaml.symint_missing", any->op_name(),
                         "the op takes SymInt arguments but has no entry in the symint section",
                         yaml_name_, yaml_loc(*main.front()));
        f.expected = "the same func under symint:";
        f.found = "none";
        add(std::move(f));
      }
      if (in_symint != nullptr && main.empty()) {
        Finding f = make("warning", "yaml.symint_orphan", in_symint->op_name(),
                         "a symint entry without the same func in official/custom", yaml_name_,
                         yaml_loc(*in_symint));
        f.expected = "the same func under official: or custom:";
        f.found = "none";
        add(std::move(f));
      }
    }
  }

  // ---- sources --------------------------------------------------------------------------------

  void check_sources(const OpEntry& e) {
    const FunctionSchema& s = *e.parsed.schema;
    if (e.section == "symint" || e.section == "autograd") return;  // registration mirrors
    if (e.key("gen_opapi") != nullptr && have_kernel_dir_.count("op_api") != 0) {
      check_generated_kernel(e, s);
    }
    for (const Requirement& r : interface_->requirements(e)) {
      if (have_kernel_dir_.count(r.ns) != 0) check_kernel(e, r);
    }
    if (!py_store_.empty()) check_meta(e, s);
    if (have_allowlist_) check_allowlist(e, s);
    if (have_tests_) check_test(e, s);
    if (have_docs_ && e.key("exposed") != nullptr) check_doc(e, s);
  }

  // gen_opapi: gen_struct_opapi writes op_api's kernel; a hand-written one with the same
  // signature is a second definition.
  void check_generated_kernel(const OpEntry& e, const FunctionSchema& s) {
    const std::string op = e.op_name();
    for (const std::string& v : versions(e, "op_api")) {
      const Declaration d = generated_declaration(s, interface_->flags(e, v));
      const auto it = kernels_.find("op_api::" + d.name);
      if (it == kernels_.end()) return;
      for (const LocatedFn& c : it->second) {
        if (!defines(d, c)) continue;
        Finding f = make("error", "cpp.handwritten_and_gen", op,
                         "gen_opapi generates op_api::" + d.name +
                             ", and a hand-written definition exists too: the build fails with "
                             "a redefinition",
                         c.file, Location{c.file, c.fn->line}, yaml_loc(e, "gen_opapi"));
        f.expected = "gen_opapi or a hand-written op_api::" + d.name + ", not both";
        f.found = "both";
        add(std::move(f));
        return;
      }
      return;  // one version is enough: the generated declaration rarely varies
    }
  }

  // Whether a definition has exactly the declaration's parameter types (as the compiler compares
  // them: aliases resolved, top-level const of by-value parameters ignored).
  static bool defines(const Declaration& d, const LocatedFn& c) {
    if (c.fn->params.size() != d.param_types.size()) return false;
    for (size_t i = 0; i < d.param_types.size(); ++i) {
      if (cpp_type_key(d.param_types[i], {}) != cpp_type_key(c.fn->params[i].type, *c.aliases)) {
        return false;
      }
    }
    return true;
  }

  static std::string versions_phrase(const std::vector<std::string>& v) {
    if (v.size() == 1) return "at " + v.front();
    return "at " + v.front() + " to " + v.back() + " (" + std::to_string(v.size()) + " versions)";
  }

  void check_kernel(const OpEntry& e, const Requirement& r) {
    const std::string op = e.op_name();
    const std::string& ns = r.ns;
    const std::string dir = ns == "op_api" ? kOpApiDir : kAclOpsDir;
    const std::string qualified = ns + "::" + r.decl.name;
    const std::string when = versions_phrase(r.versions);
    const auto it = kernels_.find(ns + "::" + (r.impl_name.empty() ? r.decl.name : r.impl_name));
    const std::vector<LocatedFn> none;
    const std::vector<LocatedFn>& cands = it == kernels_.end() ? none : it->second;
    const std::string expected_file = dir + "/" + detail::kernel_stem(e.parsed.schema->name.base) +
                                      (ns == "op_api" ? "KernelNpuOpApi.cpp" : "KernelNpu.cpp");
    if (!r.impl_name.empty()) {
      // OpInterface.cpp calls ns::impl_name(args): any overload the call resolves to will do, so
      // only its existence is decided here.
      if (!cands.empty()) return;
      Finding f = make("error", "cpp.missing", op,
                       "the YAML's impl_name makes OpInterface.cpp call " + ns +
                           "::" + r.impl_name + ", which no kernel under " + dir + " defines (" +
                           when + "): the build fails to compile that call",
                       expected_file, Location{expected_file, 0}, yaml_loc(e, "impl_name"));
      f.expected = ns + "::" + r.impl_name + "(...)";
      f.found = "none";
      add(std::move(f));
      return;
    }
    const LocatedFn* match = nullptr;
    for (const LocatedFn& c : cands) {
      if (defines(r.decl, c)) match = &c;
    }
    if (match == nullptr) {
      report_undefined(e, r, cands, expected_file, when);
      return;
    }
    const CppFunction& fn = *match->fn;
    const Location here{match->file, fn.line};
    if (!r.decl.return_type.empty() &&
        cpp_type_key(r.decl.return_type, {}) != cpp_type_key(fn.return_type, *match->aliases)) {
      Finding f = make("error", "cpp.return_type", op,
                       qualified +
                           " is defined with the generated parameters but another return "
                           "type: the compiler rejects a definition that differs from its "
                           "declaration only in the return type",
                       match->file, here, yaml_loc(e));
      f.expected = r.decl.return_type;
      f.found = fn.return_type;
      add(std::move(f));
    }
    std::set<std::string> execs;
    for (const auto& [n, line] : fn.exec_calls) execs.insert(n);
    // Some kernels probe several symbols (one DO_COMPATIBILITY per aclnn they may run).
    const bool some_probe_runs = std::any_of(fn.compat_calls.begin(), fn.compat_calls.end(),
                                             [&](const auto& c) { return execs.count(c.first); });
    for (const auto& [n, line] : fn.compat_calls) {
      if (execs.empty() || execs.count(n) != 0 || some_probe_runs) continue;
      Finding f =
          make("warning", "cpp.aclnn_mismatch", op,
               "DO_COMPATIBILITY checks " + n + " but the kernel runs " +
                   detail::join(std::vector<std::string>(execs.begin(), execs.end()), ", ") +
                   ": on a CANN that has one and not the other, the fallback choice is wrong",
               match->file, Location{match->file, line},
               Location{match->file, fn.exec_calls.front().second});
      f.expected = *execs.begin();
      f.found = n;
      add(std::move(f));
    }
    for (const auto& u : fn.maybe_uninitialized) {
      Finding f = make(
          "warning", "cpp.uninitialized_local", op,
          "'" + u.name + "' is declared without a value at line " + std::to_string(u.decl_line) +
              " and read at line " + std::to_string(u.read_line) +
              " where some branch has not assigned it; it is passed to "
              "EXEC_NPU_CMD, so a call that takes that path hands aclnn an "
              "indeterminate value (unless an earlier check rules the path out)",
          match->file, Location{match->file, u.read_line}, Location{match->file, u.decl_line});
      f.expected = u.name + " assigned on every path (or given a value where declared)";
      f.found = "unassigned on some path";
      add(std::move(f));
    }
    for (const CppParam& p : fn.params) {
      if (p.name.empty() || fn.body_identifiers.count(p.name) != 0) continue;
      Finding f = make("warning", "cpp.unused_arg", op,
                       "parameter '" + p.name + "' is never used in " + qualified +
                           ": its value is silently ignored",
                       match->file, here, yaml_loc(e));
      f.expected = p.name + " passed to the kernel or checked";
      f.found = "unused";
      add(std::move(f));
    }
  }

  // No definition has the generated declaration's parameter types: OpInterface.cpp's call links
  // against the declaration and fails with an undefined reference.
  void report_undefined(const OpEntry& e, const Requirement& r, const std::vector<LocatedFn>& cands,
                        const std::string& expected_file, const std::string& when) {
    const std::string op = e.op_name();
    const std::string qualified = r.ns + "::" + r.decl.name;
    const std::string consequence =
        ": OpInterface.cpp calls the declared function, so linking fails with an undefined "
        "reference to " +
        qualified;
    // The nearest definition: same parameter count, fewest differing types.
    const LocatedFn* best = nullptr;
    size_t best_diff = 0;
    size_t first_diff = 0;
    for (const LocatedFn& c : cands) {
      if (c.fn->params.size() != r.decl.param_types.size()) continue;
      size_t diff = 0;
      size_t first = 0;
      for (size_t i = 0; i < r.decl.param_types.size(); ++i) {
        if (cpp_type_key(r.decl.param_types[i], {}) ==
            cpp_type_key(c.fn->params[i].type, *c.aliases)) {
          continue;
        }
        if (diff++ == 0) first = i;
      }
      if (best == nullptr || diff < best_diff) {
        best = &c;
        best_diff = diff;
        first_diff = first;
      }
    }
    if (best != nullptr) {
      const ops::Argument& a = e.parsed.schema->arguments[first_diff];
      Finding f = make("error", "cpp.param_type", op,
                       "no definition has the generated declaration's parameter types (" + when +
                           "); the nearest differs in parameter " + std::to_string(first_diff + 1) +
                           " ('" + a.name + "', schema type " +
                           ops::print_annotated_type(a.type, a.annotation) + ")" + consequence,
                       best->file, Location{best->file, best->fn->line}, yaml_loc(e));
      f.expected = r.decl.to_string();
      f.found = best->fn->return_type + " " + best->fn->name + "(" + found_params(*best->fn) + ")";
      add(std::move(f));
      return;
    }
    // Named with or without _symint the other way round.
    const std::string& name = r.decl.name;
    const std::string other =
        detail::ends_with(name, "_symint") ? name.substr(0, name.size() - 7) : name + "_symint";
    const auto alt = kernels_.find(r.ns + "::" + other);
    if (alt != kernels_.end()) {
      const LocatedFn& c = alt->second.front();
      Finding f =
          make("error", "cpp.symint_suffix", op,
               "the generated interface declares " + qualified + " (" + when + ": the op is " +
                   (detail::ends_with(name, "_symint") ? "" : "not ") +
                   "in the YAML's symint section); the kernel is named " + other + consequence,
               c.file, Location{c.file, c.fn->line}, yaml_loc(e, r.ns));
      f.expected = r.decl.to_string();
      f.found = other;
      add(std::move(f));
      return;
    }
    if (!cands.empty()) {
      const LocatedFn& c = cands.front();
      Finding f =
          make("error", "cpp.param_count", op,
               qualified + " is defined with " + std::to_string(c.fn->params.size()) +
                   " parameters; the generated declaration has " +
                   std::to_string(r.decl.param_types.size()) + " (" + when + ")" + consequence,
               c.file, Location{c.file, c.fn->line}, yaml_loc(e));
      f.expected = r.decl.to_string();
      f.found = found_params(*c.fn);
      add(std::move(f));
      return;
    }
    Finding f =
        make("error", "cpp.missing", op,
             "YAML declares '" + r.ns + "' (" + when + ") but no " + qualified +
                 " is defined under " + (r.ns == "op_api" ? kOpApiDir : kAclOpsDir) + consequence,
             expected_file, Location{expected_file, 0}, yaml_loc(e, r.ns));
    f.expected = r.decl.to_string();
    f.found = "none";
    add(std::move(f));
  }

  std::string exec_name(const OpEntry& e) const {
    const Json* g = e.key("gen_opapi");
    if (g == nullptr || !g->is_object() || !g->contains("exec") || !(*g)["exec"].is_string()) {
      return "";
    }
    const std::string exec = (*g)["exec"].get<std::string>();
    return detail::trim(exec.substr(0, exec.find(',')));
  }

  static std::string found_params(const CppFunction& fn) {
    std::vector<std::string> parts;
    for (const CppParam& p : fn.params) parts.push_back(p.type + " " + p.name);
    return detail::join(parts, ", ");
  }

  // ---- meta ----------------------------------------------------------------------------------

  void check_meta(const OpEntry& e, const FunctionSchema& s) {
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
  void check_one_meta(const OpEntry& e, const FunctionSchema& s, const LocatedReg& lr) {
    const std::string op = e.op_name();
    const PyRegistration& r = *lr.reg;
    const Location here{lr.file, r.def_line};
    const Location schema_loc = yaml_loc(e);
    std::vector<const PyParam*> positional;  // positional-or-keyword, in order
    std::vector<const PyParam*> kwonly;
    bool star_args = false;
    bool star_kwargs = false;
    for (const PyParam& p : r.params) {
      if (p.varargs) {
        (detail::starts_with(p.name, "**") ? star_kwargs : star_args) = true;
      } else {
        (p.kwonly ? kwonly : positional).push_back(&p);
      }
    }
    std::vector<const ops::Argument*> s_pos;
    std::vector<const ops::Argument*> s_kw;
    for (const ops::Argument& a : s.arguments) (a.kwarg_only ? s_kw : s_pos).push_back(&a);
    // Positional values always passed: up to the last positional argument without a default.
    size_t always = 0;
    for (size_t i = 0; i < s_pos.size(); ++i) {
      if (!s_pos[i]->default_value) always = i + 1;
    }
    auto lists = [&](Finding& f) {
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
    };
    auto report = [&](const char* severity, const char* rule, const std::string& message) {
      Finding f = make(severity, rule, op, message, lr.file, here, schema_loc);
      lists(f);
      add(std::move(f));
    };
    const std::string call = "torch.ops.npu." + op;
    // 1. More positional values than positional parameters.
    if (!star_args && s_pos.size() > positional.size()) {
      const size_t m = positional.size();
      const std::string which = s_pos[m]->name;
      report("error", "meta.param_count",
             "the Meta function takes " + std::to_string(m) +
                 " positional parameter(s); the dispatcher passes up to " +
                 std::to_string(s_pos.size()) + " by position, so " +
                 (always > m ? "every call to " + call + " fails"
                             : "a call to " + call + " that sets '" + which + "'" + " fails") +
                 " with TypeError (too many positional arguments)");
    }
    std::map<std::string, const ops::Argument*> kw_by_name;
    for (const ops::Argument* a : s_kw) kw_by_name[a->name] = a;
    // 2. Positional arguments bind by position.
    for (size_t i = 0; i < s_pos.size() && i < positional.size(); ++i) {
      const ops::Argument& a = *s_pos[i];
      const PyParam& p = *positional[i];
      const bool names_other = std::any_of(
          s_pos.begin(), s_pos.end(), [&](const auto* o) { return o != &a && o->name == p.name; });
      if (p.name != a.name && names_other) {
        Finding f = make("warning", "meta.param_order", op,
                         "Meta parameter " + std::to_string(i + 1) + " is called '" + p.name +
                             "', the name of another schema argument, but receives '" + a.name +
                             "' (arguments bind by position): check the Meta body reads the "
                             "value it means",
                         lr.file, here, schema_loc);
        lists(f);
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
    std::set<const PyParam*> bound;
    bool split_reported = false;
    for (size_t i = 0; i < s_pos.size() && i < positional.size(); ++i) bound.insert(positional[i]);
    for (const ops::Argument* a : s_kw) {
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
        if (star_kwargs) continue;
        const std::string when = a->default_value
                                     ? "a call to " + call + " that sets '" + a->name + "'"
                                     : "every call to " + call;
        Finding f = make("error", "meta.kwarg_missing", op,
                         "keyword-only argument '" + a->name +
                             "' has no parameter of that name in the Meta function: " + when +
                             " passes it by name and fails with TypeError (unexpected keyword "
                             "argument)",
                         lr.file, here, schema_loc);
        lists(f);
        add(std::move(f));
        continue;
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
        lists(f);
        add(std::move(f));
        continue;
      }
      bound.insert(target);
      if (is_positional && !split_reported) {
        split_reported = true;
        Finding f = make("info", "meta.kwonly_split", op,
                         "'" + a->name +
                             "' is keyword-only in the schema and positional-or-keyword "
                             "in the Meta function: it still binds by name",
                         lr.file, here, schema_loc);
        lists(f);
        add(std::move(f));
      }
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
    for (const std::vector<const PyParam*>* group : {&positional, &kwonly}) {
      for (const PyParam* p : *group) {
        if (bound.count(p) != 0) continue;
        if (p->default_text) {
          Finding f = make("info", "meta.param_extra", op,
                           "the Meta parameter '" + p->name +
                               "' matches no schema argument; it always takes its default " +
                               *p->default_text,
                           lr.file, here, schema_loc);
          lists(f);
          add(std::move(f));
          continue;
        }
        Finding f = make("error", "meta.param_extra", op,
                         "the Meta parameter '" + p->name +
                             "' matches no schema argument and has no default: every call to " +
                             call + " fails with TypeError (missing argument)",
                         lr.file, here, schema_loc);
        lists(f);
        add(std::move(f));
      }
    }
    // Outputs.
    const int want = static_cast<int>(s.returns.size());
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
                         "the Meta function returns None where the schema returns a Tensor",
                         lr.file, Location{lr.file, ret.line}, schema_loc);
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
  void report_default_difference(const std::string& op, const ops::Argument& a, const PyParam& p,
                                 const PyRegistration& r, const std::string& file,
                                 const Location& here, const Location& schema_loc) {
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

  void check_orphan_registrations() {
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

  // ---- baseline, allowlist, tests, docs
  // ----------------------------------------------------------

  // test_op_func_compatibility, run in the mind at every version of all_version the test does not
  // skip: the baseline entries that apply there against the YAML's functions active there.
  void check_baseline() {
    struct Failure {
      std::string kind;  // incompatible | new | deleted
      std::string base;
      std::string now;
      std::vector<std::string> versions;
    };
    std::map<std::string, Failure> failures;  // "kind name" -> where it fails
    std::map<std::string, const OpEntry*> entry_of;
    for (const std::string& tag : yaml_.all_version) {
      if (tag == "v1.11" || tag == "v2.0" || tag == "v2.2") continue;  // @skipIf in the test
      std::map<std::string, std::string> base;  // "func: name" -> signature, first one wins
      for (const auto& [key, versions] : baseline_) {
        if (!baseline_applies(versions, tag)) continue;
        const auto [name, sig] = py_parse_func_str(key);
        base.emplace(name, sig);
      }
      std::map<std::string, std::string> now;
      for (const OpEntry& e : yaml_.entries) {
        if (e.section != "official" && e.section != "custom" && e.section != "quant") continue;
        if (e.section == "quant" && tag == "v2.1") continue;
        if (!interface_->active_at(e, tag)) continue;
        const auto [name, sig] = py_parse_func_str(e.schema_text);
        now["func: " + name] = sig;
        entry_of.emplace("func: " + name, &e);
      }
      auto fail = [&](const std::string& kind, const std::string& name, const std::string& b,
                      const std::string& n) {
        Failure& f = failures[kind + " " + name];
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

  void check_allowlist(const OpEntry& e, const FunctionSchema& s) {
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
      Finding f = make("warning", "allowlist.not_exposed", op,
                       "the allowlist lists " + name +
                           " for versions in which the YAML does not "
                           "expose it",
                       kAllowlistJson,
                       Location{kAllowlistJson, line_of(allowlist_text_, "\"" + name + "\"")},
                       yaml_loc(e, e.key("exposed") != nullptr ? "exposed" : "func"));
      f.expected = "exposed: covering " + join_versions(extra) + ", or the names removed";
      f.found = name + " listed in " + join_versions(extra);
      add(std::move(f));
    }
  }

  void check_test(const OpEntry& e, const FunctionSchema& s) {
    std::string base = s.name.base;
    if (detail::ends_with(base, "_backward")) return;  // covered by the forward op's test
    std::vector<std::string> names = {"test_" + base + ".py", "test_" + s.name.full_base() + ".py"};
    std::string stripped = base;
    while (!stripped.empty() && stripped[0] == '_') stripped.erase(0, 1);
    names.push_back("test_" + stripped + ".py");
    if (detail::starts_with(stripped, "npu_"))
      names.push_back("test_" + stripped.substr(4) + ".py");
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

  void check_doc(const OpEntry& e, const FunctionSchema& s) {
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
      out = options_.call_skill(
          "op-apidoc", {{"mode", "check"}, {"schema", e.schema_text}, {"doc_text", *text}});
    } catch (const std::exception& ex) {
      docs_usable_ = false;
      result_->checks_skipped.emplace_back(
          "docs: pages against schemas",
          std::string("the op-apidoc skill could not be called (") + ex.what() +
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

  // ---- derivatives ---------------------------------------------------------------------------

  void check_derivatives() {
    static const std::regex kCall(R"(\b(_?npu_[A-Za-z0-9_]*)\s*\()");
    static const std::regex kResult(R"(\bresult(\d+)\b)");
    static const std::regex kGrads(R"(\bgrads\[(\d+)\])");
    const std::string file = kDerivativesYaml;
    for (const OpEntry& d : derivs_->entries) {
      const std::string op = d.op_name();
      const std::string base = op.substr(0, op.find('.'));
      if (!options_.all && selected_names_.count(op) == 0 && selected_bases_.count(base) == 0) {
        continue;
      }
      const Location here{file, d.where.line};
      if (!d.parsed.ok()) {
        Finding f =
            make("error", "deriv.schema_parse", op,
                 "the derivatives name does not parse: " + d.parsed.error.to_string(), file, here);
        f.expected = "a function schema";
        f.found = d.schema_text;
        add(std::move(f));
        continue;
      }
      const FunctionSchema& s = *d.parsed.schema;
      auto forward = by_schema_.find(d.schema_text);
      if (forward == by_schema_.end()) forward = by_schema_.find(torch_npu_renamed(d.schema_text));
      if (forward == by_schema_.end()) {
        const auto named = by_name_.find(op);
        if (named != by_name_.end() && !named->second.empty()) {
          const OpEntry& fwd = *named->second.front();
          Finding f =
              make("error", "deriv.schema_mismatch", op,
                   "the derivatives name differs from the func in op_plugin_functions.yaml: "
                   "codegen finds no forward op for this formula",
                   file, here, yaml_loc(fwd));
          f.expected = fwd.schema_text;
          f.found = d.schema_text;
          add(std::move(f));
        } else if (torch_npu_ops_.count(op) == 0 && torch_npu_ops_.count(base) == 0) {
          // torch_npu defines some ops itself (npu_native_functions.yaml); without that file an
          // unknown name may be one of them.
          Finding f = make(have_torch_npu_ops_ ? "error" : "warning", "deriv.name_unknown", op,
                           std::string("the derivatives entry names an op that "
                                       "op_plugin_functions.yaml does not define") +
                               (have_torch_npu_ops_ ? " and torch_npu does not either"
                                                    : " (torch_npu's own ops not checked: pass "
                                                      "torch_npu)"),
                           file, here);
          f.expected = "an op of " + yaml_name_;
          f.found = op + "; nearest: " + detail::join(yaml_.nearest(op, 3), ", ");
          add(std::move(f));
        }
      }
      std::set<std::string> inputs;
      for (const ops::Argument& a : s.arguments) inputs.insert(a.name);
      const size_t nret = s.returns.size();
      for (auto it = d.keys.begin(); it != d.keys.end(); ++it) {
        const std::string& key = it.key();
        const Location kloc{file, d.key_lines.count(key) != 0 ? d.key_lines.at(key) : d.where.line};
        if (key == "name" || key == "version" || key == "result" || key == "dispatch") continue;
        if (key == "output_differentiability") {
          if (it.value().is_array() && it.value().size() != nret) {
            Finding f = make("error", "deriv.output_diff_len", op,
                             "output_differentiability has " + std::to_string(it.value().size()) +
                                 " entries, the op returns " + std::to_string(nret),
                             file, kloc, yaml_loc_for(d.schema_text));
            f.expected = std::to_string(nret);
            f.found = std::to_string(it.value().size());
            add(std::move(f));
          }
          continue;
        }
        size_t start = 0;
        while (start <= key.size()) {
          const size_t comma = key.find(',', start);
          const std::string name = detail::trim(key.substr(start, comma - start));
          if (!name.empty() && inputs.count(name) == 0) {
            Finding f = make("error", "deriv.unknown_input", op,
                             "a formula is given for '" + name + "', which is not an argument",
                             file, kloc, yaml_loc_for(d.schema_text));
            f.expected = detail::join(std::vector<std::string>(inputs.begin(), inputs.end()), ", ");
            f.found = name;
            add(std::move(f));
          }
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
        if (!it.value().is_string()) continue;
        const std::string formula = it.value().get<std::string>();
        for (std::sregex_iterator m(formula.begin(), formula.end(), kCall), end; m != end; ++m) {
          const std::string callee = (*m)[1];
          if (by_base_.count(callee) != 0 || by_name_.count(callee) != 0) continue;
          Finding f = make(
              "error", "deriv.backward_missing", op,
              "the formula calls " + callee + ", which op_plugin_functions.yaml does not define",
              yaml_name_, kloc);
          f.expected = "an entry 'func: " + callee + "(...)'";
          f.found = "none";
          add(std::move(f));
        }
        for (const std::regex* re : {&kResult, &kGrads}) {
          for (std::sregex_iterator m(formula.begin(), formula.end(), *re), end; m != end; ++m) {
            const size_t idx = std::stoul((*m)[1]);
            if (idx < nret) continue;
            Finding f = make("error", "deriv.result_index", op,
                             "the formula uses " + m->str() + " but the op returns " +
                                 std::to_string(nret) + " output(s)",
                             file, kloc, yaml_loc_for(d.schema_text));
            f.expected = "index < " + std::to_string(nret);
            f.found = m->str();
            add(std::move(f));
          }
        }
      }
      if (forward != by_schema_.end() && d.key("version") != nullptr) {
        std::set<std::string> fwd;
        for (const OpEntry* e : forward->second) {
          for (const std::string& v : active_versions(*e)) fwd.insert(v);
        }
        const auto extra =
            minus(ops::parse_version_spec(*d.key("version"), yaml_.all_version).versions, fwd);
        if (!extra.empty()) {
          Finding f = make("warning", "deriv.version_not_covered", op,
                           "the backward is registered for versions in which the forward op has "
                           "no kernel",
                           file, Location{file, d.key_lines.at("version")},
                           yaml_loc(*forward->second.front()));
          f.expected = "a subset of the forward's versions";
          f.found = "extra: " + join_versions(extra);
          add(std::move(f));
        }
      }
    }
  }

  Location yaml_loc_for(const std::string& schema) const {
    const auto it = by_schema_.find(schema);
    if (it == by_schema_.end()) return {};
    return yaml_loc(*it->second.front());
  }

  const Tree& tree_;
  const VerifyOptions& options_;
  VerifyResult* result_;
  std::string yaml_name_;
  OpSource yaml_;
  std::unique_ptr<OpSource> derivs_;
  std::unique_ptr<InterfaceModel> interface_;
  std::map<std::string, TypeAliases> aliases_;  // file -> its aliases
  std::map<std::string, std::vector<const OpEntry*>> by_name_;
  std::map<std::string, std::vector<const OpEntry*>> by_base_;
  std::map<std::string, std::vector<const OpEntry*>> by_schema_;
  std::vector<const OpEntry*> selected_;
  std::set<std::string> selected_names_;
  std::set<std::string> selected_bases_;
  std::set<std::string> have_kernel_dir_;
  std::vector<std::unique_ptr<std::vector<CppFunction>>> cpp_store_;
  std::map<std::string, std::vector<LocatedFn>> kernels_;
  std::vector<std::unique_ptr<std::vector<PyRegistration>>> py_store_;
  std::map<std::string, std::vector<LocatedReg>> registrations_;
  bool have_torch_npu_all_ = false;
  bool have_torch_npu_ops_ = false;
  std::set<std::string> torch_npu_all_;
  std::set<std::string> torch_npu_ops_;
  bool have_baseline_ = false;
  std::string baseline_text_;
  std::vector<std::pair<std::string, Json>> baseline_;  // "func: ..." key, its version list
  bool have_allowlist_ = false;
  std::string allowlist_text_;
  std::map<std::string, std::set<std::string>> allowlist_;
  bool have_tests_ = false;
  std::map<std::string, std::string> test_files_;
  bool have_docs_ = false;
  bool docs_usable_ = true;  // false once op-apidoc is found missing: said once, not per op
};

Json loc_json(const Location& l) {
  Json j = {{"file", l.file}};
  if (l.line > 0) j["line"] = l.line;
  return j;
}

}  // namespace

VerifyResult verify_tree(const Tree& tree, const VerifyOptions& options) {
  VerifyResult result;
  Checker(tree, options, &result).run();
  return result;
}

Json to_json(const VerifyResult& r) {
  Json findings = Json::array();
  for (const Finding& f : r.findings) {
    Json j = {{"severity", f.severity},
              {"rule", f.rule},
              {"op", f.op},
              {"message", f.message},
              {"expected", f.expected},
              {"found", f.found},
              {"change", f.change},
              {"where", loc_json(f.where)}};
    if (!f.other.file.empty()) j["other"] = loc_json(f.other);
    findings.push_back(std::move(j));
  }
  const size_t* counts = r.severity_counts;
  const Json by_rule = r.by_rule.is_null() ? Json::object() : r.by_rule;
  Json skipped = Json::array();
  for (const auto& [check, reason] : r.checks_skipped) {
    skipped.push_back({{"check", check}, {"reason", reason}});
  }
  return Json{{"clean", counts[0] == 0 && counts[1] == 0},
              {"ops_checked", r.ops_checked.size()},
              {"findings", findings},
              {"findings_total", r.findings_total},
              {"summary",
               {{"errors", counts[0]},
                {"warnings", counts[1]},
                {"infos", counts[2]},
                {"by_rule", by_rule}}},
              {"checks_run", r.checks_run},
              {"checks_skipped", skipped}};
}

}  // namespace skillrt::opa
