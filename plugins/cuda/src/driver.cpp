#include "driver.hpp"

#include <tileops/cuda/driver_probe.hpp>
#include <tileops/sdk/plugin.hpp>

#include <dlfcn.h>


namespace tileops::cuda {
namespace {

struct Loaded {
  Driver driver;
  std::string failure;  // empty when the driver loaded
};

const Loaded& loaded() {
  static const Loaded* instance = [] {
    auto* out = new Loaded();  // lives for the process, like the library it points into
    const LibraryProbe probe = open_first(kDriverSonames);
    if (!probe.handle) {
      out->failure = no_driver_message(probe);
      return out;
    }
    using GetProc = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
    auto get = reinterpret_cast<GetProc>(dlsym(probe.handle, "cuGetProcAddress_v2"));
    if (!get) {
      out->failure = "no CUDA driver: " + probe.soname +
                     " has no cuGetProcAddress_v2 (a driver for CUDA 12 or newer is needed)";
      return out;
    }
    Driver& d = out->driver;
#define TILEOPS_CUDA_RESOLVE(name)                                                          \
  if (out->failure.empty()) {                                                               \
    void* fn = nullptr;                                                                     \
    CUdriverProcAddressQueryResult found{};                                                 \
    if (get(#name, &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found) != CUDA_SUCCESS || !fn) \
      out->failure = "no CUDA driver: " + probe.soname + " lacks " #name " for CUDA " +      \
                     std::to_string(CUDA_VERSION / 1000) + "." + std::to_string(CUDA_VERSION % 1000 / 10); \
    d.name = reinterpret_cast<decltype(d.name)>(fn);                                        \
  }
    TILEOPS_CUDA_DRIVER_FUNCTIONS(TILEOPS_CUDA_RESOLVE)
#undef TILEOPS_CUDA_RESOLVE
    if (out->failure.empty()) d.init_result = d.cuInit(0);
    return out;
  }();
  return *instance;
}

}  // namespace

const Driver* driver_or_null(std::string* why) {
  const Loaded& l = loaded();
  if (!l.failure.empty()) {
    if (why) *why = l.failure;
    return nullptr;
  }
  return &l.driver;
}

std::atomic<const Driver*> detail::usable_driver{nullptr};

const Driver& detail::load_driver() {
  std::string why;
  const Driver* d = driver_or_null(&why);
  if (!d) sdk::fail(TILEOPS_ERR_DEVICE, why);
  if (d->init_result != CUDA_SUCCESS) sdk::fail(TILEOPS_ERR_DEVICE, "cuInit failed: " + error_text(d->init_result));
  usable_driver.store(d, std::memory_order_release);
  return *d;
}

std::string error_text(CUresult result) {
  const Driver* d = driver_or_null(nullptr);
  const char* name = nullptr;
  const char* text = nullptr;
  if (d) {
    d->cuGetErrorName(result, &name);
    d->cuGetErrorString(result, &text);
  }
  return std::string(name ? name : "CUresult " + std::to_string(int(result))) + (text ? " (" + std::string(text) + ")" : "");
}

void check(CUresult result, std::string_view what) {
  if (result == CUDA_SUCCESS) return;
  sdk::fail(result == CUDA_ERROR_OUT_OF_MEMORY ? TILEOPS_ERR_OUT_OF_MEMORY : TILEOPS_ERR_DEVICE,
            std::string(what) + ": " + error_text(result));
}

}  // namespace tileops::cuda
