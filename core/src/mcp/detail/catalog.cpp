#include "mcp/detail/catalog.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "mcp/detail/skill_package.hpp"

namespace skillrt::mcp::detail {

namespace fs = std::filesystem;

namespace {

Result<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return fail(Code::kNotFound, "cannot open '" + path.string() + "': check that it exists");
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return fail(Code::kDataLoss, "cannot read '" + path.string() + "'");
  return buffer.str();
}

// The placeholders ({{name}}) a prompt body uses, in order of first use. Names are
// [A-Za-z0-9_-]+; anything else between braces is text.
std::vector<std::string> placeholders(std::string_view text) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (size_t open = text.find("{{"); open != std::string_view::npos;
       open = text.find("{{", open + 2)) {
    const size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    const std::string_view name = text.substr(open + 2, close - open - 2);
    const bool valid = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
    });
    if (valid && seen.insert(std::string(name)).second) out.emplace_back(name);
  }
  return out;
}

std::string substitute(std::string text, const std::map<std::string, std::string>& values,
                       std::string_view open, std::string_view close) {
  for (const auto& [name, value] : values) {
    const std::string key = std::string(open) + name + std::string(close);
    for (size_t pos = text.find(key); pos != std::string::npos;
         pos = text.find(key, pos + value.size())) {
      text.replace(pos, key.size(), value);
    }
  }
  return text;
}

// Replaces placeholders in every string of a JSON value.
nlohmann::json substitute_json(const nlohmann::json& value,
                               const std::map<std::string, std::string>& values) {
  if (value.is_string()) {
    return substitute(value.get<std::string>(), values, "{{", "}}");
  }
  if (value.is_array() || value.is_object()) {
    nlohmann::json out = value;
    for (auto& item : out) item = substitute_json(item, values);
    return out;
  }
  return value;
}

// A workflow prompt a skill declares in skills_dir/<skill>/prompts/<name>.md: the first line is
// its description (a leading '#' is dropped), the whole file is the user message, and every
// {{placeholder}} is a required argument.
Prompt skill_prompt(const std::string& skill, const fs::path& file, const std::string& text) {
  std::string first_line = text.substr(0, text.find('\n'));
  while (!first_line.empty() && (first_line.front() == '#' || first_line.front() == ' ')) {
    first_line.erase(0, 1);
  }
  nlohmann::json arguments = nlohmann::json::array();
  for (const std::string& name : placeholders(text)) {
    arguments.push_back({{"name", name}, {"required", true}});
  }
  Prompt prompt;
  prompt.descriptor = {{"name", skill + "-" + file.stem().string()},
                       {"title", first_line},
                       {"description", first_line + " (workflow of skill " + skill + ")"},
                       {"arguments", arguments}};
  prompt.messages =
      nlohmann::json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}}});
  return prompt;
}

Result<void> load_fixtures(
    const fs::path& file, std::vector<Resource>& resources,
    std::vector<ResourceTemplate>& templates, std::vector<Prompt>& prompts,
    std::vector<FixtureTool>& tools,
    std::map<std::string, std::map<std::string, std::vector<std::string>>>& completions) {
  auto text = read_file(file);
  if (!text) return std::unexpected(text.error());
  const auto doc = nlohmann::json::parse(*text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return fail(Code::kInvalidArgument,
                "fixtures file '" + file.string() + "' is not a JSON object: fix its syntax");
  }
  try {
    for (const auto& t : doc.value("tools", nlohmann::json::array())) {
      FixtureTool tool;
      tool.descriptor = t;
      tool.descriptor.erase("steps");
      tool.descriptor.erase("result");
      tool.descriptor.erase("requires");
      tool.steps = t.value("steps", nlohmann::json::array());
      tool.required_capabilities = t.value("requires", nlohmann::json::object());
      tool.result = t.at("result");
      tools.push_back(std::move(tool));
    }
    for (const auto& r : doc.value("resources", nlohmann::json::array())) {
      Resource res;
      res.descriptor = r;
      res.descriptor.erase("text");
      res.descriptor.erase("blob");
      if (r.contains("text")) res.text = r.at("text").get<std::string>();
      if (r.contains("blob")) res.blob = r.at("blob").get<std::string>();
      resources.push_back(std::move(res));
    }
    for (const auto& r : doc.value("resourceTemplates", nlohmann::json::array())) {
      ResourceTemplate t;
      t.descriptor = r;
      t.descriptor.erase("text");
      t.text = r.at("text").get<std::string>();
      templates.push_back(std::move(t));
    }
    for (const auto& p : doc.value("prompts", nlohmann::json::array())) {
      Prompt prompt;
      prompt.descriptor = p;
      prompt.descriptor.erase("messages");
      prompt.messages = p.at("messages");
      prompts.push_back(std::move(prompt));
    }
    const nlohmann::json completion_table = doc.value("completions", nlohmann::json::object());
    for (const auto& [prompt, args] : completion_table.items()) {
      for (const auto& [arg, values] : args.items()) {
        completions[prompt][arg] = values.get<std::vector<std::string>>();
      }
    }
  } catch (const nlohmann::json::exception& e) {
    return fail(Code::kInvalidArgument,
                "fixtures file '" + file.string() + "' has a malformed entry: " + e.what());
  }
  return {};
}

}  // namespace

Result<Catalog> Catalog::load(const Registry& registry, const fs::path& skills_dir,
                              const fs::path& fixtures_file) {
  Catalog catalog;
  std::error_code ec;
  for (const auto& skill : registry.all()) {
    catalog.skill_names_.push_back(skill->name);
    if (skills_dir.empty()) continue;
    const fs::path folder = skills_dir / skill->name;
    if (fs::is_regular_file(folder / "SKILL.md", ec)) {
      // A broken SKILL.md costs that skill its guide, not the server its other resources.
      if (auto package = load_skill_package(folder)) {
        catalog.skill_entries_.push_back(std::move(package->entry));
        for (auto& res : package->resources) catalog.resources_.push_back(std::move(res));
      } else {
        // Served as the file it is, as before the Skills extension, but not as a skill entry.
        spdlog::warn(
            "mcp: the SKILL.md of skill '{}' is served as a plain file, not listed by "
            "skills/list: {}",
            skill->name, package.error().message);
        Resource res;
        res.descriptor = {{"uri", "skill://" + skill->name + "/SKILL.md"},
                          {"name", skill->name + "/SKILL.md"},
                          {"title", "How to use the " + skill->name + " skill"},
                          {"description", skill->description},
                          {"mimeType", "text/markdown"}};
        res.file = folder / "SKILL.md";
        catalog.resources_.push_back(std::move(res));
      }
    }
    const fs::path prompt_dir = skills_dir / skill->name / "prompts";
    if (!fs::is_directory(prompt_dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(prompt_dir, ec)) {
      if (entry.path().extension() == ".md") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      auto text = read_file(file);
      if (!text) return std::unexpected(text.error());
      catalog.prompts_.push_back(skill_prompt(skill->name, file, *text));
    }
  }
  if (!skills_dir.empty()) {
    ResourceTemplate skill_doc;
    skill_doc.descriptor = {{"uriTemplate", "skill://{name}/SKILL.md"},
                            {"name", "skill-doc"},
                            {"title", "A skill's SKILL.md"},
                            {"description", "How to use one skill: inputs, outputs, examples"},
                            {"mimeType", "text/markdown"}};
    catalog.templates_.push_back(std::move(skill_doc));
  }
  if (!fixtures_file.empty()) {
    auto loaded = load_fixtures(fixtures_file, catalog.resources_, catalog.templates_,
                                catalog.prompts_, catalog.fixture_tools_, catalog.completions_);
    if (!loaded) return std::unexpected(loaded.error());
  }
  return catalog;
}

const nlohmann::json* Catalog::skill_entry(std::string_view uri) const {
  for (const auto& entry : skill_entries_) {
    if (entry.value("uri", "") == uri) return &entry;
  }
  return nullptr;
}

const FixtureTool* Catalog::fixture_tool(std::string_view name) const {
  for (const auto& tool : fixture_tools_) {
    if (tool.descriptor.value("name", "") == name) return &tool;
  }
  return nullptr;
}

std::optional<Result<nlohmann::json>> Catalog::read(std::string_view uri) const {
  for (const auto& res : resources_) {
    if (res.descriptor.value("uri", "") != uri) continue;
    const std::string mime = res.descriptor.value("mimeType", "text/plain");
    nlohmann::json content = {{"uri", uri}, {"mimeType", mime}};
    if (!res.file.empty()) {
      auto text = read_file(res.file);
      if (!text) return Result<nlohmann::json>(std::unexpected(text.error()));
      if (is_text_mime(mime)) {
        content["text"] = std::move(*text);
      } else {
        content["blob"] = base64_encode(*text);
      }
    } else if (res.blob) {
      content["blob"] = *res.blob;
    } else {
      content["text"] = res.text.value_or("");
    }
    return Result<nlohmann::json>(nlohmann::json::array({content}));
  }
  for (const auto& tmpl : templates_) {
    std::map<std::string, std::string> vars;
    if (!match_uri_template(tmpl.descriptor.value("uriTemplate", ""), uri, vars)) continue;
    const std::string mime = tmpl.descriptor.value("mimeType", "text/plain");
    // The skill-doc template reads the file; fixture templates fill in their text.
    if (tmpl.descriptor.value("name", "") == "skill-doc") {
      const std::string name = vars["name"];
      if (!is_valid_skill_name(name) ||
          std::find(skill_names_.begin(), skill_names_.end(), name) == skill_names_.end()) {
        continue;
      }
      for (const auto& res : resources_) {
        if (res.descriptor.value("uri", "") == uri) return read(uri);
      }
      continue;
    }
    nlohmann::json content = {
        {"uri", uri}, {"mimeType", mime}, {"text", substitute(tmpl.text, vars, "{", "}")}};
    return Result<nlohmann::json>(nlohmann::json::array({content}));
  }
  return std::nullopt;
}

Result<nlohmann::json> Catalog::get_prompt(std::string_view name,
                                           const nlohmann::json& arguments) const {
  for (const auto& prompt : prompts_) {
    if (prompt.descriptor.value("name", "") != name) continue;
    std::map<std::string, std::string> values;
    if (arguments.is_object()) {
      for (const auto& [key, value] : arguments.items()) {
        values[key] = value.is_string() ? value.get<std::string>() : value.dump();
      }
    }
    for (const auto& arg : prompt.descriptor.value("arguments", nlohmann::json::array())) {
      const std::string arg_name = arg.value("name", "");
      if (arg.value("required", false) && !values.contains(arg_name)) {
        return fail(Code::kInvalidArgument, "prompt '" + std::string(name) + "' needs argument '" +
                                                arg_name + "': pass it in params.arguments");
      }
    }
    nlohmann::json result = {{"messages", substitute_json(prompt.messages, values)}};
    if (prompt.descriptor.contains("description")) {
      result["description"] = prompt.descriptor["description"];
    }
    return result;
  }
  return fail(Code::kNotFound,
              "no prompt named '" + std::string(name) + "': list them with prompts/list");
}

std::vector<std::string> Catalog::complete(const nlohmann::json& ref, std::string_view argument,
                                           std::string_view prefix) const {
  std::vector<std::string> candidates;
  const std::string type = ref.value("type", "");
  if (type == "ref/prompt") {
    auto prompt = completions_.find(ref.value("name", ""));
    if (prompt != completions_.end()) {
      auto arg = prompt->second.find(std::string(argument));
      if (arg != prompt->second.end()) candidates = arg->second;
    }
  } else if (type == "ref/resource" && ref.value("uri", "") == "skill://{name}/SKILL.md" &&
             argument == "name") {
    candidates = skill_names_;
  }
  std::vector<std::string> out;
  for (auto& c : candidates) {
    if (c.starts_with(prefix)) out.push_back(std::move(c));
  }
  return out;
}

std::string base64_encode(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t n = (uint32_t(uint8_t(bytes[i])) << 16) |
                       (uint32_t(uint8_t(bytes[i + 1])) << 8) | uint8_t(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest == 1) {
    const uint32_t n = uint32_t(uint8_t(bytes[i])) << 16;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += "==";
  } else if (rest == 2) {
    const uint32_t n = (uint32_t(uint8_t(bytes[i])) << 16) | (uint32_t(uint8_t(bytes[i + 1])) << 8);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

std::string mime_type_for(const fs::path& path) {
  static const std::map<std::string, std::string> kTypes = {
      {".md", "text/markdown"},
      {".html", "text/html"},
      {".htm", "text/html"},
      {".json", "application/json"},
      {".jsonl", "application/x-ndjson"},
      {".csv", "text/csv"},
      {".txt", "text/plain"},
      {".log", "text/plain"},
      {".py", "text/x-python"},
      {".patch", "text/x-diff"},
      {".diff", "text/x-diff"},
      {".yaml", "application/yaml"},
      {".yml", "application/yaml"},
      {".xml", "application/xml"},
      {".png", "image/png"},
      {".svg", "image/svg+xml"},
      {".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
      {".npy", "application/octet-stream"},
  };
  auto it = kTypes.find(path.extension().string());
  return it == kTypes.end() ? "application/octet-stream" : it->second;
}

bool is_text_mime(std::string_view mime) {
  return mime.starts_with("text/") || mime == "application/json" ||
         mime == "application/x-ndjson" || mime == "application/yaml" ||
         mime == "application/xml" || mime == "image/svg+xml";
}

bool match_uri_template(std::string_view tmpl, std::string_view uri,
                        std::map<std::string, std::string>& vars) {
  size_t t = 0;
  size_t u = 0;
  while (t < tmpl.size()) {
    if (tmpl[t] != '{') {
      if (u >= uri.size() || uri[u] != tmpl[t]) return false;
      ++t;
      ++u;
      continue;
    }
    const size_t close = tmpl.find('}', t);
    if (close == std::string_view::npos) return false;
    const std::string name(tmpl.substr(t + 1, close - t - 1));
    t = close + 1;
    // A variable runs up to the template's next literal character and never spans a '/'.
    const char stop = t < tmpl.size() ? tmpl[t] : '\0';
    size_t end = u;
    while (end < uri.size() && uri[end] != '/' && (stop == '\0' || uri[end] != stop)) ++end;
    if (end == u) return false;
    vars[name] = std::string(uri.substr(u, end - u));
    u = end;
  }
  return u == uri.size();
}

}  // namespace skillrt::mcp::detail
