#include <catch2/catch.hpp>

#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include "embedded_source.hpp"
#include "op_schema_skill.hpp"

using skillrt::Json;
using skillrt::SkillError;
using skillrt::op_tools::run_op_schema;

namespace {

std::string path_of(const std::string& relative) {
  return std::string(SKILLRT_SOURCE_DIR) + "/" + relative;
}

Json read_json(const std::string& relative) {
  std::ifstream in(path_of(relative));
  REQUIRE(in.good());
  return Json::parse(in);
}

// Validates against the skill's own schema files, as the host does for every call.
class SchemaCheck {
 public:
  explicit SchemaCheck(const std::string& relative) : document_(read_json(relative)) {
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter adapter(document_);
    parser.populateSchema(adapter, schema_);
  }
  std::string errors(const Json& instance) const {
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter adapter(instance);
    if (validator.validate(schema_, adapter, &results)) return "";
    std::string out;
    valijson::ValidationResults::Error e;
    while (results.popError(e)) {
      std::string path;
      for (const auto& p : e.context) path += p;
      out += path + ": " + e.description + "\n";
    }
    return out.empty() ? "invalid" : out;
  }

 private:
  Json document_;
  valijson::Schema schema_;
};

const SchemaCheck& input_schema() {
  static const SchemaCheck s("schemas/skills/op-schema.input.json");
  return s;
}
const SchemaCheck& output_schema() {
  static const SchemaCheck s("schemas/skills/op-schema.output.json");
  return s;
}

Json run(const Json& input) {
  INFO(input.dump());
  REQUIRE(input_schema().errors(input).empty());
  Json out = run_op_schema(input);
  CHECK(output_schema().errors(out).empty());
  return out;
}

std::string error_of(const Json& input) {
  try {
    run_op_schema(input);
  } catch (const SkillError& e) {
    CHECK(e.code() == SKILLRT_INVALID_ARGUMENT);
    return e.what();
  }
  FAIL("expected an error for " << input.dump());
  return "";
}

}  // namespace

TEST_CASE("schema request: the issue's add_.Tensor example, field by field") {
  const Json out = run({{"schema",
                         "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> "
                         "Tensor(a!)"}});
  CHECK(out.at("name") == "add_");
  CHECK(out.at("overload") == "Tensor");
  CHECK(out.at("kind") == "inplace");
  REQUIRE(out.at("arguments").size() == 3);
  CHECK(out.at("arguments")[0] == Json{{"name", "self"},
                                       {"type", "Tensor"},
                                       {"default", nullptr},
                                       {"kwarg_only", false},
                                       {"out", false},
                                       {"annotation", "a!"},
                                       {"is_write", true}});
  CHECK(out.at("arguments")[2].at("default") == "1");
  CHECK(out.at("arguments")[2].at("kwarg_only") == true);
  CHECK(out.at("returns") ==
        Json::array({Json{{"name", nullptr}, {"type", "Tensor"}, {"annotation", "a!"}}}));
  CHECK(out.at("roundtrip") ==
        "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  CHECK(out.at("source").is_null());
}

TEST_CASE("schema request: annotated list types print without the annotation") {
  const Json out =
      run({{"schema", "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]"}});
  CHECK(out.at("arguments")[0].at("type") == "Tensor");
  CHECK(out.at("arguments")[0].at("annotation") == "a -> *");
  CHECK(out.at("arguments")[0].at("is_write") == false);
  CHECK(out.at("returns")[0].at("type") == "Tensor[]");
  CHECK(out.at("returns")[0].at("annotation") == "a");
  CHECK(out.at("overload").is_null());
  const Json lists = run({{"schema", "f(int[2] s=[0,1], str m='none', float? e=None) -> ()"}});
  CHECK(lists.at("arguments")[0].at("default") == "[0,1]");
  CHECK(lists.at("arguments")[1].at("default") == "'none'");
  CHECK(lists.at("arguments")[2].at("default") == "None");
  CHECK(lists.at("returns").empty());
}

TEST_CASE("schema request: a malformed schema is an error with its column") {
  const std::string msg = error_of({{"schema", "add(Tensor self Tensor other) -> Tensor"}});
  CHECK_THAT(msg, Catch::StartsWith("column 16: expected ',' or ')' after argument 'self'"));
  CHECK_THAT(error_of({{"schema", "f(SymBool b) -> Tensor"}, {"grammar", "torchnpugen"}}),
             Catch::Contains("only in the upstream torchgen grammar"));
  CHECK(run({{"schema", "f(SymBool b) -> Tensor"}}).at("kind") == "functional");
}

TEST_CASE("op request: the embedded PyTorch 2.11 source, with file and line") {
  const Json out = run({{"op", "add_.Tensor"}});
  CHECK(out.at("kind") == "inplace");
  CHECK(out.at("source").at("line") == 566);
  CHECK(out.at("source").at("file") ==
        std::string(skillrt::op_tools::embedded_native_functions_name()));
  // The embedded bytes are the checked-in file, so line numbers cite a real file.
  std::ifstream in(path_of("tests/data/pytorch-2.11/native_functions.yaml"), std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  CHECK(ss.str() == std::string(skillrt::op_tools::embedded_native_functions()));
}

TEST_CASE("op request: an unknown op suggests the nearest names") {
  const std::string msg = error_of({{"op", "add.Tensr"}});
  CHECK_THAT(msg, Catch::Contains("op 'add.Tensr' not found"));
  CHECK_THAT(msg, Catch::Contains("nearest names: add.Tensor"));
}

TEST_CASE("op request against op-plugin files and checkouts") {
  const Json npu = run({{"op", "npu_gather_backward"},
                        {"source", path_of("tests/data/op-plugin/op_plugin_functions.yaml")}});
  CHECK(npu.at("arguments")[1].at("type") == "SymInt[]");
  // Listed in both 'custom' and 'symint': 'op' answers with the first, 'ops' with every one.
  CHECK(npu.at("source").at("line") == 5644);
  const Json both = run({{"ops", {"npu_gather_backward"}},
                         {"source", path_of("tests/data/op-plugin/op_plugin_functions.yaml")}});
  REQUIRE(both.at("ops").size() == 2);
  CHECK(both.at("ops")[1].at("source").at("line") == 7648);
  const Json via_dir = run({{"op", "gather"}, {"source", path_of("tests/data/op-plugin")}});
  CHECK_THAT(via_dir.at("source").at("file").get<std::string>(),
             Catch::EndsWith("op_plugin_functions.yaml"));
  const Json deriv =
      run({{"op", "gather"}, {"source", path_of("tests/data/op-plugin/derivatives.yaml")}});
  CHECK(deriv.at("source").at("line") == 12);
  CHECK_THAT(error_of({{"op", "add"}, {"source", "/no/such/file.yaml"}}),
             Catch::Contains("source: source '/no/such/file.yaml' does not exist"));
}

TEST_CASE("batch request: listed ops, missing names, and all ops") {
  const Json out = run({{"ops", {"add.Tensor", "add.out", "nope.Tensor"}}});
  REQUIRE(out.at("ops").size() == 2);
  CHECK(out.at("ops")[1].at("kind") == "out");
  CHECK(out.at("ops")[1].at("arguments")[3].at("out") == true);
  REQUIRE(out.at("not_found").size() == 1);
  CHECK(out.at("not_found")[0].at("op") == "nope.Tensor");
  CHECK_FALSE(out.at("not_found")[0].at("nearest").empty());
  CHECK(out.at("source").at("format") == "native_functions");

  const Json all = run_op_schema({{"ops", "all"}});
  CHECK(all.at("ops").size() == 2674);
  CHECK(all.at("errors").empty());
  const Json npu = run_op_schema(
      {{"ops", "all"}, {"source", path_of("tests/data/op-plugin/op_plugin_functions.yaml")}});
  CHECK(npu.at("ops").size() == 1514);
  // op-plugin files are read with the torchnpugen grammar, under which every entry parses.
  CHECK(npu.at("errors").empty());
}

TEST_CASE("diff request: two versions of a file") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("op_schema_diff_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream(dir / "old.yaml") << "- func: a(Tensor self) -> Tensor\n"
                                       "- func: b(Tensor self, int k=1) -> Tensor\n"
                                       "  variants: function\n";
    std::ofstream(dir / "new.yaml") << "- func: b(Tensor self, int k=2) -> Tensor\n"
                                       "  variants: function, method\n"
                                       "- func: c(Tensor self) -> Tensor\n";
  }
  const Json out =
      run({{"diff", {{"old", (dir / "old.yaml").string()}, {"new", (dir / "new.yaml").string()}}}});
  fs::remove_all(dir);
  REQUIRE(out.at("added").size() == 1);
  CHECK(out.at("added")[0].at("op") == "c");
  CHECK(out.at("added")[0].at("source").at("line") == 3);
  REQUIRE(out.at("removed").size() == 1);
  CHECK(out.at("removed")[0].at("op") == "a");
  REQUIRE(out.at("changed").size() == 1);
  const Json& changes = out.at("changed")[0].at("changes");
  REQUIRE(changes.size() == 2);
  CHECK(changes[0] ==
        Json{{"what", "argument_default"}, {"subject", "k"}, {"old", "1"}, {"new", "2"}});
  CHECK(changes[1].at("what") == "key_changed");
  CHECK(changes[1].at("subject") == "variants");
  CHECK(out.at("unchanged") == 0);
}

TEST_CASE("requests that name no mode or two modes are refused with guidance") {
  CHECK_THAT(error_of(Json::object()), Catch::Contains("give exactly one of"));
  CHECK_THAT(error_of({{"op", "add"}, {"schema", "f() -> ()"}}), Catch::Contains("exactly one"));
  CHECK_FALSE(input_schema().errors({{"op", "add"}, {"schema", "f() -> ()"}}).empty());
  CHECK_FALSE(input_schema().errors({{"op", "add"}, {"colour", "red"}}).empty());
}

TEST_CASE("the skill's example requests are valid and run") {
  size_t n = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(path_of("skills/op-schema/examples"))) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    Json request = Json::parse(in);
    INFO(entry.path().string());
    // Example paths are relative to the repository root.
    for (const char* key : {"source"}) {
      if (request.contains(key)) request[key] = path_of(request[key].get<std::string>());
    }
    if (request.contains("diff")) {
      for (const char* key : {"old", "new"}) {
        request["diff"][key] = path_of(request["diff"][key].get<std::string>());
      }
    }
    run(request);
    ++n;
  }
  CHECK(n >= 4);
}
