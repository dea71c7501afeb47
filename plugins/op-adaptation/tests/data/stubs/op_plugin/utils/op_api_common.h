// Stand-in for op-plugin's op_api_common.h and the torch types it pulls in: just enough
// declarations for `g++ -fsyntax-only` on generated kernels. Not torch; nothing here runs.
#ifndef OPA_STUB_OP_API_COMMON_H_
#define OPA_STUB_OP_API_COMMON_H_

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

// The stand-in ArrayRef keeps a pointer into an initializer list, as c10's does; the warning
// about that is the stub's, not the generated kernel's.
#pragma GCC diagnostic ignored "-Winit-list-lifetime"

namespace c10 {
template <class T>
using optional = std::optional<T>;
using string_view = std::string_view;
enum class ScalarType { Byte, Char, Short, Int, Long, Half, Float, Double, Bool, BFloat16 };
enum class Layout { Strided };
enum class MemoryFormat { Contiguous };
class SymInt {
 public:
  SymInt(int64_t v = 0) : v_(v) {}
  int64_t expect_int() const { return v_; }

 private:
  int64_t v_;
};
template <class T>
class ArrayRef {
 public:
  ArrayRef() = default;
  ArrayRef(std::initializer_list<T> l) : data_(l.begin()), size_(l.size()) {}
  ArrayRef(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}
  size_t size() const { return size_; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};
using IntArrayRef = ArrayRef<int64_t>;
using SymIntArrayRef = ArrayRef<SymInt>;
using OptionalIntArrayRef = std::optional<IntArrayRef>;
using OptionalSymIntArrayRef = std::optional<SymIntArrayRef>;
IntArrayRef asIntArrayRefUnchecked(SymIntArrayRef s);
template <class T>
class List {};
}  // namespace c10

namespace at {
using c10::ArrayRef;
using c10::IntArrayRef;
using c10::Layout;
using c10::MemoryFormat;
using c10::OptionalIntArrayRef;
using c10::ScalarType;
using c10::SymInt;
using c10::SymIntArrayRef;
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
class TensorOptions {
 public:
  TensorOptions dtype(ScalarType) const { return *this; }
};
class Scalar {
 public:
  Scalar(double v = 0) : v_(v) {}

 private:
  double v_;
};
class Generator {};
class Device {};
class Tensor {
 public:
  IntArrayRef sizes() const { return {}; }
  int64_t size(int64_t) const { return 0; }
  int64_t dim() const { return 0; }
  TensorOptions options() const { return {}; }
  ScalarType scalar_type() const { return ScalarType::Float; }
};
using TensorList = ArrayRef<Tensor>;
}  // namespace at

namespace at_npu::native {
class OpPreparation {
 public:
  static at::Tensor apply_tensor_without_format(at::IntArrayRef size, at::TensorOptions options);
  static at::Tensor apply_tensor_without_format(const at::Tensor& like);
  static void check_tensor(std::initializer_list<at::Tensor> inputs, at::Tensor& out,
                           at::ScalarType dtype, at::IntArrayRef size);
};
}  // namespace at_npu::native

namespace opa_stub {
template <class... Args>
void exec(const char*, const Args&...) {}
}  // namespace opa_stub

#define EXEC_NPU_CMD(aclnn_api, ...) ::opa_stub::exec(#aclnn_api, __VA_ARGS__)
#define DO_COMPATIBILITY(aclnn_api, fallback) \
  do {                                        \
    if (false) return fallback;               \
  } while (0)

#endif  // OPA_STUB_OP_API_COMMON_H_
