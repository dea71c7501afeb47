#include "optoolkit/sources.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "detail/edit_distance.hpp"
#include "detail/yaml_tree.hpp"

namespace skillrt::ops {
namespace {

constexpr std::string_view kOpPluginSections[] = {"official", "autograd", "custom",     "symint",
                                                  "quant",    "tocpu",    "unsupported"};
// Keys whose value is an op-plugin version spec.
constexpr std::string_view kVersionKeys[] = {"acl_op", "op_api", "exposed", "internal_format_opapi",
                                             "dvm",    "sparse", "version"};

using detail::YamlNode;

size_t line_of(const YamlNode& node) { return node.line; }

// Scalars stay strings as written; YAML null becomes JSON null.
Json to_json(const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::kScalar:
      return node.scalar;
    case YamlNode::Kind::kSequence: {
      Json a = Json::array();
      for (const YamlNode& item : node.items) a.push_back(to_json(item));
      return a;
    }
    case YamlNode::Kind::kMap: {
      Json o = Json::object();
      for (const auto& [k, v] : node.entries) o[k.scalar] = to_json(v);
      return o;
    }
    case YamlNode::Kind::kNull:
      break;
  }
  return nullptr;
}

bool is_op_plugin_section(std::string_view key) {
  return std::find(std::begin(kOpPluginSections), std::end(kOpPluginSections), key) !=
         std::end(kOpPluginSections);
}

SourceFormat detect(const YamlNode& root) {
  if (root.kind == YamlNode::Kind::kSequence) {
    for (const YamlNode& item : root.items) {
      if (item.kind != YamlNode::Kind::kMap) continue;
      if (item.find("func")) return SourceFormat::kNativeFunctions;
      if (item.find("name")) return SourceFormat::kDerivatives;
    }
    return SourceFormat::kUnknown;
  }
  if (root.kind != YamlNode::Kind::kMap) return SourceFormat::kUnknown;
  if (root.find("backward")) return SourceFormat::kOpPluginDerivatives;
  for (const auto& [k, v] : root.entries) {
    if (is_op_plugin_section(k.scalar)) return SourceFormat::kOpPluginFunctions;
  }
  return SourceFormat::kUnknown;
}

class Loader {
 public:
  Loader(OpSource* out, Grammar grammar) : out_(out), grammar_(grammar) {}

  void entries(const YamlNode& list, std::string_view schema_key, const std::string& section) {
    if (list.kind != YamlNode::Kind::kSequence) {
      if (list.kind != YamlNode::Kind::kNull) {
        issue(line_of(list), "section '" + section + "' is not a list; skipped");
      }
      return;
    }
    for (const YamlNode& item : list.items) entry(item, schema_key, section);
  }

 private:
  void issue(size_t line, std::string message) {
    out_->issues.push_back(SourceIssue{SourceLocation{out_->file, line}, std::move(message)});
  }

  void entry(const YamlNode& item, std::string_view schema_key, const std::string& section) {
    if (item.kind != YamlNode::Kind::kMap) {
      issue(line_of(item), "list item is not a mapping; expected '" + std::string(schema_key) +
                               ": <schema>' and its keys");
      return;
    }
    OpEntry e;
    e.section = section;
    e.keys = Json::object();
    for (const auto& [k, v] : item.entries) {
      const std::string& key = k.scalar;
      if (e.keys.contains(key)) {
        issue(line_of(k), "duplicate key '" + key + "' in one entry; the first is kept");
        continue;
      }
      e.keys[key] = to_json(v);
      e.key_lines[key] = line_of(k);
    }
    const auto it = e.key_lines.find(std::string(schema_key));
    if (it == e.key_lines.end() || !e.keys[std::string(schema_key)].is_string()) {
      issue(line_of(item), "entry has no '" + std::string(schema_key) + ": <schema>' key");
      return;
    }
    e.schema_text = e.keys[std::string(schema_key)].get<std::string>();
    e.where = SourceLocation{out_->file, it->second};
    e.parsed = parse_schema(e.schema_text, grammar_);
    if (!e.parsed.ok()) {
      issue(e.where.line,
            "schema '" + e.schema_text + "' does not parse: " + e.parsed.error.to_string());
    }
    for (std::string_view vk : kVersionKeys) {
      if (!e.keys.contains(std::string(vk)) || out_->all_version.empty()) continue;
      const VersionSpec spec = parse_version_spec(e.keys[std::string(vk)], out_->all_version);
      if (!spec.problem.empty()) {
        issue(e.key_lines[std::string(vk)],
              "'" + std::string(vk) + "' of " + e.op_name() + ": " + spec.problem);
      }
    }
    out_->entries.push_back(std::move(e));
  }

  OpSource* out_;
  Grammar grammar_;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw SourceError("cannot open '" + path + "'; check the path and that it is readable");
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string_view to_string(SourceFormat format) {
  switch (format) {
    case SourceFormat::kNativeFunctions:
      return "native_functions";
    case SourceFormat::kDerivatives:
      return "derivatives";
    case SourceFormat::kOpPluginFunctions:
      return "op_plugin_functions";
    case SourceFormat::kOpPluginDerivatives:
      return "op_plugin_derivatives";
    case SourceFormat::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view to_string(VersionSpec::Form form) {
  switch (form) {
    case VersionSpec::Form::kKeyword:
      return "keyword";
    case VersionSpec::Form::kRange:
      return "range";
    case VersionSpec::Form::kSingle:
      return "single";
    case VersionSpec::Form::kCommaList:
      return "comma_list";
    case VersionSpec::Form::kInvalid:
      break;
  }
  return "invalid";
}

Grammar grammar_for(SourceFormat format) {
  if (format == SourceFormat::kOpPluginFunctions || format == SourceFormat::kOpPluginDerivatives) {
    return Grammar::torchnpugen();
  }
  Grammar g = Grammar::upstream();
  g.base_types |= kTorchnpugenBaseTypes;
  return g;
}

VersionSpec parse_version_spec(const Json& value, const std::vector<std::string>& all_version) {
  VersionSpec spec;
  if (value.is_array()) {
    spec.written = "[";
    for (size_t i = 0; i < value.size(); ++i) {
      if (i) spec.written += ", ";
      spec.written += value[i].is_string() ? value[i].get<std::string>() : value[i].dump();
    }
    spec.written += "]";
    // op-plugin's codegen reads a list as an inclusive index range, never as an enumeration.
    if (value.size() != 2 || !value[0].is_string() || !value[1].is_string()) {
      spec.problem =
          "a version list must be a range of exactly two versions, e.g. "
          "[v2.1, newest]; found " +
          spec.written;
      return spec;
    }
    const std::string first = value[0].get<std::string>();
    const std::string last = value[1].get<std::string>();
    const auto begin = std::find(all_version.begin(), all_version.end(), first);
    if (begin == all_version.end()) {
      spec.problem = "range start '" + first + "' is not in all_version";
      return spec;
    }
    auto end = all_version.end();
    if (last != "newest") {
      end = std::find(all_version.begin(), all_version.end(), last);
      if (end == all_version.end()) {
        spec.problem = "range end '" + last + "' is neither 'newest' nor in all_version";
        return spec;
      }
      ++end;
    }
    spec.form = VersionSpec::Form::kRange;
    if (begin < end) spec.versions.assign(begin, end);
    return spec;
  }
  if (!value.is_string()) {
    spec.written = value.dump();
    spec.problem = "expected all_version, a version, a comma list or a [first, last] range";
    return spec;
  }
  spec.written = value.get<std::string>();
  if (spec.written == "all_version") {
    spec.form = VersionSpec::Form::kKeyword;
    spec.versions = all_version;
    return spec;
  }
  if (spec.written.find(',') == std::string::npos) {
    spec.form = VersionSpec::Form::kSingle;
    spec.versions.push_back(spec.written);
    return spec;
  }
  // Codegen splits on ", " when present, otherwise on ",".
  const std::string sep = spec.written.find(", ") != std::string::npos ? ", " : ",";
  size_t pos = 0;
  while (true) {
    const size_t next = spec.written.find(sep, pos);
    spec.versions.push_back(spec.written.substr(pos, next - pos));
    if (next == std::string::npos) break;
    pos = next + sep.size();
  }
  spec.form = VersionSpec::Form::kCommaList;
  return spec;
}

std::string OpEntry::op_name() const {
  if (parsed.ok()) return parsed.schema->name.qualified();
  return schema_text.substr(0, schema_text.find('('));
}

const Json* OpEntry::key(std::string_view name) const {
  const auto it = keys.find(std::string(name));
  return it == keys.end() ? nullptr : &*it;
}

std::string OpEntry::text(std::string_view name) const {
  const Json* v = key(name);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

std::vector<std::string> OpEntry::items(std::string_view name) const {
  std::vector<std::string> out;
  const Json* v = key(name);
  if (v == nullptr) return out;
  auto split_add = [&out](const std::string& s) {
    size_t pos = 0;
    while (pos <= s.size()) {
      size_t next = s.find(',', pos);
      if (next == std::string::npos) next = s.size();
      std::string item = s.substr(pos, next - pos);
      const size_t b = item.find_first_not_of(' ');
      const size_t e = item.find_last_not_of(' ');
      if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
      pos = next + 1;
    }
  };
  if (v->is_string()) split_add(v->get<std::string>());
  if (v->is_array()) {
    for (const Json& item : *v) {
      if (item.is_string()) split_add(item.get<std::string>());
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> OpEntry::dispatch() const {
  std::vector<std::pair<std::string, std::string>> out;
  const Json* v = key("dispatch");
  if (v == nullptr || !v->is_object()) return out;
  for (const auto& [keys_text, kernel] : v->items()) {
    const std::string k = kernel.is_string() ? kernel.get<std::string>() : kernel.dump();
    size_t pos = 0;
    while (pos <= keys_text.size()) {
      size_t next = keys_text.find(',', pos);
      if (next == std::string::npos) next = keys_text.size();
      std::string one = keys_text.substr(pos, next - pos);
      const size_t b = one.find_first_not_of(' ');
      const size_t e = one.find_last_not_of(' ');
      if (b != std::string::npos) out.emplace_back(one.substr(b, e - b + 1), k);
      pos = next + 1;
    }
  }
  return out;
}

std::optional<bool> OpEntry::flag(std::string_view name) const {
  const std::string t = text(name);
  if (t == "True" || t == "true") return true;
  if (t == "False" || t == "false") return false;
  return std::nullopt;
}

std::vector<const OpEntry*> OpSource::find(std::string_view name) const {
  std::vector<const OpEntry*> out;
  for (const OpEntry& e : entries) {
    if (e.op_name() == name) out.push_back(&e);
  }
  return out;
}

std::vector<std::string> OpSource::nearest(std::string_view name, size_t limit) const {
  std::vector<std::pair<size_t, std::string>> scored;
  std::vector<std::string> seen;
  for (const OpEntry& e : entries) {
    std::string n = e.op_name();
    if (std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
    seen.push_back(n);
    scored.emplace_back(detail::name_distance(name, n), std::move(n));
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < limit; ++i) out.push_back(scored[i].second);
  return out;
}

namespace {

YamlNode read_yaml(std::string_view text, const std::string& file) {
  try {
    return detail::read_yaml_subset(text);
  } catch (const detail::YamlUnsupported&) {
    // Outside the fast reader's subset: yaml-cpp reads it (slower, complete).
  }
  try {
    return detail::read_yaml_full(std::string(text));
  } catch (const std::runtime_error& e) {
    throw SourceError("'" + file + "' is not valid YAML: " + e.what());
  }
}

}  // namespace

OpSource load_source_text(std::string_view text, std::string file, SourceFormat format) {
  const YamlNode root = read_yaml(text, file);
  OpSource out;
  out.file = std::move(file);
  out.format = format == SourceFormat::kUnknown ? detect(root) : format;
  Loader loader(&out, grammar_for(out.format));
  switch (out.format) {
    case SourceFormat::kNativeFunctions:
      loader.entries(root, "func", "");
      break;
    case SourceFormat::kDerivatives:
      loader.entries(root, "name", "");
      break;
    case SourceFormat::kOpPluginFunctions:
    case SourceFormat::kOpPluginDerivatives: {
      if (root.kind != YamlNode::Kind::kMap) {
        throw SourceError("'" + out.file + "' is not a mapping at the top");
      }
      out.top_level = Json::object();
      if (const YamlNode* all = root.find("all_version")) {
        for (const Json& v : to_json(*all)) {
          if (v.is_string()) out.all_version.push_back(v.get<std::string>());
        }
      }
      for (const auto& [k, v] : root.entries) {
        const std::string& key = k.scalar;
        const bool section = out.format == SourceFormat::kOpPluginFunctions
                                 ? is_op_plugin_section(key)
                                 : key == "backward";
        if (section) {
          loader.entries(v, out.format == SourceFormat::kOpPluginFunctions ? "func" : "name", key);
        } else {
          out.top_level[key] = to_json(v);
          if (key != "all_version") {
            out.issues.push_back(SourceIssue{SourceLocation{out.file, line_of(k)},
                                             "unknown top-level key '" + key + "' kept as is"});
          }
        }
      }
      break;
    }
    case SourceFormat::kUnknown:
      throw SourceError("'" + out.file +
                        "' is none of native_functions.yaml, derivatives.yaml, "
                        "op_plugin_functions.yaml or op-plugin derivatives.yaml: expected a list "
                        "of '- func:' / '- name:' entries or op-plugin sections");
  }
  return out;
}

OpSource load_source_file(const std::string& path, SourceFormat format) {
  return load_source_text(read_file(path), path, format);
}

std::string resolve_source_path(const std::string& path_or_checkout) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path_or_checkout);
  if (fs::is_regular_file(p, ec)) return path_or_checkout;
  if (!fs::is_directory(p, ec)) {
    throw SourceError("source '" + path_or_checkout +
                      "' does not exist; give a YAML file or a "
                      "PyTorch / op-plugin checkout");
  }
  static const char* const kCandidates[] = {"aten/src/ATen/native/native_functions.yaml",
                                            "op_plugin/config/op_plugin_functions.yaml",
                                            "torchgen/packaged/ATen/native/native_functions.yaml",
                                            "native_functions.yaml", "op_plugin_functions.yaml"};
  for (const char* c : kCandidates) {
    if (fs::is_regular_file(p / c, ec)) return (p / c).string();
  }
  std::string tried;
  for (const char* c : kCandidates) tried += std::string(tried.empty() ? "" : ", ") + c;
  throw SourceError("directory '" + path_or_checkout + "' holds none of: " + tried +
                    "; pass the YAML file itself");
}

}  // namespace skillrt::ops
