// Readers: .npy variants, .npz stored and deflated, raw, JSON, declared dtypes, and the errors a
// malformed file gives.
#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "compare.hpp"
#include "test_support.hpp"

using apic_test::TempDir;
using nlohmann::json;
using skillrt::apic::compare_tensors;
using skillrt::apic::CompareOptions;
using skillrt::apic::DType;
using skillrt::apic::npz_members;
using skillrt::apic::open_tensor;
using skillrt::apic::TensorError;
using skillrt::apic::TensorSpec;

namespace {

TensorSpec spec(const std::string& path, const std::string& member = "") {
  TensorSpec s;
  s.path = path;
  s.member = member;
  return s;
}

class Fixtures {
 public:
  Fixtures() : dir_("reader") {
    const int rc = apic_test::python(apic_test::test_dir() + "/data/make_reader_fixtures.py",
                                     dir_.str(), dir_ / "log.txt");
    INFO(apic_test::read_file(dir_ / "log.txt"));
    REQUIRE(rc == 0);
  }
  std::string operator/(const std::string& n) const { return dir_ / n; }

 private:
  TempDir dir_;
};

json equal_to_native(const Fixtures& f, TensorSpec other) {
  return compare_tensors(spec(f / "native.npy"), other, {});
}

}  // namespace

TEST_CASE("reader: npz stored and deflated members equal the .npy") {
  Fixtures f;
  CHECK(npz_members(f / "stored.npz") == std::vector<std::string>{"y", "idx"});
  for (const char* file : {"stored.npz", "deflated.npz"}) {
    INFO(file);
    const json r = equal_to_native(f, spec(f / file, "y"));
    CHECK(r["verdict"] == "pass");
    CHECK(r["count"] == 12);
    CHECK(r["actual"]["format"] == "npz");
  }
  TensorSpec both = spec(f / "deflated.npz");
  CHECK_THROWS_WITH(open_tensor(both), Catch::Contains("name one with 'member'"));
  CHECK_THROWS_WITH(open_tensor(spec(f / "stored.npz", "nope")), Catch::Contains("no member"));
}

TEST_CASE("reader: large deflated member streams through the inflate buffer") {
  Fixtures f;
  const json r = compare_tensors(spec(f / "large.npy"), spec(f / "large.npz", "big"), {});
  CHECK(r["verdict"] == "pass");
  CHECK(r["count"] == 3000000);
}

TEST_CASE("reader: big-endian, version 2 header, float16, complex") {
  Fixtures f;
  CHECK(equal_to_native(f, spec(f / "big.npy"))["verdict"] == "pass");
  CHECK(equal_to_native(f, spec(f / "v2.npy"))["verdict"] == "pass");
  const auto h = open_tensor(spec(f / "half.npy"))->header();
  CHECK(h.logical == DType::kFloat16);
  const auto c = open_tensor(spec(f / "complex.npy"))->header();
  CHECK(c.complex);
  CHECK(c.shape == std::vector<int64_t>{3, 4, 2});
  CHECK(compare_tensors(spec(f / "complex.npy"), spec(f / "complex.npy"), {})["verdict"] == "pass");
}

TEST_CASE("reader: bfloat16 bits as uint16 with a declared dtype") {
  Fixtures f;
  TensorSpec bf = spec(f / "bf16.npy");
  bf.dtype = DType::kBFloat16;
  TensorSpec f32 = spec(f / "native.npy");
  f32.dtype = DType::kBFloat16;  // float32 values declared as bfloat16 outputs
  const json r = compare_tensors(f32, bf, {});
  CHECK(r["dtype"] == "bfloat16");
  // Truncated to bfloat16, the values differ from float32 by less than bfloat16's tolerance.
  CHECK(r["verdict"] == "pass");
  CHECK(r["metrics"]["max_abs_error"].get<double>() > 0);
  TensorSpec wrong = spec(f / "native.npy");
  wrong.dtype = DType::kInt32;
  CHECK_THROWS_WITH(open_tensor(wrong), Catch::Contains("cannot be read from stored float32"));
}

TEST_CASE("reader: raw binary with declared dtype, shape and offset") {
  TempDir d("raw");
  std::vector<float> v{1, 2, 3, 4, 5, 6};
  {
    std::ofstream out(d / "x.bin", std::ios::binary);
    out.write("HDR!", 4);
    out.write(reinterpret_cast<const char*>(v.data()), 24);
  }
  apic_test::write_npy(d / "x.npy", "<f4", {2, 3}, v);
  TensorSpec raw = spec(d / "x.bin");
  raw.dtype = DType::kFloat32;
  raw.shape = std::vector<int64_t>{2, 3};
  raw.offset = 4;
  CHECK(compare_tensors(spec(d / "x.npy"), raw, {})["verdict"] == "pass");
  raw.shape = std::vector<int64_t>{2, 4};
  CHECK_THROWS_WITH(open_tensor(raw), Catch::Contains("check 'shape', 'dtype' and 'offset'"));
  TensorSpec bare = spec(d / "x.bin");
  CHECK_THROWS_WITH(open_tensor(bare), Catch::Contains("raw binary needs 'dtype'"));
}

TEST_CASE("reader: JSON arrays, nested, with nan/inf strings") {
  TempDir d("json");
  std::ofstream(d / "e.json") << R"([[1, 2], [3, "nan"]])";
  std::ofstream(d / "a.json") << R"({"data": [[1, 2], [3.5, "nan"]]})";
  CompareOptions o;
  o.equal_nan = true;
  const json r = compare_tensors(spec(d / "e.json"), spec(d / "a.json"), o);
  CHECK(r["actual"]["shape"] == json::array({2, 2}));
  CHECK(r["metrics"]["max_abs_error"] == 0.5);
  CHECK(r["metrics"]["nan"]["both"] == 1);
  std::ofstream(d / "ragged.json") << R"([[1, 2], [3]])";
  CHECK_THROWS_WITH(open_tensor(spec(d / "ragged.json")), Catch::Contains("ragged"));
  std::ofstream(d / "ints.json") << R"([1, 2, 3])";
  TensorSpec ints = spec(d / "ints.json");
  ints.dtype = DType::kInt64;
  std::ofstream(d / "ints2.json") << R"([1, 2, 4])";
  TensorSpec ints2 = spec(d / "ints2.json");
  ints2.dtype = DType::kInt64;
  const json ri = compare_tensors(ints, ints2, {});
  CHECK(ri["metrics"]["exact_mismatched"] == 1);
}

// Reads every element of a stream as double (the fixtures are float32/float64).
std::vector<double> all_values(const TensorSpec& s) {
  auto t = open_tensor(s);
  std::vector<double> out;
  const uint8_t* p = nullptr;
  const bool f64 = t->header().storage == DType::kFloat64;
  for (size_t n; (n = t->next(&p, 7)) != 0;) {
    for (size_t i = 0; i < n; ++i) {
      if (f64) {
        double v;
        std::memcpy(&v, p + 8 * i, 8);
        out.push_back(v);
      } else {
        float v;
        std::memcpy(&v, p + 4 * i, 4);
        out.push_back(v);
      }
    }
  }
  return out;
}

TEST_CASE("reader: Fortran-ordered arrays are read in logical order") {
  Fixtures f;
  const std::vector<double> c = all_values(spec(f / "f3_c.npy"));
  REQUIRE(c.size() == 30);
  CHECK(all_values(spec(f / "f3_f.npy")) == c);
  CHECK(all_values(spec(f / "f3_f_big.npy")) == c);
  CHECK(all_values(spec(f / "f_stored.npz", "y")) == c);
  CHECK(all_values(spec(f / "f_deflated.npz", "y")) == c);
  CHECK(open_tensor(spec(f / "f3_f.npy"))->header().fortran);
  CHECK(open_tensor(spec(f / "f3_f.npy"))->header().shape == std::vector<int64_t>{2, 3, 5});
  // Complex: (re, im) pairs stay together; the logical order is C order with the pair axis last.
  CHECK(all_values(spec(f / "f3_f_complex.npy")) == all_values(spec(f / "f3_c_complex.npy")));
  CompareOptions o;
  const json r = compare_tensors(spec(f / "f3_c.npy"), spec(f / "f3_f.npy"), o);
  CHECK(r["verdict"] == "pass");
  CHECK(r["metrics"]["max_abs_error"] == 0.0);
  // One side transposed in memory is not equal to the other read in storage order.
  const json t = compare_tensors(spec(f / "fortran.npy"), spec(f / "native.npy"), o);
  CHECK(t["verdict"] == "pass");
}

TEST_CASE("reader: malformed .npy files give errors that name the file and the fix") {
  Fixtures f;
  TempDir d("bad");
  std::ofstream(d / "magic.npy") << "not an npy file at all";
  CHECK_THROWS_WITH(open_tensor(spec(d / "magic.npy")),
                    Catch::Contains("magic bytes missing") && Catch::Contains("magic.npy"));
  // Truncated data: the header promises 12 floats.
  const std::string full = apic_test::read_file(f / "native.npy");
  std::ofstream(d / "trunc.npy", std::ios::binary) << full.substr(0, full.size() - 10);
  CHECK_THROWS_WITH(open_tensor(spec(d / "trunc.npy")), Catch::Contains("truncated"));
  // Header cut in the middle.
  std::ofstream(d / "cut.npy", std::ios::binary) << full.substr(0, 40);
  CHECK_THROWS_WITH(open_tensor(spec(d / "cut.npy")), Catch::Contains("header cut off"));
  CHECK_THROWS_WITH(open_tensor(spec(d / "missing.npy")), Catch::Contains("cannot open"));
  const std::string npz = apic_test::read_file(f / "stored.npz");
  std::ofstream(d / "trunc.npz", std::ios::binary) << npz.substr(0, npz.size() / 2);
  CHECK_THROWS_WITH(open_tensor(spec(d / "trunc.npz", "y")), Catch::Contains("trunc.npz"));
  CHECK_THROWS_AS(open_tensor(spec(d / "trunc.npz", "y")), TensorError);
}
