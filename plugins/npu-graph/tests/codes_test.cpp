// Error-code scanning and decoding against the embedded tables.
#include <catch2/catch.hpp>

#include "codes.hpp"

namespace ng = skillrt::npu_graph;

namespace {

std::vector<std::string> scan(std::string_view line) {
  std::vector<ng::CodeToken> tokens;
  ng::CodeTable::builtin().scan(line, &tokens);
  std::vector<std::string> out;
  for (const auto& t : tokens) out.emplace_back(t.text);
  return out;
}

}  // namespace

TEST_CASE("scan finds each code family and ignores ids, pids and timestamps") {
  CHECK(scan("[ERROR] 2024-06-12-14:03:27 (PID:100003, Device:0, RankID:-1) ERR01100 OPS call "
             "acl api failed") == std::vector<std::string>{"ERR01100"});
  CHECK(scan("NPU function error: aclrtSynchronizeDevice, error code is 507014") ==
        std::vector<std::string>{"507014"});
  CHECK(scan("call aclnnMatmul failed, detail:EZ9999: Inner Error! ret=561002") ==
        std::vector<std::string>{"EZ9999", "561002"});
  CHECK(scan("EI0002: The wait execution of the Notify register times out") ==
        std::vector<std::string>{"EI0002"});
  // Unknown six-digit numbers, process ids and timestamp fractions are not codes.
  CHECK(scan("GE(100001,python3):2024-05-20-08:00:01.221.334 step 123456 done").empty());
  CHECK(scan("ERR0110 and XERR01100 and EZ99999 and 5070140").empty());
}

TEST_CASE("decode gives meaning, family and layer for each kind") {
  const auto& t = ng::CodeTable::builtin();
  const auto err = t.decode("ERR02002");
  REQUIRE(err);
  CHECK(err->name == "DIST TYPE");
  CHECK(err->layer == "cpp-core");
  const auto ops = t.decode("ERR01007");
  REQUIRE(ops);
  CHECK(ops->layer == "opplugin-operator");
  CHECK(ops->meaning.find("feature not supported") == 0);
  const auto acl = t.decode("507011");
  REQUIRE(acl);
  CHECK(acl->kind == ng::CodeKind::kAcl);
  CHECK(acl->family == "ACL device execution");
  CHECK(acl->layer == "acl-runtime");
  CHECK_FALSE(acl->meaning.empty());
  const auto user = t.decode("148049");
  REQUIRE(user);
  CHECK(user->family == "ACL user error");
  const auto aclnn = t.decode("161002");
  REQUIRE(aclnn);
  CHECK(aclnn->name == "ACLNN_ERR_PARAM_INVALID");
  CHECK(aclnn->family.find("caller arguments") != std::string::npos);
  const auto cann = t.decode("EZ9999");
  REQUIRE(cann);
  CHECK(cann->layer == "opplugin-operator");
  CHECK(cann->meaning.find("internal") != std::string::npos);
  const auto hccl = t.decode("EI0006");
  REQUIRE(hccl);
  CHECK(hccl->name == "CANN HCCL");
  CHECK(hccl->meaning.find("external") != std::string::npos);
  const auto extra = t.decode("107033");
  REQUIRE(extra);
  CHECK(extra->meaning.find("capture") != std::string::npos);
  CHECK_FALSE(t.decode("ERR77001"));
  CHECK_FALSE(t.decode("123456"));
  CHECK_FALSE(t.decode("EQ1234"));
}

TEST_CASE("a malformed ACL table names the file and line") {
  CHECK_THROWS_WITH(ng::CodeTable(R"(version: 1
torch_npu: {submodules: {}, codes: {}}
aclnn: {}
acl_extra: {}
acl_families: []
cann_modules: {}
)",
                                  "code\tmessage\nnot-a-code\tx\n"),
                    Catch::Contains("acl_error_codes.tsv line 2"));
}
