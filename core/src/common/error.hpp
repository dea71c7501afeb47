// Expected failures are values: Result<T> = std::expected<T, Error>.
#pragma once

#include <skillrt/abi.h>

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

namespace skillrt {

// Same numbers as skillrt_code in abi.h (google.rpc.Code).
enum class Code : int32_t {
  kOk = SKILLRT_OK,
  kCancelled = SKILLRT_CANCELLED,
  kUnknown = SKILLRT_UNKNOWN,
  kInvalidArgument = SKILLRT_INVALID_ARGUMENT,
  kDeadlineExceeded = SKILLRT_DEADLINE_EXCEEDED,
  kNotFound = SKILLRT_NOT_FOUND,
  kAlreadyExists = SKILLRT_ALREADY_EXISTS,
  kPermissionDenied = SKILLRT_PERMISSION_DENIED,
  kResourceExhausted = SKILLRT_RESOURCE_EXHAUSTED,
  kFailedPrecondition = SKILLRT_FAILED_PRECONDITION,
  kAborted = SKILLRT_ABORTED,
  kOutOfRange = SKILLRT_OUT_OF_RANGE,
  kUnimplemented = SKILLRT_UNIMPLEMENTED,
  kInternal = SKILLRT_INTERNAL,
  kUnavailable = SKILLRT_UNAVAILABLE,
  kDataLoss = SKILLRT_DATA_LOSS,
  kUnauthenticated = SKILLRT_UNAUTHENTICATED,
};

// "INVALID_ARGUMENT", ...; "CODE_<n>" for numbers outside the table.
std::string code_name(Code code);
// Maps any int32 (e.g. from a plugin) onto Code; unknown numbers become kUnknown.
Code code_from_int(int32_t value);

struct Error {
  Code code = Code::kUnknown;
  std::string message;
};

template <class T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(Code code, std::string message) {
  return std::unexpected<Error>(Error{code, std::move(message)});
}

}  // namespace skillrt
