#pragma once
// The host's built-in device runtime for device type "cpu": aligned host memory,
// memcpy, and streams that are only tokens (work on the CPU is synchronous).
#include <tileops/abi.h>

namespace tileops::detail {
tileops_device_runtime cpu_device_runtime();
}  // namespace tileops::detail
