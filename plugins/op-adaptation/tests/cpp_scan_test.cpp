// The C++ kernel reader and the schema-to-C++ type mapping.
#include <catch2/catch.hpp>

#include "cpp_scan.hpp"
#include "optoolkit/schema.hpp"

using namespace skillrt::opa;

TEST_CASE("cpp: definitions at namespace scope, anonymous helpers and calls in bodies") {
  const auto fns = scan_cpp(
      "#include \"x.h\"\n"
      "namespace acl_op {\n"
      "namespace {\n"
      "at::Tensor& helper_nocheck(at::Tensor& r) { return r; }\n"
      "}  // namespace\n"
      "// at::Tensor commented(int x) {}\n"
      "std::tuple<at::Tensor, at::Tensor> f(const at::Tensor & self,\n"
      "    const c10::optional<at::Tensor>& w, at::IntArrayRef dims, double eps = 1e-5)\n"
      "{\n"
      "    DO_COMPATIBILITY(aclnnF, acl_op::f(self, w, dims, eps));\n"
      "    const char* s = \"EXEC_NPU_CMD(aclnnNot)\";\n"
      "    EXEC_NPU_CMD(aclnnF, self, w, dims, eps);\n"
      "    return {};\n"
      "}\n"
      "}  // namespace acl_op\n");
  REQUIRE(fns.size() == 2);
  CHECK(fns[0].name == "helper_nocheck");
  CHECK(fns[0].ns.empty());
  const CppFunction& f = fns[1];
  CHECK(f.ns == "acl_op");
  CHECK(f.name == "f");
  CHECK(f.line == 7);
  CHECK(f.return_type == "tuple<Tensor,Tensor>");
  REQUIRE(f.params.size() == 4);
  CHECK(f.params[0].type == "const Tensor&");
  CHECK(f.params[0].name == "self");
  CHECK(f.params[1].type == "const optional<Tensor>&");
  CHECK(f.params[2].type == "IntArrayRef");
  CHECK(f.params[3].name == "eps");
  REQUIRE(f.exec_calls.size() == 1);
  CHECK(f.exec_calls[0].first == "aclnnF");
  CHECK(f.exec_calls[0].second == 12);
  CHECK(f.compat_calls.at(0).first == "aclnnF");
}

TEST_CASE("cpp: schema to C++ type mapping") {
  const auto s = skillrt::ops::parse_schema_or_throw(
      "npu_t(Tensor(a!) a, Tensor b, Tensor? c, Tensor[] d, int e, int[] f, int[]? g, SymInt h, "
      "SymInt[] i, float j, float? k, bool l, str m, Scalar n, ScalarType? o) -> (Tensor, Tensor)");
  std::vector<std::string> got;
  for (const auto& a : s.arguments) got.push_back(expected_cpp_type(a));
  CHECK(got == std::vector<std::string>{"Tensor&", "const Tensor&", "const optional<Tensor>&",
                                        "TensorList", "int64_t", "IntArrayRef",
                                        "OptionalIntArrayRef", "SymInt", "SymIntArrayRef", "double",
                                        "optional<double>", "bool", "string_view", "const Scalar&",
                                        "optional<ScalarType>"});
  CHECK(expected_cpp_name(s) == "npu_t_symint");
  CHECK(expected_cpp_return(s) == "tuple<Tensor,Tensor>");
  CHECK(cpp_types_match("OptionalIntArrayRef", "optional<IntArrayRef>"));
  CHECK(cpp_types_match("int64_t", "const int64_t"));
  CHECK_FALSE(cpp_types_match("Tensor&", "const Tensor&"));
  CHECK_FALSE(cpp_types_match("double", "float"));
  const auto out =
      skillrt::ops::parse_schema_or_throw("abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  CHECK(expected_cpp_name(out) == "abs_out");
  CHECK(expected_cpp_return(out) == "Tensor&");
}

TEST_CASE("scan_cpp: a local EXEC_NPU_CMD reads before every path assigns it") {
  using skillrt::opa::scan_cpp;
  auto flagged = [](const std::string& body) {
    const auto fns = scan_cpp("namespace op_api {\nat::Tensor f(int64_t mode) {\n" + body +
                              "\n  EXEC_NPU_CMD(aclnnF, x, dt);\n  return x;\n}\n}\n");
    REQUIRE(fns.size() == 1);
    std::vector<std::string> names;
    for (const auto& u : fns[0].maybe_uninitialized) names.push_back(u.name);
    return names;
  };
  // The worked example of SwigluGroupQuantKernelNpuOpApi.cpp: assigned for two modes only.
  CHECK(flagged("aclDataType dt;\n  if (mode == 2 || mode == 3) {\n    dt = ACL_HIFLOAT8;\n  }") ==
        std::vector<std::string>{"dt"});
  CHECK(flagged("aclDataType dt;\n  if (mode) { dt = A; } else { dt = B; }").empty());
  CHECK(flagged("aclDataType dt;\n  if (mode == 1) dt = A;\n  else if (mode == 2) dt = B;\n"
                "  else TORCH_CHECK(false, \"bad mode\");")
            .empty());
  CHECK(flagged("aclDataType dt;\n  if (mode == 1) dt = A;\n  else if (mode == 2) dt = B;") ==
        std::vector<std::string>{"dt"});
  CHECK(flagged("aclDataType dt;\n  switch (mode) {\n    case 1: dt = A; break;\n"
                "    default: dt = B;\n  }")
            .empty());
  CHECK(flagged("aclDataType dt;\n  for (int i = 0; i < 2; ++i) { dt = A; }") ==
        std::vector<std::string>{"dt"});
  CHECK(flagged("aclDataType dt;\n  get_type(&dt);").empty());
  CHECK(flagged("aclDataType dt = A;").empty());
  // Not passed to EXEC_NPU_CMD: out of this check's scope.
  CHECK(flagged("int64_t unused;\n  aclDataType dt = A;").empty());
}
