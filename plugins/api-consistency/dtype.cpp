#include "dtype.hpp"

#include <cctype>
#include <cmath>

namespace skillrt::apic {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::kBool:
      return "bool";
    case DType::kInt8:
      return "int8";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt16:
      return "int16";
    case DType::kUInt16:
      return "uint16";
    case DType::kInt32:
      return "int32";
    case DType::kUInt32:
      return "uint32";
    case DType::kInt64:
      return "int64";
    case DType::kUInt64:
      return "uint64";
    case DType::kFloat16:
      return "float16";
    case DType::kBFloat16:
      return "bfloat16";
    case DType::kFloat32:
      return "float32";
    case DType::kFloat64:
      return "float64";
  }
  return "unknown";
}

size_t dtype_size(DType t) {
  switch (t) {
    case DType::kBool:
    case DType::kInt8:
    case DType::kUInt8:
      return 1;
    case DType::kInt16:
    case DType::kUInt16:
    case DType::kFloat16:
    case DType::kBFloat16:
      return 2;
    case DType::kInt32:
    case DType::kUInt32:
    case DType::kFloat32:
      return 4;
    case DType::kInt64:
    case DType::kUInt64:
    case DType::kFloat64:
      return 8;
  }
  return 0;
}

bool is_float(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 ||
         t == DType::kFloat64;
}

bool is_signed_int(DType t) {
  return t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64;
}

std::optional<DType> parse_dtype(std::string_view name) {
  std::string s;
  for (char c : name) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s.rfind("torch.", 0) == 0) s = s.substr(6);
  if (s.rfind("np.", 0) == 0) s = s.substr(3);
  if (s.rfind("numpy.", 0) == 0) s = s.substr(6);
  // numpy descr strings: byte order is handled by the reader, only the kind and size matter here.
  if (!s.empty() && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) {
    const std::string d = s.substr(1);
    if (d == "b1") return DType::kBool;
    if (d == "i1") return DType::kInt8;
    if (d == "u1") return DType::kUInt8;
    if (d == "i2") return DType::kInt16;
    if (d == "u2") return DType::kUInt16;
    if (d == "i4") return DType::kInt32;
    if (d == "u4") return DType::kUInt32;
    if (d == "i8") return DType::kInt64;
    if (d == "u8") return DType::kUInt64;
    if (d == "f2") return DType::kFloat16;
    if (d == "f4") return DType::kFloat32;
    if (d == "f8") return DType::kFloat64;
    return std::nullopt;
  }
  if (s == "bool") return DType::kBool;
  if (s == "int8") return DType::kInt8;
  if (s == "uint8") return DType::kUInt8;
  if (s == "int16" || s == "short") return DType::kInt16;
  if (s == "uint16") return DType::kUInt16;
  if (s == "int32" || s == "int") return DType::kInt32;
  if (s == "uint32") return DType::kUInt32;
  if (s == "int64" || s == "long") return DType::kInt64;
  if (s == "uint64") return DType::kUInt64;
  if (s == "float16" || s == "fp16" || s == "half") return DType::kFloat16;
  if (s == "bfloat16" || s == "bf16") return DType::kBFloat16;
  if (s == "float32" || s == "fp32" || s == "float") return DType::kFloat32;
  if (s == "float64" || s == "fp64" || s == "double") return DType::kFloat64;
  return std::nullopt;
}

int mantissa_bits(DType t) {
  switch (t) {
    case DType::kFloat16:
      return 10;
    case DType::kBFloat16:
      return 7;
    case DType::kFloat32:
      return 23;
    default:
      return 52;
  }
}

int min_normal_exponent(DType t) {
  switch (t) {
    case DType::kFloat16:
      return -14;
    case DType::kBFloat16:
    case DType::kFloat32:
      return -126;
    default:
      return -1022;
  }
}

double largest_finite(DType t) {
  switch (t) {
    case DType::kFloat16:
      return 65504.0;
    case DType::kBFloat16:
      return 3.3895313892515355e38;
    case DType::kFloat32:
      return 3.4028234663852886e38;
    default:
      return 1.7976931348623157e308;
  }
}

double machine_epsilon(DType t) { return std::ldexp(1.0, -mantissa_bits(t)); }

double unit_roundoff(DType t) { return std::ldexp(1.0, -mantissa_bits(t) - 1); }

}  // namespace skillrt::apic
