// The compare engine: one streaming pass over two tensors computes every metric and the counters
// of every standard; the verdict comes from the standard the caller selects.
#ifndef SKILLRT_API_CONSISTENCY_COMPARE_HPP_
#define SKILLRT_API_CONSISTENCY_COMPARE_HPP_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tensor_reader.hpp"

namespace skillrt::apic {

using Json = nlohmann::json;

struct CompareOptions {
  std::string standard = "torch";  // torch | torch_npu | msprobe | ops | custom
  std::optional<double> rtol;
  std::optional<double> atol;
  bool equal_nan = false;
  bool check_dtype = true;  // as assert_close: differing dtypes fail unless this is false
  size_t top_k = 10;
  // When values differ, a second pass finds elements far off the tensor's own error level
  // (result field `locality`).
  bool localise = true;
  // Called with (elements done, total); returning false stops the pass (cancellation).
  std::function<bool(uint64_t, uint64_t)> progress;
};

// Known standard names; anything else is rejected by validate_options().
bool is_known_standard(const std::string& name);
// Throws std::invalid_argument naming the field when the options cannot be honoured.
void validate_options(const CompareOptions& options);

// Compares two tensors. Unreadable input throws TensorError; a shape or dtype mismatch is a
// result (verdict fail, decided by the shape or dtype check), not an exception.
//
// Result fields: expected/actual {source, format, dtype, storage_dtype, shape}, dtype, count,
// metrics {...}, standards {torch, torch_npu, msprobe, ops}, verdict, standard, decided_by,
// worst [...], nonfinite_positions [...], histogram {...}, profile {...}.
Json compare_tensors(const TensorSpec& expected, const TensorSpec& actual,
                     const CompareOptions& options);

// Every element of a tensor as double, in logical order, with its header; throws TensorError when
// it holds more than max_elements (checks that gather or multiply need the whole tensor).
std::vector<double> read_values(const TensorSpec& spec, TensorHeader* header,
                                uint64_t max_elements);

// JSON has no inf or NaN: such numbers are written as the strings "inf", "-inf", "nan".
Json json_number(double v);
// A shape as Python prints a tuple: (2, 3), (5,), ().
std::string shape_text(const std::vector<int64_t>& shape);

// torch.testing.assert_close default (rtol, atol) for a dtype; (0, 0) for integers and bool.
std::pair<double, double> torch_default_tolerances(DType t);

}  // namespace skillrt::apic

#endif  // SKILLRT_API_CONSISTENCY_COMPARE_HPP_
