// What the server offers besides the registry's skills: each skill's SKILL.md and workflow
// prompts from the skills folder, and (tests only) the conformance fixtures from a data file.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "registry/registry.hpp"

namespace skillrt::mcp::detail {

struct Resource {
  nlohmann::json descriptor;        // what resources/list shows: uri, name, mimeType, ...
  std::filesystem::path file;       // read on demand when set
  std::optional<std::string> text;  // inline content otherwise
  std::optional<std::string> blob;  // inline base64 content
};

struct ResourceTemplate {
  nlohmann::json descriptor;  // uriTemplate, name, mimeType
  std::string text;           // content with {var} placeholders filled from the URI
};

struct Prompt {
  nlohmann::json descriptor;  // name, description, arguments
  nlohmann::json messages;    // with {{arg}} placeholders in text fields
};

// A scripted tool from the fixtures file: steps (log, progress) then a fixed result.
struct FixtureTool {
  nlohmann::json descriptor;
  nlohmann::json steps;
  nlohmann::json result;
  // Client capabilities the tool needs ({"sampling": {}}); a stateless request that does not
  // declare them is refused with -32021.
  nlohmann::json required_capabilities = nlohmann::json::object();
};

class Catalog {
 public:
  // Reads skills_dir (may be empty or missing: then no SKILL.md resources) and the fixtures file
  // (may be empty). A fixtures file that cannot be read or parsed is an error naming it.
  static Result<Catalog> load(const Registry& registry, const std::filesystem::path& skills_dir,
                              const std::filesystem::path& fixtures_file);

  const std::vector<Resource>& resources() const { return resources_; }
  const std::vector<ResourceTemplate>& templates() const { return templates_; }
  const std::vector<Prompt>& prompts() const { return prompts_; }
  const FixtureTool* fixture_tool(std::string_view name) const;
  // The skills/list entries of the skills with a SKILL.md (SEP-2640), sorted by registry order.
  const std::vector<nlohmann::json>& skill_entries() const { return skill_entries_; }
  // The entry whose uri is `uri` (skill://<name>/SKILL.md), or null.
  const nlohmann::json* skill_entry(std::string_view uri) const;
  const std::vector<FixtureTool>& fixture_tools() const { return fixture_tools_; }

  // The `contents` array of resources/read for a static or templated URI; nullopt when the URI
  // is unknown. Errors are I/O failures on a known resource.
  std::optional<Result<nlohmann::json>> read(std::string_view uri) const;
  // The prompts/get result, or an error (kNotFound, kInvalidArgument) saying what to send.
  Result<nlohmann::json> get_prompt(std::string_view name, const nlohmann::json& arguments) const;
  // Values for completion/complete: prompt argument values or skill names in templates.
  std::vector<std::string> complete(const nlohmann::json& ref, std::string_view argument,
                                    std::string_view prefix) const;

 private:
  std::vector<Resource> resources_;
  std::vector<ResourceTemplate> templates_;
  std::vector<Prompt> prompts_;
  std::vector<FixtureTool> fixture_tools_;
  std::vector<std::string> skill_names_;
  std::vector<nlohmann::json> skill_entries_;
  // prompt name -> argument name -> candidate values (fixtures only).
  std::map<std::string, std::map<std::string, std::vector<std::string>>> completions_;
};

std::string base64_encode(std::string_view bytes);
// The MIME type clients should assume for a file, by extension.
std::string mime_type_for(const std::filesystem::path& path);
bool is_text_mime(std::string_view mime);
// Matches a level-1 URI template ("test://template/{id}/data"); fills `vars` on success.
bool match_uri_template(std::string_view tmpl, std::string_view uri,
                        std::map<std::string, std::string>& vars);

}  // namespace skillrt::mcp::detail
