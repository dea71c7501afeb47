#include "router/skill_docs.hpp"

#include <yaml-cpp/yaml.h>

#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

namespace skillrt::router {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kAllowedKeys[] = {"name",          "description", "license",
                                             "compatibility", "metadata",    "allowed-tools"};

std::string where(const fs::path& origin) {
  return origin.empty() ? std::string("SKILL.md text") : origin.string();
}

// Splits "---\n<yaml>\n---\n<body>"; front_line is the file line where the YAML starts.
struct Split {
  std::string_view yaml, body;
};

Result<Split> split_front_matter(std::string_view text, const fs::path& origin) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  auto first_line_end = text.find('\n');
  std::string_view first = text.substr(0, first_line_end);
  if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
  if (first != "---" || first_line_end == std::string_view::npos) {
    return fail(Code::kInvalidArgument,
                where(origin) +
                    ": no YAML front matter; start the file with a '---' line, "
                    "then name and description, then a closing '---' line");
  }
  size_t pos = first_line_end + 1;
  while (pos <= text.size()) {
    size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol == std::string_view::npos ? text.npos : eol - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line == "---") {
      Split s;
      s.yaml = text.substr(first_line_end + 1, pos - first_line_end - 1);
      s.body = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
      return s;
    }
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
  }
  return fail(Code::kInvalidArgument,
              where(origin) + ": front matter is not closed; add a '---' line after it");
}

Result<std::vector<std::string>> string_list(const YAML::Node& node, const std::string& field,
                                             const fs::path& origin) {
  std::vector<std::string> out;
  if (!node) return out;
  if (node.IsScalar()) {
    // "a, b, c" is accepted too: the spec's metadata values are strings.
    std::stringstream in(node.as<std::string>());
    std::string item;
    while (std::getline(in, item, ',')) {
      auto b = item.find_first_not_of(" \t");
      auto e = item.find_last_not_of(" \t");
      if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
    }
    return out;
  }
  if (!node.IsSequence()) {
    return fail(Code::kInvalidArgument,
                where(origin) + ": " + field + " must be a list of strings");
  }
  for (const auto& item : node) {
    if (!item.IsScalar()) {
      return fail(Code::kInvalidArgument,
                  where(origin) + ": every item of " + field + " must be a string");
    }
    out.push_back(item.as<std::string>());
  }
  return out;
}

std::string collapse_whitespace(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

// POSIX shell single quotes; an embedded quote becomes '\'' so the line stays copy-pasteable.
std::string shell_quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

Result<void> write_atomically(const fs::path& file, const std::string& content) {
  fs::path tmp = file;
  tmp += ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return fail(Code::kPermissionDenied,
                  "cannot write " + tmp.string() + "; check that the directory is writable");
    }
    out << content;
    out.close();
    if (!out) {
      return fail(Code::kDataLoss, "writing " + tmp.string() + " failed; check free space");
    }
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return fail(Code::kPermissionDenied,
                "cannot move " + tmp.string() + " to " + file.string() + ": " + ec.message());
  }
  return {};
}

}  // namespace

std::string name_problem(std::string_view name) {
  if (name.empty()) return "name is empty";
  if (name.size() > kMaxNameLength) {
    return "name '" + std::string(name) + "' has " + std::to_string(name.size()) +
           " characters; the limit is " + std::to_string(kMaxNameLength);
  }
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
      return "name '" + std::string(name) +
             "' may only use lower-case letters, digits and '-' (kebab-case)";
    }
  }
  if (name.front() == '-' || name.back() == '-' || name.find("--") != std::string_view::npos) {
    return "name '" + std::string(name) + "' must not start or end with '-' or contain '--'";
  }
  if (kMcpToolPrefix.size() + name.size() > 64) {
    return "name '" + std::string(name) + "' makes the MCP tool name '" +
           std::string(kMcpToolPrefix) + std::string(name) +
           "' longer than the 64 characters clients accept; shorten it";
  }
  return {};
}

Result<SkillDoc> parse_skill_md(std::string_view text, const fs::path& origin) {
  auto split = split_front_matter(text, origin);
  if (!split) return std::unexpected(split.error());
  YAML::Node root;
  try {
    root = YAML::Load(std::string(split->yaml));
  } catch (const YAML::Exception& e) {
    // +2: the YAML starts on the line after the opening '---'.
    return fail(Code::kInvalidArgument, where(origin) + ":" + std::to_string(e.mark.line + 2) +
                                            ": front matter is not valid YAML: " + e.msg);
  }
  if (!root.IsMap()) {
    return fail(Code::kInvalidArgument,
                where(origin) + ": front matter must be a YAML mapping with name and description");
  }
  SkillDoc doc;
  doc.path = origin;
  doc.body = std::string(split->body);
  try {
    for (const auto& kv : root) {
      auto key = kv.first.as<std::string>();
      if (std::find(std::begin(kAllowedKeys), std::end(kAllowedKeys), key) ==
          std::end(kAllowedKeys)) {
        return fail(Code::kInvalidArgument,
                    where(origin) + ": unknown front matter key '" + key +
                        "'; the Agent Skills format allows name, description, license, "
                        "compatibility, metadata and allowed-tools (put extras under metadata)");
      }
    }
    if (!root["name"] || !root["name"].IsScalar()) {
      return fail(Code::kInvalidArgument, where(origin) +
                                              ": 'name' is missing; add "
                                              "'name: <folder name>' to the front "
                                              "matter");
    }
    doc.name = root["name"].as<std::string>();
    if (auto problem = name_problem(doc.name); !problem.empty()) {
      return fail(Code::kInvalidArgument, where(origin) + ": " + problem);
    }
    if (root["description"] && !root["description"].IsScalar() && !root["description"].IsNull()) {
      return fail(Code::kInvalidArgument,
                  where(origin) + ": 'description' must be one string, not a list or mapping");
    }
    if (!root["description"] || !root["description"].IsScalar()) {
      return fail(Code::kInvalidArgument,
                  where(origin) +
                      ": 'description' is missing; say what the skill does and "
                      "when to use it, in at most 1024 characters");
    }
    doc.description = root["description"].as<std::string>();
    size_t length = utf8_length(doc.description);
    if (collapse_whitespace(doc.description).empty()) {
      return fail(Code::kInvalidArgument, where(origin) + ": 'description' is empty");
    }
    if (length > kMaxDescriptionLength) {
      return fail(Code::kInvalidArgument,
                  where(origin) + ": 'description' has " + std::to_string(length) +
                      " characters; the limit is 1024, move detail into the body");
    }
    if (const auto& meta = root["metadata"]; meta) {
      if (!meta.IsMap()) {
        return fail(Code::kInvalidArgument, where(origin) + ": 'metadata' must be a mapping");
      }
      if (meta["plugin"]) doc.plugin = meta["plugin"].as<std::string>();
      if (meta["input_example"]) doc.example_input = meta["input_example"].as<std::string>();
      auto keywords = string_list(meta["keywords"], "metadata.keywords", origin);
      if (!keywords) return std::unexpected(keywords.error());
      doc.keywords = std::move(*keywords);
      if (const auto& ex = meta["examples"]; ex) {
        if (!ex.IsMap()) {
          return fail(Code::kInvalidArgument,
                      where(origin) + ": metadata.examples must map 'zh' and 'en' to lists");
        }
        auto zh = string_list(ex["zh"], "metadata.examples.zh", origin);
        if (!zh) return std::unexpected(zh.error());
        auto en = string_list(ex["en"], "metadata.examples.en", origin);
        if (!en) return std::unexpected(en.error());
        doc.examples_zh = std::move(*zh);
        doc.examples_en = std::move(*en);
      }
    }
  } catch (const YAML::Exception& e) {
    return fail(Code::kInvalidArgument, where(origin) + ":" + std::to_string(e.mark.line + 2) +
                                            ": unexpected front matter value: " + e.msg);
  }
  return doc;
}

Result<SkillDoc> read_skill_md(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return fail(Code::kNotFound,
                "cannot read " + path.string() + "; check that the file exists and is readable");
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto doc = parse_skill_md(buffer.str(), path);
  if (!doc) return doc;
  std::string folder = path.parent_path().filename().string();
  if (doc->name != folder) {
    return fail(Code::kInvalidArgument, path.string() + ": name '" + doc->name +
                                            "' differs from its folder '" + folder +
                                            "'; rename one so they match");
  }
  return doc;
}

SkillDocs read_skills_dir(const fs::path& dir) {
  SkillDocs out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    out.problems.push_back({dir, dir.string() + " is not a directory of skill folders"});
    return out;
  }
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory()) folders.push_back(entry.path());
  }
  std::sort(folders.begin(), folders.end());
  for (const auto& folder : folders) {
    fs::path file = folder / "SKILL.md";
    if (!fs::exists(file, ec)) {
      out.problems.push_back({folder, folder.string() + " has no SKILL.md; add one or remove "
                                                        "the folder"});
      continue;
    }
    auto doc = read_skill_md(file);
    if (!doc) {
      out.problems.push_back({file, doc.error().message});
      continue;
    }
    out.docs.push_back(std::move(*doc));
  }
  return out;
}

SkillDocs read_skills_dirs(const std::vector<fs::path>& dirs) {
  SkillDocs out;
  std::set<std::string> seen;
  std::error_code ec;
  for (const auto& dir : dirs) {
    if (!fs::is_directory(dir, ec)) continue;
    SkillDocs one = read_skills_dir(dir);
    for (auto& doc : one.docs) {
      if (seen.insert(doc.name).second) out.docs.push_back(std::move(doc));
    }
    for (auto& p : one.problems) out.problems.push_back(std::move(p));
  }
  std::sort(out.docs.begin(), out.docs.end(),
            [](const SkillDoc& a, const SkillDoc& b) { return a.name < b.name; });
  return out;
}

std::vector<DocProblem> reconcile(const std::vector<SkillDoc>& docs,
                                  const std::vector<std::string>& registered_skills) {
  std::vector<DocProblem> out;
  std::set<std::string> documented, registered(registered_skills.begin(), registered_skills.end());
  for (const auto& d : docs) documented.insert(d.name);
  for (const auto& name : registered) {
    if (!documented.contains(name)) {
      out.push_back({{},
                     "skill '" + name + "' has no SKILL.md; write skills/" + name +
                         "/SKILL.md so agents and the router know when to use it"});
    }
  }
  for (const auto& d : docs) {
    if (!registered.contains(d.name)) {
      out.push_back({d.path, d.path.string() + " describes skill '" + d.name +
                                 "', which no loaded plugin registers; build or load its "
                                 "plugin, or remove the file"});
    }
  }
  return out;
}

SkillCard to_card(const SkillDoc& doc) {
  SkillCard card{doc.name, doc.description, doc.keywords, {}};
  card.examples = doc.examples_zh;
  card.examples.insert(card.examples.end(), doc.examples_en.begin(), doc.examples_en.end());
  return card;
}

std::vector<SkillCard> to_cards(const std::vector<SkillDoc>& docs) {
  std::vector<SkillCard> cards;
  cards.reserve(docs.size());
  for (const auto& d : docs) cards.push_back(to_card(d));
  return cards;
}

Result<fs::path> export_root(const ExportOptions& options) {
  if (options.target == ExportTarget::kDirectory) {
    if (options.directory.empty()) {
      return fail(Code::kInvalidArgument, "export to a directory needs the directory path");
    }
    return options.directory;
  }
  bool claude = options.target == ExportTarget::kClaude;
  if (options.scope == ExportScope::kProject) {
    fs::path root = options.project_root.empty() ? fs::current_path() : options.project_root;
    return root / (claude ? ".claude/skills" : ".agents/skills");
  }
  fs::path home = options.home;
  if (home.empty()) {
    const char* env = std::getenv("HOME");
    if (env == nullptr || *env == '\0') {
      return fail(Code::kFailedPrecondition,
                  "HOME is not set, so the user skill directory is unknown; set HOME or use "
                  "--scope project");
    }
    home = env;
  }
  return home / (claude ? ".claude/skills" : ".codex/skills");
}

std::string render_exported(const SkillDoc& doc, const ExportOptions& options) {
  std::string input = doc.example_input.empty() ? "{}" : doc.example_input;
  std::string tool = std::string(kMcpToolPrefix) + doc.name;
  std::string cli = options.command + " run " + doc.name + " --input " + shell_quote(input);
  YAML::Emitter yaml;
  yaml << YAML::BeginMap;
  yaml << YAML::Key << "name" << YAML::Value << doc.name;
  // One line: some clients read only single-line descriptions.
  yaml << YAML::Key << "description" << YAML::Value << collapse_whitespace(doc.description);
  // The spec's metadata is a string-to-string map, so lists are not exported here.
  yaml << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  yaml << YAML::Key << "source" << YAML::Value << "skillrt";
  if (!doc.plugin.empty()) yaml << YAML::Key << "plugin" << YAML::Value << doc.plugin;
  yaml << YAML::Key << "mcp-tool" << YAML::Value << tool;
  yaml << YAML::Key << "cli" << YAML::Value << cli;
  yaml << YAML::EndMap;
  yaml << YAML::EndMap;

  std::string out = "---\n";
  out += yaml.c_str();
  out += "\n---\n\n";
  out += "## How to call this skill\n\n";
  out +=
      "It runs in skillrt, a local skill runtime; the agent does the reasoning, the skill "
      "does the deterministic work and returns JSON with its evidence.\n\n";
  out += "- If the `skillrt` MCP server is connected, call the tool `" + tool +
         "` with the input object.\n";
  out += "- Otherwise run it from a shell: `" + cli +
         "` (result JSON on stdout, logs on "
         "stderr; exit code 3 means the input failed its schema, and the message says where).\n";
  out += "- `" + options.command + " describe " + doc.name +
         "` prints the input and output schemas.\n\n";
  out += doc.body;
  if (!out.ends_with('\n')) out += '\n';
  return out;
}

Result<std::vector<fs::path>> export_skills(const std::vector<SkillDoc>& docs,
                                            const ExportOptions& options) {
  auto root = export_root(options);
  if (!root) return std::unexpected(root.error());
  std::vector<fs::path> written;
  std::error_code ec;
  for (const auto& doc : docs) {
    if (auto problem = name_problem(doc.name); !problem.empty()) {
      return fail(Code::kInvalidArgument, "cannot export: " + problem);
    }
    fs::path folder = *root / doc.name;
    fs::create_directories(folder, ec);
    if (ec) {
      return fail(Code::kPermissionDenied,
                  "cannot create " + folder.string() + ": " + ec.message());
    }
    fs::path file = folder / "SKILL.md";
    if (auto ok = write_atomically(file, render_exported(doc, options)); !ok) {
      return std::unexpected(ok.error());
    }
    written.push_back(file);
  }
  return written;
}

}  // namespace skillrt::router
