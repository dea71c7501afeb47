// Fuzz target of api-consistency's tensor reader (plugins/api-consistency/tensor_reader.cpp):
// .npy headers, .npz archives read through the reader's own zip directory walk and inflate
// loop, JSON arrays and raw binary, all of them files a user hands to the skill. The first byte of
// an input picks the format (bits 0-1: npy, npz, json, raw), a declared dtype (bits 2-4: none,
// bfloat16, float16, float32, float64, int64, uint16, bool) and the chunk size next() is called
// with (bits 5-7; odd choices also mean big-endian for raw); the rest is written to a temp file
// (one path per process) and opened with open_tensor(); an .npz is listed with npz_members() and
// every member (up to 8), and the sole-member form, is opened. Each stream is read with next()
// until it returns 0. Whatever the bytes, the reader must not crash or trip ASan/UBSan, must
// report every problem as TensorError (nothing else is caught here), and what it opens must hold
// together:
// - header().count is the product of header().shape (without overflow), and for a .npy or raw
//   file count * storage size fits in the file: a header promising more than the bytes hold
//   must be refused at open, never read past the end of the mapping;
// - next() returns at most the chunk asked for, the stream yields exactly count elements
//   (count * storage size bytes, every one of them read here) and then keeps returning 0;
// - header().format names the format that was opened;
// - a JSON tensor's shape is its array's nesting (nlohmann reads it): a ragged array is refused.
// Run with -malloc_limit_mb=256 -rss_limit_mb=1024: the inputs are a few KB, so an allocation
// beyond that is one a corrupt header or zip directory asked for, not one the data needs.
// Built as a libFuzzer target by `make fuzz`, and run over its corpus by ctest.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tensor_reader.hpp"

namespace {

using skillrt::apic::DType;
using skillrt::apic::dtype_size;
using skillrt::apic::TensorError;
using skillrt::apic::TensorSpec;
using skillrt::apic::TensorStream;

[[noreturn]] void broken(const std::string& what, std::string_view input) {
  std::fprintf(stderr, "tensor_npy: %s (input of %zu bytes)\n", what.c_str(), input.size());
  std::abort();
}

// One temp file per process, reused for every input and removed at exit. The path is never
// destroyed: a static string would be, before the exit handler (registered while the string is
// still being built) runs.
const std::string& temp_path() {
  static const std::string* const path = [] {
    auto* p = new std::string((std::filesystem::temp_directory_path() /
                               ("skillrt_fuzz_tensor_npy." + std::to_string(::getpid())))
                                  .string());
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove(temp_path(), ec);
    });
    return p;
  }();
  return *path;
}

// Where the byte sum of every yielded element goes, so that the reads are not optimised away.
volatile uint8_t g_sink;

constexpr const char* kFormats[] = {"npy", "npz", "json", "raw"};
constexpr std::optional<DType> kDeclared[] = {std::nullopt,    DType::kBFloat16, DType::kFloat16,
                                              DType::kFloat32, DType::kFloat64,  DType::kInt64,
                                              DType::kUInt16,  DType::kBool};
constexpr size_t kChunks[] = {2, 3, 5, 16, 257, 4096, 65536, size_t{1} << 20};

// The shape of a rectangular nested JSON array ({} for a scalar), or nullopt when it is ragged.
std::optional<std::vector<int64_t>> json_shape(const nlohmann::json& j) {
  if (!j.is_array()) return std::vector<int64_t>{};
  std::optional<std::vector<int64_t>> inner;
  for (const auto& v : j) {
    auto s = json_shape(v);
    if (!s || (inner && *inner != *s)) return std::nullopt;
    inner = std::move(s);
  }
  std::vector<int64_t> out{static_cast<int64_t>(j.size())};
  if (inner) out.insert(out.end(), inner->begin(), inner->end());
  return out;
}

// Opens `spec` and reads it to the end, checking the stream's invariants. The file holds the
// input after its first byte; its size bounds count * storage size when `bounded` (uncompressed
// .npy and raw).
void read_all(const TensorSpec& spec, const std::string& format, size_t chunk, bool bounded,
              std::string_view input) {
  const std::string_view file = input.substr(1);
  std::unique_ptr<TensorStream> stream;
  try {
    stream = skillrt::apic::open_tensor(spec);
  } catch (const TensorError&) {
    return;
  }
  if (!stream) broken("open_tensor returned no stream", input);
  const auto& h = stream->header();
  uint64_t product = 1;
  for (const int64_t d : h.shape) {
    if (d < 0) broken("negative dimension " + std::to_string(d), input);
    if (__builtin_mul_overflow(product, static_cast<uint64_t>(d), &product)) {
      broken("shape product overflows 64 bits", input);
    }
  }
  if (product != h.count) {
    broken("count " + std::to_string(h.count) + " is not the shape's product " +
               std::to_string(product),
           input);
  }
  const size_t es = dtype_size(h.storage);
  if (es == 0) broken("storage dtype of size 0", input);
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(h.count, static_cast<uint64_t>(es), &bytes)) {
    broken("count * storage size overflows 64 bits", input);
  }
  if (bounded && bytes > file.size()) {
    broken("header promises " + std::to_string(bytes) + " data bytes in a file of " +
               std::to_string(file.size()),
           input);
  }
  if (h.format != format) {
    broken("header().format is '" + h.format + "' for a " + format + " file", input);
  }
  if (format == "json") {
    // The shape must be the array's own: a ragged array is refused, not read as another shape.
    auto j = nlohmann::json::parse(file, nullptr, false);
    if (j.is_discarded()) broken("the reader accepted text nlohmann cannot parse", input);
    if (j.is_object() && j.contains("data")) j = j["data"];
    const auto shape = json_shape(j);
    if (!shape) broken("the reader accepted a ragged JSON array", input);
    if (*shape != h.shape) broken("JSON shape differs from the array's nesting", input);
  }
  // Few calls for a large (inflated) tensor: the chunk grows so that a read takes <= ~4096 calls.
  const size_t step = std::max<size_t>(
      chunk, static_cast<size_t>(std::min<uint64_t>(h.count / 4096, uint64_t{1} << 24)));
  uint64_t total = 0;
  uint8_t sum = 0;
  try {
    for (;;) {
      const uint8_t* p = nullptr;
      const size_t n = stream->next(&p, step);
      if (n == 0) break;
      if (n > step) broken("next() returned more elements than asked for", input);
      if (p == nullptr) broken("next() returned elements without data", input);
      total += n;
      if (total > h.count) broken("stream yields more than header().count elements", input);
      for (size_t i = 0; i < n * es; ++i) sum = static_cast<uint8_t>(sum + p[i]);
    }
  } catch (const TensorError&) {
    return;  // data cut off or corrupt: reported, not read past
  }
  if (total != h.count) {
    broken("stream ended after " + std::to_string(total) + " of " + std::to_string(h.count) +
               " elements without an error",
           input);
  }
  const uint8_t* p = nullptr;
  if (stream->next(&p, step) != 0) broken("next() yields data after the end", input);
  g_sink = sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const uint8_t sel = data[0];
  const std::string format = kFormats[sel & 3];
  const std::optional<DType> declared = kDeclared[(sel >> 2) & 7];
  const size_t chunk_choice = (sel >> 5) & 7;
  const size_t chunk = kChunks[chunk_choice];
  {
    std::ofstream out(temp_path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
    if (!out) broken("cannot write the temp file " + temp_path(), input);
  }
  TensorSpec spec;
  spec.path = temp_path();
  spec.format = format;
  spec.dtype = declared;
  if (format == "npz") {
    std::vector<std::string> members;
    try {
      members = skillrt::apic::npz_members(spec.path);
    } catch (const TensorError&) {
    }
    read_all(spec, format, chunk, false, input);
    for (size_t i = 0; i < members.size() && i < 8; ++i) {
      spec.member = members[i];
      read_all(spec, format, chunk, false, input);
    }
    return 0;
  }
  if (format == "raw") {
    const DType storage = declared.value_or(DType::kFloat32);
    const uint64_t es = dtype_size(storage);
    spec.offset = (size - 1) % es;
    spec.shape = std::vector<int64_t>{static_cast<int64_t>((size - 1) / es)};
    spec.big_endian = (chunk_choice & 1) != 0;
  }
  read_all(spec, format, chunk, format == "npy" || format == "raw", input);
  return 0;
}
