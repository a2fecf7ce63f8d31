#include "cuda_driver.hpp"

#include <tileops/cuda/driver_probe.hpp>
#include <tileops/errors.hpp>

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace tileops::bench {
namespace {

struct Loaded {
  CudaDriver driver;
  std::string failure;  // empty when every entry point resolved and cuInit succeeded
};

Loaded load() {
  Loaded out;
  const cuda::LibraryProbe probe = cuda::open_first(cuda::kDriverSonames);
  if (!probe.handle) {
    out.failure = cuda::no_driver_message(probe);
    return out;
  }
  // Entry points by API version, as the plugin resolves them: a plain dlsym would give
  // the oldest ABI of functions that gained a _v2.
  using GetProc = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto get = reinterpret_cast<GetProc>(dlsym(probe.handle, "cuGetProcAddress_v2"));
  if (!get) {
    out.failure = probe.soname + " has no cuGetProcAddress_v2 (a driver for CUDA 12 or newer is needed)";
    return out;
  }
  auto resolve = [&](const char* name, auto& fn) {
    void* p = nullptr;
    CUdriverProcAddressQueryResult found{};
    if (get(name, &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found) != CUDA_SUCCESS || !p) {
      if (out.failure.empty()) out.failure = probe.soname + " lacks " + name;
      return;
    }
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
  };
#define TILEOPS_BENCH_DRIVER_RESOLVE(name) resolve(#name, out.driver.name);
  TILEOPS_BENCH_DRIVER_FUNCTIONS(TILEOPS_BENCH_DRIVER_RESOLVE)
#undef TILEOPS_BENCH_DRIVER_RESOLVE
  if (out.failure.empty()) {
    const CUresult init = out.driver.cuInit(0);
    if (init != CUDA_SUCCESS) {
      const char* name = nullptr;
      out.driver.cuGetErrorName(init, &name);
      out.failure = "cuInit failed: " + std::string(name ? name : std::to_string(int(init)));
    }
  }
  return out;
}

}  // namespace

void CudaDriver::check(CUresult result, std::string_view what) const {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(result, &name);
  throw BackendError(std::string(what) + " failed: " + (name ? name : "CUresult " + std::to_string(int(result))));
}

const CudaDriver& cuda_driver() {
  static const Loaded loaded = load();
  if (!loaded.failure.empty()) throw BackendError("cannot time on CUDA: " + loaded.failure);
  return loaded.driver;
}

}  // namespace tileops::bench
