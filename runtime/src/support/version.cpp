#include <tileops/abi.h>
#include <tileops/version.hpp>

// TILEOPS_VERSION_* come from the project's version in CMakeLists.txt.
#define TILEOPS_STRINGIFY_(x) #x
#define TILEOPS_STRINGIFY(x) TILEOPS_STRINGIFY_(x)

namespace tileops {

const char* version_string() {
  return TILEOPS_STRINGIFY(TILEOPS_VERSION_MAJOR) "." TILEOPS_STRINGIFY(TILEOPS_VERSION_MINOR) "." TILEOPS_STRINGIFY(
      TILEOPS_VERSION_PATCH);
}

uint32_t abi_version() { return TILEOPS_ABI_VERSION; }

}  // namespace tileops
