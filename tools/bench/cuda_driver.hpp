#pragma once
// The CUDA driver calls the benchmark makes itself (events, the L2 flush, device facts),
// from libcuda.so.1 opened with dlopen: the CLI links nothing of CUDA, and the plugin's
// own driver table is not reachable from tools.
#include <cuda.h>

#include <string_view>

namespace tileops::bench {

#define TILEOPS_BENCH_DRIVER_FUNCTIONS(X) \
  X(cuInit)                               \
  X(cuDeviceGet)                          \
  X(cuDeviceGetName)                      \
  X(cuDeviceGetAttribute)                 \
  X(cuDriverGetVersion)                   \
  X(cuDevicePrimaryCtxRetain)             \
  X(cuCtxSetCurrent)                      \
  X(cuEventCreate)                        \
  X(cuEventDestroy)                       \
  X(cuEventRecord)                        \
  X(cuEventSynchronize)                   \
  X(cuEventElapsedTime)                   \
  X(cuMemsetD8Async)                      \
  X(cuStreamSynchronize)                  \
  X(cuGetErrorName)

struct CudaDriver {
#define TILEOPS_BENCH_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  TILEOPS_BENCH_DRIVER_FUNCTIONS(TILEOPS_BENCH_DRIVER_MEMBER)
#undef TILEOPS_BENCH_DRIVER_MEMBER

  // Throws BackendError "<what> failed: CUDA_ERROR_..." unless `result` is success.
  void check(CUresult result, std::string_view what) const;
};

// Opened and cuInit'ed once; throws BackendError naming what was missing.
const CudaDriver& cuda_driver();

}  // namespace tileops::bench
