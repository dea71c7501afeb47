#include "cli/config_file.hpp"

#include <yaml-cpp/yaml.h>

#include <skillrt_embedded_schemas.h>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "schema/compiled_schema.hpp"

namespace skillrt::cli {

namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

// JSON Pointer of each converted node -> its 1-based line, so a schema violation can point at
// the line to edit rather than at a pointer the user has to trace by hand.
using LineMap = std::map<std::string, int>;

// YAML 1.2 core-schema typing for plain scalars; quoted scalars are always strings.
Json scalar_to_json(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  int64_t as_int = 0;
  if (auto [p, ec] = std::from_chars(begin, end, as_int); ec == std::errc() && p == end) {
    return as_int;
  }
  double as_double = 0;
  if (auto [p, ec] = std::from_chars(begin, end, as_double); ec == std::errc() && p == end) {
    return as_double;
  }
  return text;
}

Result<Json> to_json(const YAML::Node& node, const std::string& pointer, LineMap& lines) {
  lines[pointer] = node.Mark().line + 1;
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return Json(nullptr);
    case YAML::NodeType::Scalar:
      return scalar_to_json(node);
    case YAML::NodeType::Sequence: {
      Json out = Json::array();
      size_t index = 0;
      for (const auto& item : node) {
        auto value = to_json(item, pointer + "/" + std::to_string(index++), lines);
        if (!value) return value;
        out.push_back(std::move(*value));
      }
      return out;
    }
    case YAML::NodeType::Map: {
      Json out = Json::object();
      for (const auto& entry : node) {
        if (!entry.first.IsScalar()) {
          return fail(Code::kInvalidArgument,
                      "line " + std::to_string(entry.first.Mark().line + 1) +
                          ": a key must be a plain name, not a list or a map");
        }
        const std::string key = entry.first.Scalar();
        if (out.contains(key)) {
          return fail(Code::kInvalidArgument,
                      "line " + std::to_string(entry.first.Mark().line + 1) + ": key '" + key +
                          "' appears twice; keep one of them");
        }
        auto value = to_json(entry.second, (Json::json_pointer(pointer) / key).to_string(), lines);
        if (!value) return value;
        out[key] = std::move(*value);
      }
      return out;
    }
  }
  return Json(nullptr);
}

// The line of the deepest converted node on the violation's pointer.
int line_for(const LineMap& lines, std::string pointer) {
  while (true) {
    if (auto it = lines.find(pointer); it != lines.end()) return it->second;
    const auto slash = pointer.rfind('/');
    if (slash == std::string::npos) return 0;
    pointer.resize(slash);
  }
}

fs::path home_dir() {
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') return home;
  return {};
}

// "~/x" -> $HOME/x; relative -> beside the config file.
std::string resolve_path(const std::string& raw, const fs::path& base) {
  fs::path p;
  if (raw == "~" || raw.rfind("~/", 0) == 0) {
    p = home_dir() / raw.substr(raw.size() > 1 ? 2 : 1);
  } else {
    p = raw;
  }
  if (p.is_relative()) p = base / p;
  return p.lexically_normal().string();
}

std::vector<std::string> path_list(const Json& value, const fs::path& base) {
  std::vector<std::string> out;
  for (const auto& item : value) out.push_back(resolve_path(item.get<std::string>(), base));
  return out;
}

}  // namespace

const nlohmann::json& host_config_schema() {
  static const Json schema = Json::parse(skillrt_embedded::schema("config.schema"));
  return schema;
}

std::optional<fs::path> default_config_path() {
  fs::path dir;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
    dir = fs::path(xdg);
  } else if (auto home = home_dir(); !home.empty()) {
    dir = home / ".config";
  } else {
    return std::nullopt;
  }
  auto file = dir / "skillrt" / "config.yaml";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  return file;
}

Result<HostConfig> load_host_config(const fs::path& file) {
  const std::string where = "config file '" + file.string() + "'";
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    return fail(Code::kInvalidArgument,
                where + " does not exist: check the --config path, or create it (see docs/cli.md)");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in || fs::is_directory(file, ec)) {
    return fail(Code::kInvalidArgument, where + " cannot be read: check its permissions");
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return fail(Code::kInvalidArgument, where + " line " + std::to_string(e.mark.line + 1) +
                                            ", column " + std::to_string(e.mark.column + 1) +
                                            ": not valid YAML (" + e.msg + "); fix the syntax");
  }
  LineMap lines;
  Json doc = Json::object();
  if (root.IsDefined() && !root.IsNull()) {
    auto converted = to_json(root, "", lines);
    if (!converted) return fail(Code::kInvalidArgument, where + " " + converted.error().message);
    doc = std::move(*converted);
  }

  static const auto compiled = schema::CompiledSchema::compile(host_config_schema());
  if (!compiled) {
    return fail(Code::kInternal,
                "the host config schema does not compile: " + compiled.error().message);
  }
  if (auto violations = (*compiled)->validate(doc); !violations.empty()) {
    std::string message = where + " is not a valid skillrt configuration:";
    for (const auto& v : violations) {
      const int line = line_for(lines, v.pointer);
      message += "\n  ";
      if (line > 0) message += "line " + std::to_string(line) + ": ";
      message += v.message;
    }
    message += "\n(the fields are described in schemas/skillrt/config.schema.json and docs/cli.md)";
    return fail(Code::kInvalidArgument, message);
  }

  HostConfig config;
  config.file = fs::absolute(file, ec).lexically_normal();
  config.source = doc;
  const fs::path base = config.file.parent_path();
  if (doc.contains("plugin_paths")) config.plugin_paths = path_list(doc["plugin_paths"], base);
  if (doc.contains("skills_dirs")) config.skills_dirs = path_list(doc["skills_dirs"], base);
  if (doc.contains("default_plugins")) config.default_plugins = doc["default_plugins"].get<bool>();
  if (doc.contains("threads")) config.threads = doc["threads"].get<size_t>();
  if (doc.contains("isolation")) config.isolation = doc["isolation"].get<std::string>();
  if (doc.contains("worker_memory_mb")) {
    config.worker_memory_mb = doc["worker_memory_mb"].get<size_t>();
  }
  if (doc.contains("log_level")) config.log_level = doc["log_level"].get<std::string>();
  if (doc.contains("max_call_depth")) config.max_call_depth = doc["max_call_depth"].get<size_t>();
  if (doc.contains("deadlines")) {
    const auto& d = doc["deadlines"];
    if (d.contains("default_ms")) {
      config.default_deadline = std::chrono::milliseconds(d["default_ms"].get<int64_t>());
    }
    if (d.contains("grace_ms")) {
      config.grace = std::chrono::milliseconds(d["grace_ms"].get<int64_t>());
    }
    if (d.contains("skills")) {
      for (const auto& [skill, ms] : d["skills"].items()) {
        config.skill_deadlines[skill] = std::chrono::milliseconds(ms.get<int64_t>());
      }
    }
  }
  if (doc.contains("plugins")) {
    for (const auto& [name, entry] : doc["plugins"].items()) {
      if (entry.contains("isolation")) {
        config.plugin_isolation[name] = entry["isolation"].get<std::string>();
      }
      if (entry.contains("settings")) config.plugin_settings[name] = entry["settings"];
    }
  }
  return config;
}

}  // namespace skillrt::cli
