// SKILL.md files (Agent Skills format): read, validate, turn into router cards, export to
// where Claude Code and Codex look for skills.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "common/utf8.hpp"
#include "router/router.hpp"

namespace skillrt::router {

// Agent Skills limits (agentskills.io): name 1-64 of [a-z0-9-], no leading, trailing or
// doubled hyphen, equal to its folder; description 1-1024 characters.
inline constexpr size_t kMaxNameLength = 64;
inline constexpr size_t kMaxDescriptionLength = 1024;
// MCP clients show tools as mcp__<server>__<tool> and cap the whole name at 64 characters.
inline constexpr std::string_view kMcpToolPrefix = "mcp__skillrt__";

struct SkillDoc {
  std::filesystem::path path;  // the SKILL.md file; empty for parsed text
  std::string name;
  std::string description;
  std::string plugin;  // metadata.plugin
  std::vector<std::string> keywords;
  std::vector<std::string> examples_zh, examples_en;
  std::string example_input;  // metadata.input_example: JSON text for `skillrt run`
  std::string body;           // Markdown after the front matter
};

struct DocProblem {
  std::filesystem::path path;
  std::string message;
};

struct SkillDocs {
  std::vector<SkillDoc> docs;  // valid documents, sorted by name
  std::vector<DocProblem> problems;
};

// Checks a name against the Agent Skills rules; returns what is wrong, or empty.
std::string name_problem(std::string_view name);
// Characters in UTF-8 text (code points), the unit the description limit counts.
using skillrt::utf8_length;

// Parses SKILL.md text: front matter between '---' lines, then the body. `origin` names
// the file in messages. Validates every rule except the folder match.
Result<SkillDoc> parse_skill_md(std::string_view text, const std::filesystem::path& origin);
// Reads and validates one SKILL.md, including that its name equals its folder's name.
Result<SkillDoc> read_skill_md(const std::filesystem::path& path);
// Reads <dir>/*/SKILL.md. Folders without SKILL.md and invalid files become problems.
SkillDocs read_skills_dir(const std::filesystem::path& dir);
// Reads several skill directories; a skill found in an earlier one hides later ones of the
// same name (user overrides before built-ins). Missing directories are skipped.
SkillDocs read_skills_dirs(const std::vector<std::filesystem::path>& dirs);
// Problems between registered skills and their documents: skills without a SKILL.md and
// SKILL.md files without a skill.
std::vector<DocProblem> reconcile(const std::vector<SkillDoc>& docs,
                                  const std::vector<std::string>& registered_skills);

SkillCard to_card(const SkillDoc& doc);
std::vector<SkillCard> to_cards(const std::vector<SkillDoc>& docs);

enum class ExportTarget { kClaude, kCodex, kDirectory };
enum class ExportScope { kUser, kProject };

struct ExportOptions {
  ExportTarget target = ExportTarget::kClaude;
  ExportScope scope = ExportScope::kProject;
  std::filesystem::path directory;     // the destination for kDirectory
  std::filesystem::path home;          // user scope root; empty: $HOME
  std::filesystem::path project_root;  // project scope root; empty: current directory
  std::string command = "skillrt";     // how the agent starts the CLI
};

// Where a target keeps skills: Claude Code .claude/skills (project) or ~/.claude/skills
// (user); Codex .agents/skills (project) or ~/.codex/skills (user); or the directory.
Result<std::filesystem::path> export_root(const ExportOptions& options);
// The SKILL.md text an exported skill gets: spec front matter (name, description, metadata
// as a string map) and the body with a section on how to call the skill through skillrt.
std::string render_exported(const SkillDoc& doc, const ExportOptions& options);
// Writes <root>/<name>/SKILL.md for every document (atomically: temp file and rename).
// Returns the written files.
Result<std::vector<std::filesystem::path>> export_skills(const std::vector<SkillDoc>& docs,
                                                         const ExportOptions& options);

}  // namespace skillrt::router
