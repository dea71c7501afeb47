#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "router/skill_docs.hpp"

namespace fs = std::filesystem;
using namespace skillrt::router;

namespace {

const fs::path kSkillsDir = fs::path(SKILLRT_SOURCE_DIR) / "skills";

// A fresh directory under the build tree, removed when the test ends.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::path(SKILLRT_BINARY_DIR) / "tmp" /
           ("router-docs-" + std::to_string(rd()) + "-" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string doc_text(const std::string& name, const std::string& description) {
  return "---\nname: " + name + "\ndescription: " + description + "\n---\n\n# body\n";
}

std::string error_of(std::string_view text) {
  auto doc = parse_skill_md(text, "x/SKILL.md");
  return doc ? std::string() : doc.error().message;
}

// The front matter of a SKILL.md as YAML.
YAML::Node front_matter(const std::string& text) {
  auto end = text.find("\n---", 4);
  return YAML::Load(text.substr(4, end - 4));
}

}  // namespace

TEST_CASE("every skills/*/SKILL.md validates", "[router][skill_docs]") {
  auto docs = read_skills_dir(kSkillsDir);
  for (const auto& p : docs.problems) UNSCOPED_INFO(p.path.string() << ": " << p.message);
  CHECK(docs.problems.empty());
  std::set<std::string> names;
  for (const auto& d : docs.docs) {
    INFO(d.path.string());
    names.insert(d.name);
    CHECK(d.name == d.path.parent_path().filename().string());
    CHECK(name_problem(d.name).empty());
    CHECK(utf8_length(d.description) >= 1);
    CHECK(utf8_length(d.description) <= kMaxDescriptionLength);
    // What the router and the exporter rely on beyond the spec's minimum.
    CHECK_FALSE(d.plugin.empty());
    CHECK(d.keywords.size() >= 5);
    CHECK(d.examples_zh.size() >= 2);
    CHECK(d.examples_en.size() >= 2);
    CHECK_FALSE(d.example_input.empty());
    CHECK(d.body.size() > 200);
  }
  // The skills the issues define (op-schema is written with its own skill).
  for (const char* expected :
       {"hello", "find-skill", "pr-analysis", "op-adaptation", "op-test", "op-apidoc",
        "ci-static-errors-fix", "api-consistency", "issue-pipeline", "gpu-migration-analyze",
        "gpu-migration-apply", "gpu-migration-verify", "npu-graph", "npu-graph-qa",
        "npu-graph-diagnose", "npu-graph-profile", "npu-graph-logs", "npu-graph-capture"}) {
    INFO(expected);
    CHECK(names.contains(expected));
  }
}

TEST_CASE("name rules follow the Agent Skills format", "[router][skill_docs]") {
  CHECK(name_problem("op-test").empty());
  CHECK(name_problem("a").empty());
  CHECK_FALSE(name_problem("").empty());
  CHECK_FALSE(name_problem("Op-Test").empty());
  CHECK_FALSE(name_problem("op_test").empty());
  CHECK_FALSE(name_problem("-op").empty());
  CHECK_FALSE(name_problem("op-").empty());
  CHECK_FALSE(name_problem("op--test").empty());
  CHECK(name_problem(std::string(50, 'a')).empty());
  // 51 fits the spec's 64 but not mcp__skillrt__<name> within 64.
  CHECK(name_problem(std::string(51, 'a')).find("MCP tool name") != std::string::npos);
  CHECK(name_problem(std::string(65, 'a')).find("limit is 64") != std::string::npos);
}

TEST_CASE("SKILL.md parse errors say what to fix", "[router][skill_docs]") {
  CHECK(error_of("# no front matter\n").find("start the file with a '---' line") !=
        std::string::npos);
  CHECK(error_of("---\nname: a\ndescription: b\n").find("not closed") != std::string::npos);
  CHECK(error_of("---\nname: [a\n---\n").find("not valid YAML") != std::string::npos);
  CHECK(error_of("---\ndescription: b\n---\n").find("'name' is missing") != std::string::npos);
  CHECK(error_of("---\nname: a\n---\n").find("'description' is missing") != std::string::npos);
  CHECK(error_of("---\nname: a\ndescription: \"  \"\n---\n").find("empty") != std::string::npos);
  CHECK(error_of("---\nname: a\ndescription: b\nversion: 1\n---\n")
            .find("unknown front "
                  "matter key") != std::string::npos);
  CHECK(error_of("---\nname: a\ndescription: b\nmetadata:\n  keywords: {x: 1}\n---\n")
            .find("metadata.keywords must be a list") != std::string::npos);
  CHECK(error_of(doc_text("Bad_Name", "b")).find("kebab-case") != std::string::npos);
  CHECK(error_of("---\nname: a\ndescription: [x, y]\n---\n").find("must be one string") !=
        std::string::npos);
}

TEST_CASE("the description limit counts characters, not bytes", "[router][skill_docs]") {
  std::string han;
  for (int i = 0; i < 1024; ++i) han += "算";  // 3 bytes each
  CHECK(parse_skill_md(doc_text("a", han), "").has_value());
  CHECK(error_of(doc_text("a", han + "子")).find("has 1025 characters") != std::string::npos);
  CHECK(error_of(doc_text("a", std::string(1025, 'x'))).find("limit is 1024") != std::string::npos);
}

TEST_CASE("metadata is read: plugin, keywords, examples, input example", "[router][skill_docs]") {
  auto doc = parse_skill_md(
      "---\nname: demo\ndescription: d\nmetadata:\n  plugin: p\n  keywords: [a, b]\n"
      "  examples:\n    zh: [\"你好\"]\n    en: [hi, hey]\n  input_example: '{\"x\":1}'\n---\n"
      "body\n",
      "");
  REQUIRE(doc.has_value());
  CHECK(doc->plugin == "p");
  CHECK(doc->keywords == std::vector<std::string>{"a", "b"});
  CHECK(doc->examples_zh == std::vector<std::string>{"你好"});
  CHECK(doc->examples_en == std::vector<std::string>{"hi", "hey"});
  CHECK(doc->example_input == "{\"x\":1}");
  CHECK(doc->body == "body\n");
  auto card = to_card(*doc);
  CHECK(card.examples == std::vector<std::string>{"你好", "hi", "hey"});
  // The spec's string form of a list is accepted too.
  auto csv = parse_skill_md(
      "---\nname: demo\ndescription: d\nmetadata:\n  keywords: a, b ,c\n"
      "---\n",
      "");
  REQUIRE(csv.has_value());
  CHECK(csv->keywords == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("a skills directory reports folders without SKILL.md and bad files",
          "[router][skill_docs]") {
  TempDir tmp;
  write(tmp.path / "good" / "SKILL.md", doc_text("good", "fine"));
  write(tmp.path / "renamed" / "SKILL.md", doc_text("other-name", "fine"));
  write(tmp.path / "broken" / "SKILL.md", "no front matter");
  fs::create_directories(tmp.path / "empty");
  auto docs = read_skills_dir(tmp.path);
  REQUIRE(docs.docs.size() == 1);
  CHECK(docs.docs[0].name == "good");
  REQUIRE(docs.problems.size() == 3);
  std::string all;
  for (const auto& p : docs.problems) all += p.message + "\n";
  CHECK(all.find("differs from its folder 'renamed'") != std::string::npos);
  CHECK(all.find("empty has no SKILL.md") != std::string::npos);
  CHECK(all.find("no YAML front matter") != std::string::npos);

  auto missing = read_skills_dir(tmp.path / "nope");
  CHECK(missing.docs.empty());
  CHECK(missing.problems.size() == 1);
}

TEST_CASE("earlier skill directories override later ones", "[router][skill_docs]") {
  TempDir tmp;
  write(tmp.path / "a" / "x" / "SKILL.md", doc_text("x", "from a"));
  write(tmp.path / "b" / "x" / "SKILL.md", doc_text("x", "from b"));
  write(tmp.path / "b" / "y" / "SKILL.md", doc_text("y", "from b"));
  auto docs = read_skills_dirs({tmp.path / "a", tmp.path / "missing", tmp.path / "b"});
  REQUIRE(docs.docs.size() == 2);
  CHECK(docs.docs[0].description == "from a");
  CHECK(docs.docs[1].name == "y");
}

TEST_CASE("reconcile names skills without docs and docs without skills", "[router][skill_docs]") {
  SkillDoc a;
  a.name = "a";
  a.path = "skills/a/SKILL.md";
  SkillDoc b;
  b.name = "b";
  b.path = "skills/b/SKILL.md";
  auto problems = reconcile({a, b}, {"a", "c"});
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].message.find("skill 'c' has no SKILL.md") != std::string::npos);
  CHECK(problems[1].message.find("which no loaded plugin registers") != std::string::npos);
  CHECK(reconcile({a}, {"a"}).empty());
}

TEST_CASE("export to Claude Code in a temporary HOME gives loadable skill folders",
          "[router][skill_docs]") {
  TempDir home;
  auto docs = read_skills_dir(kSkillsDir);
  REQUIRE_FALSE(docs.docs.empty());
  ExportOptions options;
  options.target = ExportTarget::kClaude;
  options.scope = ExportScope::kUser;
  options.home = home.path;
  auto written = export_skills(docs.docs, options);
  REQUIRE(written.has_value());
  CHECK(written->size() == docs.docs.size());
  for (const auto& doc : docs.docs) {
    INFO(doc.name);
    fs::path file = home.path / ".claude" / "skills" / doc.name / "SKILL.md";
    REQUIRE(fs::exists(file));
    // Loadable by the same rules: name = folder, description within limits.
    auto back = read_skill_md(file);
    REQUIRE(back.has_value());
    CHECK(back->name == doc.name);
    CHECK(back->description.find('\n') == std::string::npos);
    CHECK(utf8_length(back->description) <= kMaxDescriptionLength);
    // Front matter keeps to the spec: metadata is a map of strings.
    std::string text = slurp(file);
    CHECK(text.starts_with("---\n"));
    auto fm = front_matter(text);
    REQUIRE(fm["metadata"].IsMap());
    for (const auto& kv : fm["metadata"]) CHECK(kv.second.IsScalar());
    CHECK(fm["metadata"]["mcp-tool"].as<std::string>() == "mcp__skillrt__" + doc.name);
    CHECK(fm["metadata"]["cli"].as<std::string>().starts_with("skillrt run " + doc.name +
                                                              " --input '"));
    CHECK(text.find("`mcp__skillrt__" + doc.name + "`") != std::string::npos);
  }
  // Exporting again replaces the files in place.
  auto again = export_skills(docs.docs, options);
  REQUIRE(again.has_value());
  CHECK(*again == *written);
}

TEST_CASE("user scope without an explicit home uses $HOME", "[router][skill_docs]") {
  TempDir home;
  const char* old = std::getenv("HOME");
  std::string saved = old == nullptr ? std::string() : std::string(old);
  ::setenv("HOME", home.path.c_str(), 1);
  auto doc = parse_skill_md(doc_text("demo", "d"), "");
  REQUIRE(doc.has_value());
  ExportOptions options;
  options.target = ExportTarget::kClaude;
  options.scope = ExportScope::kUser;
  auto written = export_skills({*doc}, options);
  ::unsetenv("HOME");
  auto without_home = export_root(options);
  if (old != nullptr) ::setenv("HOME", saved.c_str(), 1);
  REQUIRE(written.has_value());
  CHECK(written->front() == home.path / ".claude" / "skills" / "demo" / "SKILL.md");
  CHECK(read_skill_md(written->front()).has_value());
  REQUIRE_FALSE(without_home.has_value());
  CHECK(without_home.error().message.find("HOME is not set") != std::string::npos);
}

TEST_CASE("export roots for Codex, project scope and a directory", "[router][skill_docs]") {
  ExportOptions o;
  o.home = "/home/u";
  o.project_root = "/src/p";
  o.target = ExportTarget::kCodex;
  o.scope = ExportScope::kUser;
  CHECK(*export_root(o) == fs::path("/home/u/.codex/skills"));
  o.scope = ExportScope::kProject;
  CHECK(*export_root(o) == fs::path("/src/p/.agents/skills"));
  o.target = ExportTarget::kClaude;
  CHECK(*export_root(o) == fs::path("/src/p/.claude/skills"));
  o.target = ExportTarget::kDirectory;
  CHECK_FALSE(export_root(o).has_value());
  o.directory = "/tmp/out";
  CHECK(*export_root(o) == fs::path("/tmp/out"));
}

TEST_CASE("export for Codex writes the same folders under .codex", "[router][skill_docs]") {
  TempDir home;
  auto doc = parse_skill_md(doc_text("demo", "multi\n  line   text"), "");
  REQUIRE(doc.has_value());
  doc->example_input = R"({"a":1})";
  ExportOptions options;
  options.target = ExportTarget::kCodex;
  options.scope = ExportScope::kUser;
  options.home = home.path;
  auto written = export_skills({*doc}, options);
  REQUIRE(written.has_value());
  REQUIRE(written->size() == 1);
  CHECK(written->front() == home.path / ".codex" / "skills" / "demo" / "SKILL.md");
  auto fm = front_matter(slurp(written->front()));
  CHECK(fm["description"].as<std::string>() == "multi line text");
  CHECK(fm["metadata"]["cli"].as<std::string>() == R"(skillrt run demo --input '{"a":1}')");

  // A quote inside the example stays valid shell.
  doc->example_input = R"({"q":"it's"})";
  auto quoted = export_skills({*doc}, options);
  REQUIRE(quoted.has_value());
  auto cli = front_matter(slurp(quoted->front()))["metadata"]["cli"].as<std::string>();
  CHECK(cli == R"(skillrt run demo --input '{"q":"it'\''s"}')");
}

TEST_CASE("export refuses an invalid name and an unwritable root", "[router][skill_docs]") {
  TempDir tmp;
  SkillDoc bad;
  bad.name = "Bad";
  bad.description = "d";
  ExportOptions options;
  options.target = ExportTarget::kDirectory;
  options.directory = tmp.path;
  auto r = export_skills({bad}, options);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.find("cannot export") != std::string::npos);

  write(tmp.path / "file", "x");  // a file where a directory must go
  SkillDoc ok;
  ok.name = "ok";
  ok.description = "d";
  options.directory = tmp.path / "file";
  auto blocked = export_skills({ok}, options);
  REQUIRE_FALSE(blocked.has_value());
  CHECK(blocked.error().message.find("cannot create") != std::string::npos);
}
