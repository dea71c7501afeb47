// Every way a plugin can be broken gets exactly one error line naming the file, and the host
// goes on with the other plugins.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

#include "exec/executor.hpp"
#include "host/host_api.hpp"
#include "plugin/loader.hpp"

namespace fs = std::filesystem;
using skillrt::Registry;
using skillrt::plugin::Loader;
using skillrt::plugin::PluginRecord;

namespace {

const fs::path kDir = fs::weakly_canonical(SKILLRT_BINARY_DIR "/tests/fixtures/abi");

struct Loaded {
  Registry registry;
  Loader loader{registry, skillrt::host::host_api()};
  std::map<std::string, const PluginRecord*> by_file;
  Loaded() {
    loader.load_directory(kDir, false);
    for (const auto& r : loader.records()) by_file[r.file.filename().string()] = &r;
  }
  const PluginRecord& record(const std::string& file) {
    REQUIRE(by_file.count(file) == 1);
    return *by_file.at(file);
  }
};

std::string path(const std::string& file) { return (kDir / file).string(); }

}  // namespace

TEST_CASE("the good plugin loads beside the broken ones", "[loader]") {
  Loaded l;
  const auto& good = l.record("fx-good.so");
  CHECK(good.loaded);
  CHECK(good.errors.empty());
  CHECK(good.name == "fx-good");
  CHECK(good.version == "0.0.1");
  CHECK(good.abi_major == 1);
  REQUIRE(l.registry.find("fixture-ok") != nullptr);
  CHECK(l.registry.find("fixture-ok")->plugin_file == path("fx-good.so"));
}

TEST_CASE("not a shared library", "[loader]") {
  Loaded l;
  const auto& r = l.record("fx-not-a-library.so");
  CHECK_FALSE(r.loaded);
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0] ==
        "plugin " + path("fx-not-a-library.so") +
            ": not a shared library (no ELF header): remove it from the plugin path");
}

TEST_CASE("no entry symbol", "[loader]") {
  Loaded l;
  const auto& r = l.record("fx-no-entry.so");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0] == "plugin " + path("fx-no-entry.so") +
                           ": no entry symbol 'skillrt_plugin_v1': build it with SKILLRT_PLUGIN() "
                           "from skillrt/sdk.hpp or export the function from C");
}

TEST_CASE("wrong ABI major", "[loader]") {
  Loaded l;
  const auto& r = l.record("fx-wrong-major.so");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0] == "plugin " + path("fx-wrong-major.so") +
                           ": ABI major version 2 does not match the host's 1: rebuild the plugin "
                           "against skillrt SDK 1.x");
  CHECK(r.abi_major == 2);
}

TEST_CASE("newer ABI minor", "[loader]") {
  Loaded l;
  const auto& r = l.record("fx-newer-minor.so");
  REQUIRE(r.errors.size() == 1);
  const std::string host =
      std::to_string(SKILLRT_ABI_MAJOR) + "." + std::to_string(SKILLRT_ABI_MINOR);
  const std::string plugin =
      std::to_string(SKILLRT_ABI_MAJOR) + "." + std::to_string(SKILLRT_ABI_MINOR + 1);
  CHECK(r.errors[0] == "plugin " + path("fx-newer-minor.so") + ": ABI version " + plugin +
                           " is newer than the host's " + host +
                           ": upgrade skillrt or rebuild the plugin against the host's SDK");
}

TEST_CASE("load() fails with a message", "[loader]") {
  Loaded l;
  const auto& r = l.record("fx-load-fails-msg.so");
  CHECK_FALSE(r.loaded);
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0] == "plugin " + path("fx-load-fails-msg.so") +
                           " (fx-load-fails-msg): load() failed with FAILED_PRECONDITION: license "
                           "file /etc/fixture.lic not found: set FIXTURE_LICENSE");
}

TEST_CASE("load() fails without a message", "[loader]") {
  Loaded l;
  const auto& r = l.record("fx-load-fails-silent.so");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0] == "plugin " + path("fx-load-fails-silent.so") +
                           " (fx-load-fails-silent): load() failed with INTERNAL and gave no "
                           "reason: see the plugin's own log lines above");
}

TEST_CASE("two plugins registering one skill name: neither wins, both files named", "[loader]") {
  Loaded l;
  CHECK(l.registry.find("dup-skill") == nullptr);
  // Their other skills are unaffected.
  CHECK(l.registry.find("dup-a-only") != nullptr);
  CHECK(l.registry.find("dup-b-only") != nullptr);
  const auto& a = l.record("fx-dup-a.so");
  const auto& b = l.record("fx-dup-b.so");
  CHECK(a.errors.empty());
  CHECK(a.skills == std::vector<std::string>{"dup-a-only"});
  REQUIRE(b.errors.size() == 1);
  CHECK(b.errors[0] == "plugin " + path("fx-dup-b.so") + " (fx-dup-b): skill 'dup-skill' from " +
                           path("fx-dup-b.so") + " is also registered by " + path("fx-dup-a.so") +
                           "; neither is loaded: rename one of them or remove one plugin from "
                           "the path");
}

TEST_CASE("a skill name that is not kebab-case", "[loader]") {
  Loaded l;
  const auto& r = l.record("fx-bad-name.so");
  CHECK(r.loaded);
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0] == "plugin " + path("fx-bad-name.so") +
                           " (fx-bad-name): skill name 'Bad_Name' is not kebab-case "
                           "[a-z0-9-]{1,64}: rename it, e.g. 'my-skill'");
  CHECK(l.registry.find("bad-name-sibling") != nullptr);
}

TEST_CASE("a schema that is not valid JSON", "[loader]") {
  Loaded l;
  const auto& r = l.record("fx-bad-schema-json.so");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0] == "plugin " + path("fx-bad-schema-json.so") +
                           " (fx-bad-schema-json): skill 'broken-schema' input schema is not valid "
                           "JSON: line 1, column 19: syntax error while parsing object key - "
                           "unexpected ','; expected string literal; fix the schema file and "
                           "rebuild the plugin");
  CHECK(l.registry.find("broken-schema") == nullptr);
  CHECK(l.registry.find("fine-schema") != nullptr);
}

TEST_CASE("a schema that breaks the draft-07 meta-schema names the pointer", "[loader]") {
  Loaded l;
  const auto& r = l.record("fx-invalid-schema.so");
  REQUIRE(r.errors.size() == 1);
  CHECK(
      r.errors[0].starts_with("plugin " + path("fx-invalid-schema.so") +
                              " (fx-invalid-schema): skill 'invalid-schema' input schema is not a "
                              "valid draft-07 schema: "));
  CHECK(r.errors[0].find("/properties/n/type") != std::string::npos);
  CHECK(l.registry.find("invalid-schema") == nullptr);
}

TEST_CASE("every broken fixture yields exactly one line, and nothing else fails", "[loader]") {
  Loaded l;
  size_t with_errors = 0;
  for (const auto& r : l.loader.records()) with_errors += r.errors.empty() ? 0 : 1;
  CHECK(l.loader.errors().size() == 10);
  CHECK(with_errors == 10);
}

TEST_CASE("the same file reached twice is one plugin", "[loader]") {
  Registry registry;
  Loader loader(registry, skillrt::host::host_api());
  loader.load_file(kDir / "fx-good.so", false);
  loader.load_file(kDir / ".." / "abi" / "fx-good.so", false);
  CHECK(loader.records().size() == 1);
  CHECK(loader.errors().empty());
}

TEST_CASE("skill names", "[registry]") {
  CHECK(skillrt::is_valid_skill_name("op-schema"));
  CHECK(skillrt::is_valid_skill_name("a"));
  CHECK(skillrt::is_valid_skill_name(std::string(64, 'a')));
  CHECK_FALSE(skillrt::is_valid_skill_name(std::string(65, 'a')));
  CHECK_FALSE(skillrt::is_valid_skill_name(""));
  CHECK_FALSE(skillrt::is_valid_skill_name("Op"));
  CHECK_FALSE(skillrt::is_valid_skill_name("op_schema"));
  CHECK_FALSE(skillrt::is_valid_skill_name("-op"));
  CHECK_FALSE(skillrt::is_valid_skill_name("op-"));
}

// Two registries never share an answer, a name two plugins claim leaves the table, and a frozen
// registry takes no more skills but answers as before.
TEST_CASE("find() answers from its own table, and a frozen registry refuses add()", "[registry]") {
  const auto skill = [](const std::string& name, const std::string& file) {
    auto s = std::make_shared<skillrt::Skill>();
    s->name = name;
    s->plugin_file = file;
    return std::shared_ptr<const skillrt::Skill>(std::move(s));
  };
  Registry first;
  Registry second;
  const auto one = skill("echo", "/one.so");
  const auto two = skill("echo", "/two.so");
  REQUIRE(first.add(one));
  REQUIRE(second.add(two));
  CHECK(first.find("echo") == one);
  CHECK(second.find("echo") == two);
  CHECK(first.find("other") == nullptr);
  CHECK_FALSE(first.add(skill("echo", "/three.so")));
  CHECK(first.find("echo") == nullptr);
  CHECK(second.find("echo") == two);

  REQUIRE(second.add(skill("solo", "/solo.so")));
  second.freeze();
  CHECK(second.frozen());
  const auto late = second.add(skill("late", "/late.so"));
  REQUIRE_FALSE(late);
  CHECK(late.error().message.find("frozen") != std::string::npos);
  CHECK(late.error().message.find("/late.so") != std::string::npos);
  CHECK(second.find("late") == nullptr);
  CHECK(second.find("solo") != nullptr);
  CHECK(second.all().size() == 2);
}
