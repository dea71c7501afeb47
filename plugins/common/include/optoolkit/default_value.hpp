// Argument defaults compared by value, as the schema, a Python signature and a page write them:
// numbers (1e-5 = 0.00001, 1. = 1, 2^63-1 = 2**63-1 = 9223372036854775807), None, booleans,
// quoted strings (and the same text unquoted in prose), lists and tuples element by element,
// names with or without their module (torch.float16 = float16, at::Reduction::Mean = Mean).
#ifndef SKILLRT_OPTOOLKIT_DEFAULT_VALUE_HPP_
#define SKILLRT_OPTOOLKIT_DEFAULT_VALUE_HPP_

#include <string_view>

namespace skillrt::ops {

// `sized_list` > 0 (a schema `int[2]`) lets a scalar stand for a list of that many equal items.
bool same_default_value(std::string_view a, std::string_view b, int sized_list = 0);

}  // namespace skillrt::ops

#endif  // SKILLRT_OPTOOLKIT_DEFAULT_VALUE_HPP_
