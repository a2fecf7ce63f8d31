#pragma once
// Maps an ABI status and message onto the C++ exception a caller sees.
#include <tileops/abi.h>

#include <string>

namespace tileops::detail {

// INVALID_ARGUMENT -> ValueError, UNSUPPORTED -> OpNotAvailableError,
// anything else -> BackendError.
[[noreturn]] void throw_status(tileops_status status, const std::string& message);

const char* status_name(tileops_status status);

}  // namespace tileops::detail
