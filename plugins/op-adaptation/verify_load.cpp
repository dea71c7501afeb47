// verify, loading: the YAML, the ops to check, and what the checkout holds to check them against
// (kernels, Meta registrations, schema baseline, public-API allowlist, tests, docs, torch_npu).
#include <filesystem>
#include <regex>

#include "detail/text.hpp"
#include "detail/verify_checker.hpp"

namespace skillrt::opa::detail {

void Checker::load_yaml() {
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

void Checker::select_ops() {
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

void Checker::load_torch_npu() {
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
  result_->torch_npu_note = read.empty() ? "neither torch_npu/__init__.py nor torch_npu/csrc/aten/"
                                           "npu_native_functions.yaml found under " +
                                               options_.torch_npu
                                         : "read " + detail::join(read, ", ");
}

void Checker::load_derivatives() {
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

void Checker::load_sources() {
  load_kernels();
  load_registrations();
  load_baseline();
  load_allowlist();
  load_tests_and_docs();
}

// C++ kernels: the functions of namespace op_api / acl_op in each kernel directory.
void Checker::load_kernels() {
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
}

// Meta / fake registrations.
void Checker::load_registrations() {
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
}

// The schema baseline test_compatibility compares against.
void Checker::load_baseline() {
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
}

// The public-API allowlist: {"torch_npu": {version: [names]}}.
void Checker::load_allowlist() {
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
}

// Tests and docs: only where the checkout has those trees.
void Checker::load_tests_and_docs() {
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

}  // namespace skillrt::opa::detail
