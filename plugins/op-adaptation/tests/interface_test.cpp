// The generated-interface model against the generator's own output: OpApiInterface.h that
// torchnpugen wrote for op-plugin@517f2e7 at PyTorch 2.11 and 2.1 (tests/data/real_tree/generated),
// compared declaration by declaration with what InterfaceModel computes from the same YAML.
#include "interface.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "cpp_scan.hpp"
#include "test_support.hpp"

namespace {

using skillrt::opa::cpp_type_key;

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "OP_PLUGIN_HIDDEN at::Tensor & f(const at::Tensor & self, int64_t dim = 0);" as
// "Tensor& f(const Tensor&,int64_t)" with every type in cpp_type_key form.
std::string header_line_key(std::string line) {
  line = line.substr(line.find(' ') + 1);
  const size_t open = line.find('(');
  const std::string head = line.substr(0, open);
  const size_t name_at = head.find_last_of(' ');
  std::string out =
      cpp_type_key(head.substr(0, name_at), {}) + " " + head.substr(name_at + 1) + "(";
  const std::string params = line.substr(open + 1, line.rfind(')') - open - 1);
  int depth = 0;
  size_t start = 0;
  bool first = true;
  auto flush = [&](size_t end) {
    std::string p = params.substr(start, end - start);
    p = p.substr(0, p.find(" ="));
    const size_t sp = p.find_last_of(' ');
    if (sp == std::string::npos) return;
    out += (first ? "" : ",") + cpp_type_key(p.substr(0, sp), {});
    first = false;
  };
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i] == '<' || params[i] == '(' || params[i] == '{') ++depth;
    if (params[i] == '>' || params[i] == ')' || params[i] == '}') --depth;
    if (params[i] == ',' && depth == 0) {
      flush(i);
      start = i + 1;
    }
  }
  flush(params.size());
  return out + ")";
}

std::string model_key(const skillrt::opa::Declaration& d) {
  std::string out = cpp_type_key(d.return_type, {}) + " " + d.name + "(";
  for (size_t i = 0; i < d.param_types.size(); ++i) {
    out += (i > 0 ? "," : "") + cpp_type_key(d.param_types[i], {});
  }
  return out + ")";
}

void compare_with_generator(const std::string& version) {
  const auto yaml = skillrt::ops::load_source_text(
      read_all(opa_test::kData + "/op_plugin_functions.yaml"), "op_plugin_functions.yaml",
      skillrt::ops::SourceFormat::kOpPluginFunctions);
  const skillrt::opa::InterfaceModel model(yaml);
  std::set<std::string> ours;
  for (const auto& d : model.header(version)) ours.insert(model_key(d));
  std::set<std::string> theirs;
  std::istringstream lines(
      read_all(opa_test::kData + "/real_tree/generated/OpApiInterface_" + version + ".h"));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("OP_PLUGIN_HIDDEN ", 0) == 0) theirs.insert(header_line_key(line));
  }
  REQUIRE(theirs.size() > 1400);
  std::vector<std::string> missing;
  std::vector<std::string> extra;
  for (const auto& k : theirs) {
    if (ours.count(k) == 0) missing.push_back(k);
  }
  for (const auto& k : ours) {
    if (theirs.count(k) == 0) extra.push_back(k);
  }
  INFO(missing.size() << " missing, " << extra.size() << " extra");
  INFO("generator declares, model lacks (first): " << (missing.empty() ? "" : missing.front()));
  INFO("model declares, generator lacks (first): " << (extra.empty() ? "" : extra.front()));
  CHECK(missing.empty());
  CHECK(extra.empty());
}

}  // namespace

TEST_CASE("interface: the model declares what torchnpugen declared at v2.11", "[interface]") {
  compare_with_generator("v2.11");
}

TEST_CASE("interface: the model declares what torchnpugen declared at v2.1", "[interface]") {
  compare_with_generator("v2.1");
}

TEST_CASE("interface: symint section decides _symint and SymInt types", "[interface]") {
  const auto yaml = skillrt::ops::load_source_text(
      "all_version: [v2.1, v2.2]\nofficial:\n"
      "  - func: f(Tensor self, SymInt[] size, SymInt n) -> Tensor\n    op_api: all_version\n"
      "  - func: g(Tensor self, SymInt[] size) -> Tensor\n    op_api: [v2.1, v2.2]\n"
      "custom:\nsymint:\n"
      "  - func: g(Tensor self, SymInt[] size) -> Tensor\n    op_api: v2.2\n",
      "t.yaml", skillrt::ops::SourceFormat::kOpPluginFunctions);
  const skillrt::opa::InterfaceModel model(yaml);
  const auto f = model.requirements(yaml.entries[0]);
  REQUIRE(f.size() == 1);
  CHECK(f[0].decl.to_string() == "Tensor f(const Tensor& self, IntArrayRef size, int64_t n)");
  const auto g = model.requirements(yaml.entries[1]);
  REQUIRE(g.size() == 2);
  CHECK(g[0].decl.name == "g");
  CHECK(g[0].versions == std::vector<std::string>{"v2.1"});
  CHECK(g[1].decl.to_string() == "Tensor g_symint(const Tensor& self, SymIntArrayRef size)");
}

TEST_CASE("interface: C++ types compared as the compiler does", "[interface]") {
  const skillrt::opa::TypeAliases file = {{"tensor_list3", "tuple<Tensor,Tensor,Tensor>"},
                                          {"DIM", "3"}};
  CHECK(cpp_type_key("const TensorList", {}) == cpp_type_key("TensorList", {}));
  CHECK(cpp_type_key("Tensor const&", {}) == cpp_type_key("const Tensor&", {}));
  CHECK(cpp_type_key("optional<Tensor>const&", {}) == "const optional<Tensor>&");
  CHECK(cpp_type_key("tensor_list3", file) == cpp_type_key("tuple<Tensor,Tensor,Tensor>", {}));
  CHECK(cpp_type_key("array<bool,DIM>", file) == "array<bool,3>");
  CHECK(cpp_type_key("IntArrayRef", {}) == cpp_type_key("ArrayRef<int64_t>", {}));
  // A different type, not a spelling: optional<IntArrayRef> is not OptionalIntArrayRef.
  CHECK(cpp_type_key("optional<IntArrayRef>", {}) != cpp_type_key("OptionalIntArrayRef", {}));
  CHECK(cpp_type_key("const Tensor&", {}) != cpp_type_key("Tensor&", {}));
  CHECK(cpp_type_key("const int64_t", {}) == "int64_t");
}
