#pragma once
// Logging from the plugin: through the host's logger inside a loaded plugin, to stderr
// (warnings and errors only) where the code runs without a host (tests, benchmark).
#include <tileops/abi.h>

#include <string>

namespace tileops::cuda {

void log(int32_t level, const std::string& message);

}  // namespace tileops::cuda
