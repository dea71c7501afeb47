#include "common/error.hpp"

#include <array>

namespace skillrt {

namespace {
constexpr std::array<std::string_view, 17> kCodeNames = {
    "OK",        "CANCELLED",          "UNKNOWN",         "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS",     "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION", "ABORTED",  "OUT_OF_RANGE",    "UNIMPLEMENTED",    "INTERNAL",
    "UNAVAILABLE", "DATA_LOSS",        "UNAUTHENTICATED"};
}  // namespace

std::string code_name(Code code) {
  const auto n = static_cast<int32_t>(code);
  if (n >= 0 && n < static_cast<int32_t>(kCodeNames.size())) return std::string(kCodeNames[n]);
  return "CODE_" + std::to_string(n);
}

Code code_from_int(int32_t value) {
  if (value >= 0 && value < static_cast<int32_t>(kCodeNames.size())) return static_cast<Code>(value);
  return Code::kUnknown;
}

}  // namespace skillrt
