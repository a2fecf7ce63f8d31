#pragma once
// The version of the libtileops this process runs, which may be newer than the headers
// an application was built with, and the plugin ABI it speaks.
#include <cstdint>

namespace tileops {

// "major.minor.patch".
const char* version_string();
// TILEOPS_ABI_VERSION of the runtime's build, (major << 16) | minor: it loads the
// plugins built against the same major.
uint32_t abi_version();

}  // namespace tileops
