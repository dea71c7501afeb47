// One skill as the MCP Skills extension (SEP-2640, io.modelcontextprotocol/skills) serves it:
// its SKILL.md as `skills export` writes it, the other files of its folder, and the entry that
// skills/list and skills/get return (uri, frontmatter, and every file's sha256 digest and size).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "mcp/detail/catalog.hpp"

namespace skillrt::mcp::detail {

inline constexpr std::string_view kSkillsExtension = "io.modelcontextprotocol/skills";

struct SkillPackage {
  nlohmann::json entry;             // {uri, frontmatter, resources: [{uri, digest, size}]}
  std::vector<Resource> resources;  // SKILL.md first, then the folder's other files
};

// Reads `folder` (which holds SKILL.md). The served SKILL.md is the exported form (spec front
// matter, a section on calling the skill through skillrt, then the author's body), so an agent
// sees the same text over MCP as in the folder `skillrt skills export` writes. Errors name the
// file that could not be read or parsed.
Result<SkillPackage> load_skill_package(const std::filesystem::path& folder);

// "sha256:" and 64 lowercase hex digits of `bytes`.
std::string sha256_digest(std::string_view bytes);

// The YAML front matter of a SKILL.md as JSON, with YAML's core types for plain scalars
// (true, 3, 1.5, null) and strings for quoted ones; an object, or an error naming `origin`.
Result<nlohmann::json> front_matter_json(std::string_view text, const std::string& origin);

}  // namespace skillrt::mcp::detail
