// Element types the compare engine reads, and the per-dtype constants the standards need.
#ifndef SKILLRT_API_CONSISTENCY_DTYPE_HPP_
#define SKILLRT_API_CONSISTENCY_DTYPE_HPP_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace skillrt::apic {

enum class DType {
  kBool,
  kInt8,
  kUInt8,
  kInt16,
  kUInt16,
  kInt32,
  kUInt32,
  kInt64,
  kUInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
};

std::string_view dtype_name(DType t);
size_t dtype_size(DType t);
bool is_float(DType t);
bool is_signed_int(DType t);

// Accepts numpy and torch spellings: "float16", "fp16", "half", "torch.bfloat16", "<f4", "int64".
std::optional<DType> parse_dtype(std::string_view name);

// Mantissa bits and smallest normal exponent of a floating dtype (float64 for non-floats); the
// ULP metric and the msprobe ULP standard use them.
int mantissa_bits(DType t);
int min_normal_exponent(DType t);
double largest_finite(DType t);
double machine_epsilon(DType t);
// Half of machine epsilon: the largest relative error of rounding to the dtype.
double unit_roundoff(DType t);

}  // namespace skillrt::apic

#endif  // SKILLRT_API_CONSISTENCY_DTYPE_HPP_
