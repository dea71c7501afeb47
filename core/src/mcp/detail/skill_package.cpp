#include "mcp/detail/skill_package.hpp"

#include <openssl/evp.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "router/skill_docs.hpp"

namespace skillrt::mcp::detail {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The extension's per-skill limits: what every conforming host accepts.
constexpr size_t kMaxFiles = 512;
constexpr size_t kMaxBytes = 16u << 20;

Result<std::string> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(Code::kNotFound, "cannot open '" + path.string() + "'");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return fail(Code::kDataLoss, "cannot read '" + path.string() + "'");
  return buffer.str();
}

// YAML 1.2 core schema resolution of a plain scalar, the way clients' YAML parsers read it.
json plain_scalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  const char* begin = s.data() + (s.front() == '+' ? 1 : 0);
  const char* end = s.data() + s.size();
  int64_t integer = 0;
  if (auto [p, ec] = std::from_chars(begin, end, integer); ec == std::errc() && p == end) {
    return integer;
  }
  const bool numeric_start = std::isdigit(static_cast<unsigned char>(*begin)) != 0 ||
                             ((*begin == '-' || *begin == '.') && begin + 1 < end);
  double real = 0;
  if (auto [p, ec] = std::from_chars(begin, end, real);
      numeric_start && ec == std::errc() && p == end) {
    return real;
  }
  return s;
}

json to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return nullptr;
    case YAML::NodeType::Scalar:
      // yaml-cpp tags quoted scalars "!" and plain ones "?": only plain ones resolve to types.
      return node.Tag() == "!" ? json(node.Scalar()) : plain_scalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) out.push_back(to_json(item));
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) out[kv.first.Scalar()] = to_json(kv.second);
      return out;
    }
    default:
      return nullptr;
  }
}

std::string uri_path(const fs::path& relative) {
  std::string out;
  for (const auto& part : relative) {
    if (!out.empty()) out += '/';
    out += part.string();
  }
  return out;
}

}  // namespace

std::string sha256_digest(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), md, &length, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "sha256:";
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 0xF];
  }
  return out;
}

Result<json> front_matter_json(std::string_view text, const std::string& origin) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (!text.starts_with("---")) {
    return fail(Code::kInvalidArgument, origin + ": no front matter ('---' on the first line)");
  }
  const size_t start = text.find('\n');
  const size_t close = text.find("\n---", start);
  if (start == std::string_view::npos || close == std::string_view::npos) {
    return fail(Code::kInvalidArgument, origin + ": the front matter has no closing '---' line");
  }
  try {
    const YAML::Node node = YAML::Load(std::string(text.substr(start + 1, close - start)));
    json out = to_json(node);
    if (!out.is_object()) {
      return fail(Code::kInvalidArgument, origin + ": the front matter is not a YAML mapping");
    }
    return out;
  } catch (const YAML::Exception& e) {
    return fail(Code::kInvalidArgument,
                origin + ": the front matter is not valid YAML: " + std::string(e.what()));
  }
}

Result<SkillPackage> load_skill_package(const fs::path& folder) {
  auto doc = router::read_skill_md(folder / "SKILL.md");
  if (!doc) return std::unexpected(doc.error());
  router::ExportOptions options;  // command "skillrt", as the exported files say it
  const std::string text = router::render_exported(*doc, options);
  const std::string base = "skill://" + doc->name;
  const std::string skill_uri = base + "/SKILL.md";
  auto frontmatter = front_matter_json(text, skill_uri);
  if (!frontmatter) return std::unexpected(frontmatter.error());

  SkillPackage package;
  json files = json::array();
  Resource main;
  main.descriptor = {{"uri", skill_uri},
                     {"name", doc->name},
                     {"title", "How to use the " + doc->name + " skill"},
                     {"description", (*frontmatter).value("description", doc->description)},
                     {"mimeType", "text/markdown"},
                     {"size", text.size()}};
  main.text = text;
  files.push_back({{"uri", skill_uri}, {"digest", sha256_digest(text)}, {"size", text.size()}});
  package.resources.push_back(std::move(main));

  // The folder's other files (examples, prompts), in a stable order.
  std::vector<fs::path> others;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(folder, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path relative = it->path().lexically_relative(folder);
    if (relative.filename().string().starts_with('.')) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || relative == "SKILL.md") continue;
    others.push_back(relative);
  }
  std::sort(others.begin(), others.end());
  size_t total = text.size();
  for (const auto& relative : others) {
    if (files.size() >= kMaxFiles) {
      return fail(Code::kResourceExhausted,
                  folder.string() + " has more than " + std::to_string(kMaxFiles) +
                      " files, the most a skill served over MCP may have; move data elsewhere");
    }
    auto bytes = read_bytes(folder / relative);
    if (!bytes) return std::unexpected(bytes.error());
    total += bytes->size();
    if (total > kMaxBytes) {
      return fail(Code::kResourceExhausted,
                  folder.string() +
                      " holds more than 16 MiB, the most a skill served over MCP "
                      "may hold; move large data out of the skill folder");
    }
    const std::string uri = base + "/" + uri_path(relative);
    Resource res;
    res.descriptor = {{"uri", uri},
                      {"name", doc->name + "/" + uri_path(relative)},
                      {"mimeType", mime_type_for(relative)},
                      {"size", bytes->size()}};
    // Served from memory: the bytes a client reads are the bytes the digest covers.
    if (is_text_mime(res.descriptor["mimeType"].get<std::string>())) {
      res.text = *bytes;
    } else {
      res.blob = base64_encode(*bytes);
    }
    files.push_back({{"uri", uri}, {"digest", sha256_digest(*bytes)}, {"size", bytes->size()}});
    package.resources.push_back(std::move(res));
  }
  package.entry = {{"uri", skill_uri},
                   {"frontmatter", std::move(*frontmatter)},
                   {"resources", std::move(files)}};
  return package;
}

}  // namespace skillrt::mcp::detail
