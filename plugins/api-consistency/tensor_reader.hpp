// Streams tensors from .npy, .npz, raw binary and JSON arrays in bounded chunks.
//
// Large files are memory-mapped and the pages behind the read position are dropped as the stream
// advances, so the resident set stays bounded whatever the file size; deflated .npz members are
// inflated through a fixed buffer.
#ifndef SKILLRT_API_CONSISTENCY_TENSOR_READER_HPP_
#define SKILLRT_API_CONSISTENCY_TENSOR_READER_HPP_

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dtype.hpp"

namespace skillrt::apic {

// A file that cannot be read as the tensor it claims to be; the message names the file, the
// problem and the fix.
class TensorError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TensorSpec {
  std::string path;
  std::string format = "auto";                // auto | npy | npz | raw | json
  std::string member;                         // .npz member ("out" or "out.npy")
  std::optional<DType> dtype;                 // logical dtype (bfloat16 over uint16 storage, ...)
  std::optional<DType> storage;               // raw files: element type on disk (defaults to dtype)
  std::optional<std::vector<int64_t>> shape;  // raw files: required; others: checked
  uint64_t offset = 0;                        // raw files: bytes to skip
  bool big_endian = false;                    // raw files
};

struct TensorHeader {
  DType storage = DType::kFloat32;  // what the bytes hold
  DType logical = DType::kFloat32;  // what the tensor is (standards use this)
  std::vector<int64_t> shape;
  uint64_t count = 0;
  bool complex = false;  // complex input viewed as (real, imag) pairs: last axis of 2 appended
  bool fortran = false;  // stored in Fortran order; the stream still yields logical (C) order
  std::string format;    // npy | npz | raw | json
  std::string source;    // path, plus ":member" for .npz
};

class TensorStream {
 public:
  virtual ~TensorStream() = default;
  const TensorHeader& header() const { return header_; }
  // Up to max_elems elements, native byte order, storage dtype; 0 at the end. The pointer is valid
  // until the next call and may be unaligned.
  virtual size_t next(const uint8_t** data, size_t max_elems) = 0;

 protected:
  TensorHeader header_;
};

std::unique_ptr<TensorStream> open_tensor(const TensorSpec& spec);

// Member names (without ".npy") of an .npz archive, in archive order.
std::vector<std::string> npz_members(const std::string& path);

// "auto" resolved from the extension (.npy, .npz, .json; anything else needs a declared format).
std::string resolve_format(const TensorSpec& spec);

}  // namespace skillrt::apic

#endif  // SKILLRT_API_CONSISTENCY_TENSOR_READER_HPP_
