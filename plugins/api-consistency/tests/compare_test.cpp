// Known answers for every metric and standard, NaN/Inf placement, empty tensors, integer
// exactness, and the torch rule's boundary per dtype (hand-built and cross-checked against torch).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "compare.hpp"
#include "test_support.hpp"

using apic_test::TempDir;
using apic_test::write_npy;
using nlohmann::json;
using skillrt::apic::compare_tensors;
using skillrt::apic::CompareOptions;
using skillrt::apic::DType;
using skillrt::apic::TensorSpec;

namespace {

TensorSpec spec(const std::string& path) {
  TensorSpec s;
  s.path = path;
  return s;
}

json run(const TempDir& d, const std::string& descr, const std::vector<double>& e,
         const std::vector<double>& a, CompareOptions o = {}) {
  write_npy(d / "e.npy", descr, {static_cast<int64_t>(e.size())}, e);
  write_npy(d / "a.npy", descr, {static_cast<int64_t>(a.size())}, a);
  return compare_tensors(spec(d / "e.npy"), spec(d / "a.npy"), o);
}

template <typename T>
json run_typed(const TempDir& d, const std::string& descr, const std::vector<T>& e,
               const std::vector<T>& a, CompareOptions o = {}, std::optional<DType> declared = {}) {
  write_npy(d / "e.npy", descr, {static_cast<int64_t>(e.size())}, e);
  write_npy(d / "a.npy", descr, {static_cast<int64_t>(a.size())}, a);
  TensorSpec se = spec(d / "e.npy");
  TensorSpec sa = spec(d / "a.npy");
  se.dtype = declared;
  sa.dtype = declared;
  return compare_tensors(se, sa, o);
}

uint16_t bf16_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return static_cast<uint16_t>(b >> 16);
}

uint16_t half_bits_of_one_plus(int ulps) { return static_cast<uint16_t>(0x3C00 + ulps); }

}  // namespace

TEST_CASE("metrics: known answers for abs, rel, RMSE, cosine, error balance, worst-k") {
  TempDir d("metrics");
  const json r = run(d, "<f8", {1, 2, 3, 4}, {1.1, 2, 2.7, 4});
  const json& m = r["metrics"];
  CHECK(m["max_abs_error"].get<double>() == Approx(0.3));
  CHECK(m["mean_abs_error"].get<double>() == Approx(0.1));
  CHECK(m["max_rel_error"].get<double>() == Approx(0.1));
  CHECK(m["mean_rel_error"].get<double>() == Approx(0.05));
  CHECK(m["rmse"].get<double>() == Approx(std::sqrt(0.025)));
  const double dot = 1.1 + 4 + 8.1 + 16, ne = std::sqrt(30.0), na = std::sqrt(1.21 + 4 + 7.29 + 16);
  CHECK(m["cosine_similarity"].get<double>() == Approx(dot / (ne * na)));
  CHECK(m["error_balance"].get<double>() == Approx(0.0));
  CHECK(m["greater_count"] == 1);
  CHECK(m["less_count"] == 1);
  CHECK(m["max_abs_index"] == json::array({2}));
  REQUIRE(r["worst"].size() == 2);
  CHECK(r["worst"][0]["index"] == json::array({2}));
  CHECK(r["worst"][0]["abs_error"].get<double>() == Approx(0.3));
  CHECK(r["worst"][1]["index"] == json::array({0}));
  CHECK(r["verdict"] == "fail");
  CHECK(m["mismatched"] == 2);
}

TEST_CASE("metrics: error balance counts one-sided errors") {
  TempDir d("eb");
  const json r = run(d, "<f8", {1, 2, 3, 4}, {1.5, 2.5, 3.5, 4});
  CHECK(r["metrics"]["error_balance"].get<double>() == Approx(0.75));
}

TEST_CASE("metrics: ULP distance in the logical dtype") {
  TempDir d("ulp");
  std::vector<float> e{1.0f, 2.0f};
  std::vector<float> a{std::nextafter(std::nextafter(std::nextafter(1.0f, 2.0f), 2.0f), 2.0f),
                       2.0f};
  const json r = run_typed(d, "<f4", e, a);
  CHECK(r["metrics"]["ulp_max"].get<double>() == Approx(3.0));
  CHECK(r["metrics"]["ulp_mean"].get<double>() == Approx(1.5));
}

TEST_CASE("metrics: multi-dimensional worst index") {
  TempDir d("mdim");
  std::vector<double> e(24, 1.0), a(24, 1.0);
  a[1 * 12 + 2 * 4 + 3] = 5.0;  // [1, 2, 3] in shape (2, 3, 4)
  write_npy(d / "e.npy", "<f8", {2, 3, 4}, e);
  write_npy(d / "a.npy", "<f8", {2, 3, 4}, a);
  const json r = compare_tensors(spec(d / "e.npy"), spec(d / "a.npy"), {});
  CHECK(r["worst"][0]["index"] == json::array({1, 2, 3}));
  CHECK(r["worst"][0]["actual"] == 5.0);
}

TEST_CASE("NaN and Inf: counts per side and whether positions agree") {
  TempDir d("nan");
  const double nan = std::nan(""), inf = HUGE_VAL;
  const std::vector<double> e{nan, 1, inf, -inf, 2};
  const std::vector<double> a{nan, 1, inf, inf, nan};
  const json r = run(d, "<f8", e, a);
  const json& m = r["metrics"];
  CHECK(m["nan"]["expected"] == 1);
  CHECK(m["nan"]["actual"] == 2);
  CHECK(m["nan"]["both"] == 1);
  CHECK(m["nan"]["positions_agree"] == false);
  CHECK(m["nan"]["position_mismatches"] == 1);
  CHECK(m["inf"]["expected_pos"] == 1);
  CHECK(m["inf"]["expected_neg"] == 1);
  CHECK(m["inf"]["actual_pos"] == 2);
  CHECK(m["inf"]["matched"] == 1);
  CHECK(m["inf"]["position_mismatches"] == 1);
  CHECK(m["finite_pairs"] == 1);
  // assert_close: NaN never equals NaN by default; matched infinities are close.
  CHECK(m["mismatched"] == 3);
  CHECK(r["nonfinite_positions"].size() == 3);
  CompareOptions eq;
  eq.equal_nan = true;
  CHECK(run(d, "<f8", e, a, eq)["metrics"]["mismatched"] == 2);
}

TEST_CASE("empty tensors pass every standard with zero counts") {
  TempDir d("empty");
  write_npy(d / "e.npy", "<f4", {0, 3}, std::vector<float>{});
  write_npy(d / "a.npy", "<f4", {0, 3}, std::vector<float>{});
  for (const char* s : {"torch", "torch_npu", "msprobe", "ops"}) {
    CompareOptions o;
    o.standard = s;
    const json r = compare_tensors(spec(d / "e.npy"), spec(d / "a.npy"), o);
    INFO(s);
    CHECK(r["count"] == 0);
    CHECK(r["verdict"] == "pass");
    CHECK(r["metrics"]["mismatched"] == 0);
  }
}

TEST_CASE("integer exactness: int64 differences beyond 2^53 are found") {
  TempDir d("int");
  const int64_t big = (int64_t{1} << 60);
  const json r = run_typed<int64_t>(d, "<i8", {big, 5, -7}, {big + 1, 5, -7});
  CHECK(r["metrics"]["exact"] == true);
  CHECK(r["metrics"]["exact_mismatched"] == 1);
  CHECK(r["verdict"] == "fail");
  CHECK(r["standards"]["torch_npu"]["passed"] == false);
  CHECK(r["standards"]["msprobe"]["verdict"] == "error");
  const json same = run_typed<uint8_t>(d, "|u1", {0, 200, 255}, {0, 200, 255});
  CHECK(same["verdict"] == "pass");
  const json b = run_typed<uint8_t>(d, "|b1", {0, 1, 1}, {0, 1, 0});
  CHECK(b["dtype"] == "bool");
  CHECK(b["metrics"]["exact_mismatched"] == 1);
}

TEST_CASE("torch rule boundary: just inside and just outside atol + rtol*|expected| per dtype") {
  TempDir d("boundary");
  SECTION("float64: tol at 1.0 is 1e-7 + 1e-7") {
    const json in = run(d, "<f8", {1.0}, {1.0 + 1.9e-7});
    const json out = run(d, "<f8", {1.0}, {1.0 + 2.1e-7});
    CHECK(in["verdict"] == "pass");
    CHECK(out["verdict"] == "fail");
  }
  SECTION("float32: tol at 1.0 is 1e-5 + 1.3e-6 = 94.8 ulps of 2^-23") {
    const float one = 1.0f;
    auto ulps = [&](int k) { return one + static_cast<float>(k) * std::ldexp(1.0f, -23); };
    CHECK(run_typed<float>(d, "<f4", {one}, {ulps(94)})["verdict"] == "pass");
    CHECK(run_typed<float>(d, "<f4", {one}, {ulps(95)})["verdict"] == "fail");
    CHECK(run_typed<float>(d, "<f4", {one}, {one - 47 * std::ldexp(1.0f, -23) * 2})["verdict"] ==
          "pass");
  }
  SECTION("float16: tol at 1.0 is 1e-5 + 1e-3, one ulp is 2^-10") {
    CHECK(run_typed<uint16_t>(d, "<f2", {0x3C00}, {half_bits_of_one_plus(1)})["verdict"] == "pass");
    CHECK(run_typed<uint16_t>(d, "<f2", {0x3C00}, {half_bits_of_one_plus(2)})["verdict"] == "fail");
  }
  SECTION("bfloat16 (uint16 storage, declared): tol at 1.0 is 1e-5 + 1.6e-2, one ulp is 2^-7") {
    const uint16_t one = bf16_bits(1.0f);
    const json in = run_typed<uint16_t>(d, "<u2", {one}, {static_cast<uint16_t>(one + 2)}, {},
                                        DType::kBFloat16);
    const json out = run_typed<uint16_t>(d, "<u2", {one}, {static_cast<uint16_t>(one + 3)}, {},
                                         DType::kBFloat16);
    CHECK(in["dtype"] == "bfloat16");
    CHECK(in["metrics"]["rtol"].get<double>() == Approx(1.6e-2));
    CHECK(in["verdict"] == "pass");
    CHECK(out["verdict"] == "fail");
  }
}

TEST_CASE(
    "torch rule boundary agrees with torch.isclose and assert_close on 4000 pairs per dtype") {
  TempDir d("oracle");
  const int rc =
      apic_test::python(apic_test::test_dir() + "/data/torch_boundary.py", d.str(), d / "log.txt");
  INFO(apic_test::read_file(d / "log.txt"));
  REQUIRE(rc == 0);
  const json oracle = json::parse(apic_test::read_file(d / "oracle.json"));
  for (const char* name : {"float16", "bfloat16", "float32", "float64"}) {
    TensorSpec e = spec(d / (std::string(name) + "_e.npy"));
    TensorSpec a = spec(d / (std::string(name) + "_a.npy"));
    if (std::string(name) == "bfloat16") e.dtype = a.dtype = DType::kBFloat16;
    const json r = compare_tensors(e, a, {});
    INFO(name);
    CHECK(r["metrics"]["mismatched"] == oracle[name]["mismatched"]);
    CHECK((r["verdict"] == "pass") == oracle[name]["passed"].get<bool>());
    CHECK(r["metrics"]["rtol"].get<double>() == Approx(oracle[name]["rtol"].get<double>()));
    CHECK(oracle[name]["mismatched"].get<int>() > 100);  // the fixture really straddles the edge
  }
}

TEST_CASE("explicit rtol/atol and the custom standard") {
  TempDir d("custom");
  CompareOptions o;
  o.standard = "custom";
  o.rtol = 0.0;
  o.atol = 0.5;
  const json r = run(d, "<f8", {1, 2}, {1.4, 2.6}, o);
  CHECK(r["metrics"]["mismatched"] == 1);
  CHECK(r["decided_by"].get<std::string>().find("(given)") != std::string::npos);
  CompareOptions half;
  half.rtol = 0.1;
  CHECK_THROWS_AS(compare_tensors(spec(d / "e.npy"), spec(d / "a.npy"), half),
                  std::invalid_argument);
}

TEST_CASE("torch_npu standard: count-based, passes when violations of one kind stay <= N*prec") {
  TempDir d("npu");
  std::vector<float> e(10000, 1.0f), a(10000, 1.0f);
  a[0] = 2.0f;  // one element off: 1 relative and 1 absolute violation, limit N*1e-4 = 1
  CompareOptions o;
  o.standard = "torch_npu";
  json r = run_typed(d, "<f4", e, a, o);
  CHECK(r["standards"]["torch_npu"]["relative_violations"] == 1);
  CHECK(r["verdict"] == "pass");
  CHECK(r["standards"]["torch"]["passed"] == false);  // same data, the element-wise rule fails
  a[1] = 2.0f;
  r = run_typed(d, "<f4", e, a, o);
  CHECK(r["verdict"] == "fail");
  CHECK(r["decided_by"].get<std::string>().find("assertRtolEqual") != std::string::npos);
  // NaN positions must match.
  std::vector<float> e2{1, 2}, a2{1, std::nanf("")};
  CHECK(run_typed(d, "<f4", e2, a2, o)["verdict"] == "fail");
}

TEST_CASE("msprobe standard: cosine, max abs shortcut, 双千/双万 ratios for float32") {
  TempDir d("msprobe");
  CompareOptions o;
  o.standard = "msprobe";
  std::vector<double> e(10000, 1000.0), a(10000, 1000.0);
  CHECK(run(d, "<f8", e, a, o)["verdict"] == "pass");
  for (int i = 0; i < 5; ++i) a[static_cast<size_t>(i)] = 1000.0 * (1 + 5e-4);
  json r = run(d, "<f8", e, a, o);
  CHECK(r["standards"]["msprobe"]["ratio_1e-4"].get<double>() == Approx(0.9995));
  CHECK(r["verdict"] == "warning");
  for (int i = 0; i < 20; ++i) a[static_cast<size_t>(i)] = 1000.0 * (1 + 2e-3);
  r = run(d, "<f8", e, a, o);
  CHECK(r["standards"]["msprobe"]["ratio_1e-3"].get<double>() == Approx(0.998));
  CHECK(r["verdict"] == "error");
  std::vector<double> neg(e.size(), -1000.0);
  r = run(d, "<f8", e, neg, o);
  CHECK(r["verdict"] == "error");
  CHECK(r["reason"].get<std::string>().find("cosine") != std::string::npos);
}

TEST_CASE("ops standard: MERE < T and MARE < 10T with T = 2^-10 for float16") {
  TempDir d("ops");
  CompareOptions o;
  o.standard = "ops";
  std::vector<float> e(100, 1.0f), a(100, 1.0f + std::ldexp(1.0f, -11));
  json r = run_typed(d, "<f4", e, a, o, DType::kFloat16);
  CHECK(r["standards"]["ops"]["threshold"].get<double>() == Approx(std::ldexp(1.0, -10)));
  CHECK(r["standards"]["ops"]["mere"].get<double>() == Approx(std::ldexp(1.0, -11)).epsilon(1e-4));
  CHECK(r["verdict"] == "pass");
  a[0] = 1.02f;  // MARE 0.02 > 10 * 2^-10
  r = run_typed(d, "<f4", e, a, o, DType::kFloat16);
  CHECK(r["verdict"] == "fail");
  CHECK(r["reason"].get<std::string>().find("MARE") != std::string::npos);
  const json f64 = run(d, "<f8", {1.0}, {1.0}, o);
  CHECK(f64["verdict"] == "undecided");
}

TEST_CASE("shape and dtype mismatches are verdicts that name the check") {
  TempDir d("mismatch");
  write_npy(d / "e.npy", "<f4", {2, 3}, std::vector<float>(6, 1.0f));
  write_npy(d / "a.npy", "<f4", {3, 2}, std::vector<float>(6, 1.0f));
  json r = compare_tensors(spec(d / "e.npy"), spec(d / "a.npy"), {});
  CHECK(r["verdict"] == "fail");
  CHECK(r["decided_by"] == "shape check");
  CHECK(r["message"].get<std::string>().find("(2, 3)") != std::string::npos);
  write_npy(d / "a.npy", "<f8", {2, 3}, std::vector<double>(6, 1.0));
  r = compare_tensors(spec(d / "e.npy"), spec(d / "a.npy"), {});
  CHECK(r["decided_by"] == "dtype check");
  CompareOptions o;
  o.check_dtype = false;
  r = compare_tensors(spec(d / "e.npy"), spec(d / "a.npy"), o);
  CHECK(r["verdict"] == "pass");
  CHECK(r["dtype_mismatch"] == true);
}

TEST_CASE("large tensors: the two-thread split gives the single-pass answers") {
  TempDir d("split");
  const size_t n = (size_t{1} << 23) + 1001;  // above the split threshold, odd length
  std::vector<float> e(n, 1.0f), a(n, 1.0f);
  a[10] = 1.5f;                  // first half
  a[n - 3] = 3.0f;               // second half: the worst element
  a[n / 2 + 7] = std::nanf("");  // second half, NaN on the device side only
  a[n / 2 - 1] = 0.75f;          // last element of the first half
  write_npy(d / "e.npy", "<f4", {static_cast<int64_t>(n)}, e);
  write_npy(d / "a.npy", "<f4", {static_cast<int64_t>(n)}, a);
  const json r = compare_tensors(spec(d / "e.npy"), spec(d / "a.npy"), {});
  const json& m = r["metrics"];
  CHECK(m["elements"] == n);
  CHECK(m["finite_pairs"] == n - 1);
  CHECK(m["mismatched"] == 4);
  CHECK(m["max_abs_error"] == 2.0);
  CHECK(m["max_abs_index"] == json::array({n - 3}));
  CHECK(m["mean_abs_error"].get<double>() == Approx((0.5 + 2.0 + 0.25) / (n - 1)));
  CHECK(m["nan"]["actual"] == 1);
  REQUIRE(r["worst"].size() == 3);
  CHECK(r["worst"][0]["flat_index"] == n - 3);
  CHECK(r["worst"][1]["flat_index"] == 10);
  CHECK(r["worst"][2]["flat_index"] == n / 2 - 1);
  CHECK(r["nonfinite_positions"][0]["flat_index"] == n / 2 + 7);
  uint64_t seg_total = 0;
  for (const auto& v : r["profile"]["mismatched"]) seg_total += v.get<uint64_t>();
  CHECK(seg_total == 4);
}
