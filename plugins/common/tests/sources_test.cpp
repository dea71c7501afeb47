#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "optoolkit/sources.hpp"
#include "test_support.hpp"

using namespace skillrt::ops;
using optoolkit_test::source_path;

namespace {

const OpSource& native() {
  static const OpSource s =
      load_source_file(source_path("tests/data/pytorch-2.11/native_functions.yaml"));
  return s;
}

const OpSource& op_plugin() {
  static const OpSource s =
      load_source_file(source_path("tests/data/op-plugin/op_plugin_functions.yaml"));
  return s;
}

}  // namespace

TEST_CASE("native_functions.yaml: keys, typed views and evidence lines") {
  const auto found = native().find("add.Tensor");
  REQUIRE(found.size() == 1);
  const OpEntry& e = *found[0];
  CHECK(e.where.line == 554);
  CHECK_THAT(e.where.file, Catch::EndsWith("native_functions.yaml"));
  CHECK(e.key_lines.at("tags") == 564);
  CHECK(e.items("variants") == std::vector<std::string>{"function", "method"});
  CHECK(e.items("tags") == std::vector<std::string>{"core", "pointwise"});
  CHECK(e.text("structured_delegate") == "add.out");
  // A trailing YAML comment is not part of the value.
  CHECK(e.text("device_check") == "NoCheck");
  const auto dispatch = e.dispatch();
  REQUIRE(dispatch.size() == 12);
  auto has = [&](const char* key, const char* kernel) {
    return std::find(dispatch.begin(), dispatch.end(),
                     std::make_pair(std::string(key), std::string(kernel))) != dispatch.end();
  };
  CHECK(has("SparseCPU", "add_sparse"));
  CHECK(has("SparseMeta", "add_sparse"));
  CHECK(has("NestedTensorHPU", "NestedTensor_add_Tensor"));
  CHECK_FALSE(has("CPU", "add_sparse"));

  const OpEntry& out = *native().find("add.out").at(0);
  CHECK(out.flag("structured") == std::optional<bool>(true));
  CHECK(out.items("tags") == std::vector<std::string>{"pointwise"});
  CHECK(out.keys.at("ufunc_inner_loop").at("ScalarOnly") == "add (Bool)");
  CHECK_FALSE(e.flag("structured").has_value());

  size_t with_autogen = 0;
  for (const OpEntry& x : native().entries) with_autogen += x.key("autogen") ? 1 : 0;
  CHECK(with_autogen == 499);
}

TEST_CASE("nearest names are suggested for an unknown op") {
  const auto near = native().nearest("add.Tensr", 3);
  REQUIRE(near.size() == 3);
  CHECK(near[0] == "add.Tensor");
  CHECK(native().find("add.Tensr").empty());
}

TEST_CASE("op_plugin_functions.yaml: sections, all_version and every version form") {
  const OpSource& s = op_plugin();
  REQUIRE(s.format == SourceFormat::kOpPluginFunctions);
  REQUIRE(s.all_version.size() == 15);
  CHECK(s.all_version.front() == "v2.1");
  CHECK(s.all_version.back() == "v2.15");
  std::map<std::string, size_t> sections;
  for (const OpEntry& e : s.entries) ++sections[e.section];
  CHECK(sections["official"] == 1057);
  CHECK(sections["autograd"] == 1);
  CHECK(sections["custom"] == 418);
  CHECK(sections["symint"] == 29);
  CHECK(sections["quant"] == 9);
  CHECK(s.issues.empty());

  std::map<std::string, size_t> key_counts;
  for (const OpEntry& e : s.entries) {
    for (const auto& kv : e.keys.items()) ++key_counts[kv.key()];
  }
  CHECK(key_counts["op_api"] == 1383);
  CHECK(key_counts["acl_op"] == 999);
  CHECK(key_counts["gen_opapi"] == 405);
  CHECK(key_counts["exposed"] == 125);

  // The same func listed twice with disjoint version ranges.
  const auto dup = s.find("_conv_depthwise2d.out");
  REQUIRE(dup.size() == 2);
  const VersionSpec first = parse_version_spec(*dup[0]->key("op_api"), s.all_version);
  CHECK(first.form == VersionSpec::Form::kRange);
  CHECK(first.versions == std::vector<std::string>{"v2.1", "v2.2", "v2.3", "v2.4", "v2.5", "v2.6"});
  const VersionSpec second = parse_version_spec(*dup[1]->key("op_api"), s.all_version);
  CHECK(second.versions.front() == "v2.7");
  CHECK(second.versions.back() == "v2.15");
  CHECK(dup[0]->flag("use_const_ref_for_mutable_tensors") == std::optional<bool>(true));
}

TEST_CASE("version specs: keyword, range, single, comma list and invalid forms") {
  const std::vector<std::string> all = {"v2.1", "v2.2", "v2.3", "v2.4"};
  auto spec = [&](const char* yaml_value) {
    return parse_version_spec(Json::parse(yaml_value), all);
  };
  CHECK(spec(R"("all_version")").versions == all);
  CHECK(spec(R"("all_version")").form == VersionSpec::Form::kKeyword);
  CHECK(spec(R"(["v2.2", "newest"])").versions == std::vector<std::string>{"v2.2", "v2.3", "v2.4"});
  CHECK(spec(R"(["v2.1", "v2.2"])").versions == std::vector<std::string>{"v2.1", "v2.2"});
  CHECK(spec(R"("v2.3")").form == VersionSpec::Form::kSingle);
  CHECK(spec(R"("v2.1, v2.3")").versions == std::vector<std::string>{"v2.1", "v2.3"});
  CHECK(spec(R"("v2.1,v2.3")").versions == std::vector<std::string>{"v2.1", "v2.3"});
  CHECK(spec(R"("v2.1,v2.3")").form == VersionSpec::Form::kCommaList);
  CHECK_THAT(spec(R"(["v2.1", "v2.2", "v2.3"])").problem, Catch::Contains("exactly two"));
  CHECK_THAT(spec(R"(["v1.11", "newest"])").problem,
             Catch::Contains("'v1.11' is not in all_version"));
  CHECK_THAT(spec(R"(["v2.1", "v9.9"])").problem, Catch::Contains("neither 'newest'"));
  CHECK(spec(R"(["v2.1", "v9.9"])").form == VersionSpec::Form::kInvalid);

  // The real file uses all four forms.
  std::set<VersionSpec::Form> forms;
  for (const OpEntry& e : op_plugin().entries) {
    for (const char* k :
         {"acl_op", "op_api", "exposed", "internal_format_opapi", "dvm", "sparse"}) {
      if (const Json* v = e.key(k)) {
        const VersionSpec vs = parse_version_spec(*v, op_plugin().all_version);
        CHECK(vs.problem.empty());
        forms.insert(vs.form);
      }
    }
  }
  CHECK(forms == std::set<VersionSpec::Form>{VersionSpec::Form::kKeyword, VersionSpec::Form::kRange,
                                             VersionSpec::Form::kSingle,
                                             VersionSpec::Form::kCommaList});
}

TEST_CASE("derivatives files, upstream and op-plugin") {
  const OpSource up = load_source_file(source_path("tests/data/pytorch-2.11/derivatives.yaml"));
  CHECK(up.format == SourceFormat::kDerivatives);
  CHECK(up.issues.empty());
  const auto abs = up.find("abs");
  REQUIRE(abs.size() == 1);
  CHECK(abs[0]->text("self") == "grad * self.sgn()");

  const OpSource npu = load_source_file(source_path("tests/data/op-plugin/derivatives.yaml"));
  CHECK(npu.format == SourceFormat::kOpPluginDerivatives);
  CHECK(npu.entries.size() == 84);
  CHECK(npu.all_version.size() == 15);
  const auto gather = npu.find("gather");
  REQUIRE(gather.size() == 1);
  CHECK(gather[0]->section == "backward");
  CHECK(gather[0]->text("index") == "non_differentiable");
  CHECK(gather[0]->where.line == 12);
  CHECK(gather[0]->key_lines.at("version") == 16);
}

TEST_CASE("loader errors name the file and what to do") {
  CHECK_THROWS_WITH(load_source_text("a: [b", "broken.yaml"),
                    Catch::StartsWith("'broken.yaml' is not valid YAML: line"));
  CHECK_THROWS_WITH(load_source_text("just: a map", "x.yaml"), Catch::Contains("is none of"));
  CHECK_THROWS_WITH(load_source_file("/nonexistent/native_functions.yaml"),
                    Catch::Contains("cannot open"));
  const OpSource s = load_source_text(
      "- func: good(Tensor x) -> Tensor\n- func: bad(Tensor x)->Tensor\n- variants: function\n",
      "mixed.yaml");
  CHECK(s.entries.size() == 2);
  REQUIRE(s.issues.size() == 2);
  CHECK(s.issues[0].where.line == 2);
  CHECK_THAT(s.issues[0].message, Catch::Contains("column 14"));
  CHECK(s.issues[1].where.line == 3);
  CHECK_THAT(s.issues[1].message, Catch::Contains("no 'func: <schema>' key"));
}

TEST_CASE("a checkout directory resolves to its schema file") {
  CHECK_THAT(resolve_source_path(source_path("tests/data/pytorch-2.11")),
             Catch::EndsWith("native_functions.yaml"));
  CHECK_THAT(resolve_source_path(source_path("tests/data/op-plugin")),
             Catch::EndsWith("op_plugin_functions.yaml"));
  CHECK_THROWS_WITH(resolve_source_path(source_path("plugins/common/src")),
                    Catch::Contains("holds none of"));
  CHECK_THROWS_WITH(resolve_source_path("/no/such/dir"), Catch::Contains("does not exist"));
}
