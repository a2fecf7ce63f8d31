#include "value_errors.hpp"

#include "driver.hpp"

#include <tileops/sdk/plugin.hpp>

#include <array>
#include <atomic>
#include <mutex>

namespace tileops::cuda {
namespace {

struct Record {
  tileops_cuda::ValueErrorSlot slot;  // the addresses kernels use
  volatile tileops_cuda::ValueErrorRecord* host;  // the same record, as the host sees it
};

constexpr int kMaxDevices = 64;
std::array<std::atomic<const Record*>, kMaxDevices> g_records{};
std::mutex g_mutex;  // creating a record, and consuming a report

std::string describe(int code, long long index, long long value, long long bound, int device) {
  std::string what;
  if (code == TILEOPS_CUDA_ERROR_POSITION)
    what = "RoPEFwdOp: positions.flatten()[" + std::to_string(index) + "] = " + std::to_string(value) +
           " is outside [0, " + std::to_string(bound) + "), the rows of cos_sin_cache";
  else
    what = "a kernel reported value error " + std::to_string(code) + " at index " + std::to_string(index) +
           " (value " + std::to_string(value) + ", bound " + std::to_string(bound) + ")";
  return what + " (found by a kernel on cuda:" + std::to_string(device) +
         "; reported at the next synchronize or launch there)";
}

}  // namespace

tileops_cuda::ValueErrorSlot value_error_slot(const DeviceInfo& device) {
  auto& atom = g_records[size_t(device.index)];
  if (const Record* r = atom.load(std::memory_order_acquire)) return r->slot;
  std::lock_guard lock(g_mutex);
  if (const Record* r = atom.load(std::memory_order_acquire)) return r->slot;
  const Driver& d = driver();
  void* host = nullptr;
  check(d.cuMemHostAlloc(&host, sizeof(tileops_cuda::ValueErrorRecord),
                         CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
        "allocating the value-error record");
  *static_cast<tileops_cuda::ValueErrorRecord*>(host) = {};
  CUdeviceptr mapped = 0, claim = 0;
  check(d.cuMemHostGetDevicePointer(&mapped, host, 0), "mapping the value-error record");
  check(d.cuMemAlloc(&claim, sizeof(unsigned)), "allocating the value-error claim word");
  check(d.cuMemsetD32(claim, 0, 1), "clearing the value-error claim word");
  // Kept for the process: captured graphs hold these addresses.
  auto* r = new Record{{reinterpret_cast<tileops_cuda::ValueErrorRecord*>(mapped), reinterpret_cast<unsigned*>(claim)},
                       static_cast<tileops_cuda::ValueErrorRecord*>(host)};
  atom.store(r, std::memory_order_release);
  return r->slot;
}

void raise_pending_value_error(int index) {
  if (index < 0) index = 0;
  if (index >= kMaxDevices) return;
  const Record* r = g_records[size_t(index)].load(std::memory_order_acquire);
  if (!r || r->host->raised != r->host->epoch + 1) return;
  int code;
  long long at, value, bound;
  {
    std::lock_guard lock(g_mutex);
    const unsigned epoch = r->host->epoch;
    // An acquire load: the kernel wrote the details before `raised`. (Not a fence, which
    // ThreadSanitizer cannot model.)
    if (__atomic_load_n(&r->host->raised, __ATOMIC_ACQUIRE) != epoch + 1) return;  // another thread consumed it
    code = r->host->code;
    at = r->host->index;
    value = r->host->value;
    bound = r->host->bound;
    r->host->epoch = epoch + 1;
  }
  sdk::invalid(describe(code, at, value, bound, index));
}

}  // namespace tileops::cuda
