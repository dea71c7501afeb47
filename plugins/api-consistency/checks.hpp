// Evidence from the API's own inputs, for the classes an elementwise comparison misjudges: index
// outputs that differ only where values tie, linear-algebra results judged by their residual, and
// elementwise results that follow another formula than the API's.
#ifndef SKILLRT_API_CONSISTENCY_CHECKS_HPP_
#define SKILLRT_API_CONSISTENCY_CHECKS_HPP_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "tensor_reader.hpp"

namespace skillrt::apic {

using Json = nlohmann::json;

// Gathers input values at both sides' indices (torch.gather semantics along `dim`; one dimension
// fewer for argmax-style outputs, a flat index for a 0-d output) and counts differing positions
// whose values are equal (ties) and those whose values differ.
// {differing, ties, not_ties, examples[{index, expected_index, actual_index, expected_value,
// actual_value}], dim}. Throws std::invalid_argument when the shapes do not fit.
Json check_index_ties(const TensorSpec& input, const TensorSpec& expected, const TensorSpec& actual,
                      int64_t dim);

// Residual of both results: inv -> A X - I, solve -> A X - B, pinv -> A X A - A, each relative to
// the norms involved (Frobenius), per batch matrix, the largest kept.
// {kind, n, residual_expected, residual_actual, residual_ratio, condition_estimate, floor}.
// `kind` is inv | solve | pinv; B only for solve.
Json check_residual(const std::string& kind, const TensorSpec& a,
                    const std::optional<TensorSpec>& b, const TensorSpec& expected,
                    const TensorSpec& actual);

// The linear-algebra kind of an API name (inv, solve, pinv), or "" when it has none.
std::string residual_kind(const std::string& api);

// For an elementwise API given its input: does the device follow another formula? Named
// alternatives (gelu's tanh and erf forms, the rsqrt bit trick) are evaluated on the input; any
// API is tested for an error that is a smooth function of the input (neighbours in input order
// have nearly the same relative error), which rounding never is.
// {alternatives[{name, max_error_vs_alternative, matches}], matched, smoothness, systematic,
//  samples}
Json check_formula(const std::string& api, const TensorSpec& input, const TensorSpec& expected,
                   const TensorSpec& actual);

}  // namespace skillrt::apic

#endif  // SKILLRT_API_CONSISTENCY_CHECKS_HPP_
