#pragma once
// The CUDA driver API, opened with dlopen at first need (the plugin never links
// libcuda, so it loads on machines without a driver). Entry points are resolved with
// cuGetProcAddress for the API version of the headers we build against, so a newer
// driver hands us the versions these prototypes describe.
#include <cuda.h>

#include <atomic>
#include <string>
#include <string_view>

namespace tileops::cuda {

#define TILEOPS_CUDA_DRIVER_FUNCTIONS(X)                                                     \
  X(cuInit)                                                                                  \
  X(cuGetErrorName)                                                                          \
  X(cuGetErrorString)                                                                        \
  X(cuDeviceGetCount)                                                                        \
  X(cuDeviceGet)                                                                             \
  X(cuDeviceGetAttribute)                                                                    \
  X(cuDeviceGetName)                                                                         \
  X(cuDevicePrimaryCtxRetain)                                                                \
  X(cuCtxGetCurrent)                                                                         \
  X(cuCtxSetCurrent)                                                                         \
  X(cuDeviceGetDefaultMemPool)                                                               \
  X(cuMemPoolSetAttribute)                                                                   \
  X(cuMemAlloc)                                                                              \
  X(cuMemsetD32)                                                                             \
  X(cuMemAllocAsync)                                                                         \
  X(cuMemFreeAsync)                                                                          \
  X(cuMemHostAlloc)                                                                          \
  X(cuMemHostGetDevicePointer)                                                               \
  X(cuMemcpyHtoDAsync)                                                                       \
  X(cuMemcpyDtoHAsync)                                                                       \
  X(cuMemcpyDtoDAsync)                                                                       \
  X(cuMemcpyPeerAsync)                                                                       \
  X(cuMemcpy2DAsync)                                                                         \
  X(cuStreamCreate)                                                                          \
  X(cuStreamDestroy)                                                                         \
  X(cuStreamSynchronize)                                                                     \
  X(cuModuleLoadData)                                                                        \
  X(cuModuleGetFunction)                                                                     \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                                             \
  X(cuOccupancyMaxActiveClusters)                                                            \
  X(cuFuncGetAttribute)                                                                      \
  X(cuFuncSetAttribute)                                                                      \
  X(cuStreamIsCapturing)                                                                     \
  X(cuLaunchKernel)                                                                          \
  X(cuLaunchKernelEx)

struct Driver {
#define TILEOPS_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
  TILEOPS_CUDA_DRIVER_FUNCTIONS(TILEOPS_CUDA_DECLARE)
#undef TILEOPS_CUDA_DECLARE
  CUresult init_result = CUDA_SUCCESS;  // of cuInit(0): no device is not an error here
};

// The driver, or nullptr with the reason in `why` ("no CUDA driver: <dlerror>").
const Driver* driver_or_null(std::string* why);

namespace detail {
// Set once the driver has loaded and initialised (it never changes afterwards).
extern std::atomic<const Driver*> usable_driver;
// driver()'s first answer: the checks, and the failure with its reason.
const Driver& load_driver();
}  // namespace detail

// The driver with cuInit succeeded; throws sdk::Failure (TILEOPS_ERR_DEVICE) otherwise.
// Inline: every allocation, launch and release asks for it, some twice.
inline const Driver& driver() {
  if (const Driver* d = detail::usable_driver.load(std::memory_order_acquire)) return *d;
  return detail::load_driver();
}

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
std::string error_text(CUresult result);
// Throws sdk::Failure for a failed call: TILEOPS_ERR_OUT_OF_MEMORY for out-of-memory,
// TILEOPS_ERR_DEVICE otherwise, message "<what>: <error_text>".
void check(CUresult result, std::string_view what);

}  // namespace tileops::cuda
