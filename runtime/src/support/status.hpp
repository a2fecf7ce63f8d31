#pragma once
// Maps an ABI status and message onto the C++ exception a caller sees.
#include <tileops/abi.h>

#include <string>

namespace tileops::detail {

// INVALID_ARGUMENT -> ValueError, UNSUPPORTED -> OpNotAvailableError,
// anything else -> BackendError.
[[noreturn]] void throw_status(tileops_status status, const std::string& message);

const char* status_name(tileops_status status);

// Called in a catch block: ": " and the what() of the exception being handled, or
// nothing when it is not a std::exception. For messages that report what a plugin
// threw across the C ABI ("... threw" + thrown_detail()).
std::string thrown_detail();

}  // namespace tileops::detail
