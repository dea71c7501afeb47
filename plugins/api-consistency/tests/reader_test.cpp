// Readers: .npy variants, .npz stored and deflated, raw, JSON, declared dtypes, and the errors a
// malformed file gives.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

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

// Hand-made .npy and .npz files for the inputs the tensor_npy fuzz target (tests/fuzz) found:
// sizes that wrap around 64 bits, zip64 offsets near 2^64, a directory's inflated size as a
// claim to allocate, ragged or deeply nested JSON, and the format an .npz member reports.
namespace {

std::string le(uint64_t v, size_t bytes) {
  std::string s;
  for (size_t i = 0; i < bytes; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

// A version-1 .npy header around `dict` (padded as numpy pads it), then `data`.
std::string npy_text(std::string dict, const std::string& data = "") {
  dict += std::string((64 - (10 + dict.size() + 1) % 64) % 64, ' ') + "\n";
  return std::string("\x93NUMPY\x01\x00", 8) + le(dict.size(), 2) + dict + data;
}

// A deflate stream of one stored block (RFC 1951 BTYPE 00): valid input for inflate.
std::string deflate_stored(const std::string& data) {
  return std::string(1, '\x01') + le(data.size(), 2) + le(~data.size() & 0xffff, 2) + data;
}

struct ZipMember {
  std::string name = "y.npy";
  std::string payload;  // as stored (deflated already for method 8)
  uint16_t method = 0;
  uint64_t uncompressed = 0;
  // When set: the 32-bit sizes and offset read 0xFFFFFFFF and a zip64 extra field holds these.
  std::optional<uint64_t> zip64_compressed;
  std::optional<uint64_t> zip64_local_offset;
};

std::string zip_one(const ZipMember& m) {
  const bool z64 = m.zip64_compressed.has_value();
  const std::string local = le(0x04034b50, 4) + le(20, 2) + le(0, 2) + le(m.method, 2) + le(0, 4) +
                            le(0, 4) + le(m.payload.size(), 4) + le(m.uncompressed, 4) +
                            le(m.name.size(), 2) + le(0, 2) + m.name + m.payload;
  const std::string extra = z64 ? le(1, 2) + le(24, 2) + le(m.uncompressed, 8) +
                                      le(*m.zip64_compressed, 8) + le(*m.zip64_local_offset, 8)
                                : "";
  const std::string central =
      le(0x02014b50, 4) + le(45, 2) + le(45, 2) + le(0, 2) + le(m.method, 2) + le(0, 4) + le(0, 4) +
      le(z64 ? 0xFFFFFFFFu : m.payload.size(), 4) + le(z64 ? 0xFFFFFFFFu : m.uncompressed, 4) +
      le(m.name.size(), 2) + le(extra.size(), 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) +
      le(z64 ? 0xFFFFFFFFu : 0, 4) + m.name + extra;
  return local + central + le(0x06054b50, 4) + le(0, 4) + le(1, 2) + le(1, 2) +
         le(central.size(), 4) + le(local.size(), 4) + le(0, 2);
}

// An archive whose end record sends the reader to a zip64 directory at `record_offset`, holding
// `cd_size` and `cd_offset` (the record is written at offset 0 when `record_offset` is 0).
std::string zip64_directory(uint64_t record_offset, uint64_t cd_size, uint64_t cd_offset) {
  const std::string record = record_offset == 0 ? le(0x06064b50, 4) + le(44, 8) + le(45, 2) +
                                                      le(45, 2) + le(0, 8) + le(1, 8) + le(1, 8) +
                                                      le(cd_size, 8) + le(cd_offset, 8)
                                                : "";
  return record + le(0x07064b50, 4) + le(0, 4) + le(record_offset, 8) + le(1, 4) +
         le(0x06054b50, 4) + le(0, 4) + le(0xFFFF, 2) + le(0xFFFF, 2) + le(0xFFFFFFFFu, 4) +
         le(0xFFFFFFFFu, 4) + le(0, 2);
}

}  // namespace

TEST_CASE("reader: .npy shapes whose size overflows 64 bits are refused") {
  TempDir d("fuzz_npy");
  auto file = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(d / name, std::ios::binary) << bytes;
    return spec(d / name);
  };
  // Beyond int64: std::stoll threw std::out_of_range, which no caller catches.
  CHECK_THROWS_AS(open_tensor(file("huge.npy", npy_text("{'descr': '<f4', 'fortran_order': False, "
                                                        "'shape': (99999999999999999999,), }"))),
                  TensorError);
  // 2^61 float64 elements are 2^64 bytes, 0 once wrapped: the header passed the size check and
  // the Fortran reader walked 2^61 elements from the start of an empty data region.
  for (const char* order : {"False", "True"}) {
    INFO(order);
    const std::string dict = std::string("{'descr': '<f8', 'fortran_order': ") + order +
                             ", 'shape': (2305843009213693952,), }";
    CHECK_THROWS_WITH(open_tensor(file("wrap.npy", npy_text(dict))),
                      Catch::Contains("overflow 64 bits"));
  }
  TensorSpec negative = file("x.bin", std::string(8, '\0'));
  negative.dtype = DType::kFloat32;
  negative.shape = std::vector<int64_t>{-1, -2};
  CHECK_THROWS_WITH(open_tensor(negative), Catch::Contains("is negative"));
}

TEST_CASE("reader: zip64 offsets and sizes near 2^64 are refused") {
  TempDir d("fuzz_zip");
  auto file = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(d / name, std::ios::binary) << bytes;
    return spec(d / name);
  };
  const std::string npy = npy_text("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }",
                                   std::string("\x01\x02", 2));
  ZipMember ok;
  ok.payload = npy;
  ok.uncompressed = npy.size();
  ok.zip64_compressed = npy.size();
  ok.zip64_local_offset = 0;
  REQUIRE(open_tensor(file("ok.npz", zip_one(ok)))->header().count == 2);
  // The zip64 record's offset + 56 wrapped past the end check: a read at 2^64 - 16.
  CHECK_THROWS_AS(open_tensor(file("z.npz", zip64_directory(0xFFFFFFFFFFFFFFF0u, 0, 0))),
                  TensorError);
  CHECK_THROWS_AS(npz_members(d / "z.npz"), TensorError);
  // Directory offset + size wrapped to a small number: the entries were read at 2^64 - 16.
  file("cd.npz", zip64_directory(0, 0x20, 0xFFFFFFFFFFFFFFF0u));
  CHECK_THROWS_AS(npz_members(d / "cd.npz"), TensorError);
  // A member's local header offset, and its compressed size, from the zip64 extra field.
  ZipMember offset = ok;
  offset.zip64_local_offset = 0xFFFFFFFFFFFFFFF0u;
  CHECK_THROWS_WITH(open_tensor(file("offset.npz", zip_one(offset))),
                    Catch::Contains("local zip header missing"));
  ZipMember size = ok;
  size.payload = npy_text("{'descr': '|u1', 'fortran_order': False, 'shape': (1000000,), }");
  size.zip64_compressed = 0xFFFFFFFFFFFFFFF0u;
  CHECK_THROWS_WITH(open_tensor(file("size.npz", zip_one(size))),
                    Catch::Contains("runs past the end"));
}

TEST_CASE("reader: a deflated Fortran member is not allocated at its directory's claimed size") {
  TempDir d("fuzz_inflate");
  // 10^7 float64 (80 MB) promised, in a member that inflates to its 128-byte header; the
  // directory claims 256 MB. The reader allocated the 80 MB before inflating a byte.
  ZipMember m;
  const std::string npy =
      npy_text("{'descr': '<f8', 'fortran_order': True, 'shape': (10000000,), }");
  m.payload = deflate_stored(npy);
  m.method = 8;
  m.uncompressed = 0x10000000;
  std::ofstream(d / "f.npz", std::ios::binary) << zip_one(m);
  CHECK_THROWS_WITH(open_tensor(spec(d / "f.npz", "y")), Catch::Contains("inflates to"));
  // The same member, stored: an .npz member reports format npz even as the archive's only one.
  ZipMember stored;
  stored.payload =
      npy_text("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", std::string(4, '\0'));
  stored.uncompressed = stored.payload.size();
  std::ofstream(d / "one.npz", std::ios::binary) << zip_one(stored);
  CHECK(open_tensor(spec(d / "one.npz"))->header().format == "npz");
  CHECK(open_tensor(spec(d / "one.npz", "y"))->header().format == "npz");
}

TEST_CASE("reader: ragged and deeply nested JSON arrays are refused") {
  TempDir d("fuzz_json");
  // A number fixed the rank at 1, then an array at depth 1 added an axis: read as (2, 1) and as
  // 3 values under shape (2, 2).
  for (const char* text : {"[1, [2]]", "[1, [2, 3]]"}) {
    INFO(text);
    std::ofstream(d / "r.json") << text;
    CHECK_THROWS_WITH(open_tensor(spec(d / "r.json")), Catch::Contains("ragged"));
  }
  // One stack frame per level: 100000 levels overflowed the stack.
  std::ofstream(d / "deep.json") << std::string(100000, '[') << std::string(100000, ']');
  CHECK_THROWS_WITH(open_tensor(spec(d / "deep.json")), Catch::Contains("nested deeper"));
  std::ofstream(d / "ok.json") << "[[[1], [2]], [[3], [4]]]";
  CHECK(open_tensor(spec(d / "ok.json"))->header().shape == std::vector<int64_t>{2, 2, 1});
}
