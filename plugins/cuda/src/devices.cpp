#include "devices.hpp"

#include "driver.hpp"

#include <tileops/sdk/plugin.hpp>

#include <array>
#include <atomic>
#include <mutex>

namespace tileops::cuda {
namespace {

constexpr int kMaxDevices = 64;
std::array<std::atomic<const DeviceInfo*>, kMaxDevices> g_devices{};
std::mutex g_setup;

int attribute(const Driver& d, CUdevice dev, CUdevice_attribute what, const char* name) {
  int v = 0;
  check(d.cuDeviceGetAttribute(&v, what, dev), std::string("cuDeviceGetAttribute(") + name + ")");
  return v;
}

// An attribute that only tunes kernels: 0 where the driver does not answer.
int64_t tuning_attribute(const Driver& d, CUdevice dev, CUdevice_attribute what) {
  int v = 0;
  return d.cuDeviceGetAttribute(&v, what, dev) == CUDA_SUCCESS ? v : 0;
}

const DeviceInfo* set_up(int index) {
  const Driver& d = driver();
  auto* info = new DeviceInfo();  // lives for the process: kernels and runtimes point at it
  info->index = index;
  check(d.cuDeviceGet(&info->device, index), "cuDeviceGet(" + std::to_string(index) + ")");
  check(d.cuDevicePrimaryCtxRetain(&info->context, info->device), "retaining the primary context of cuda:" + std::to_string(index));
  info->arch = 10 * attribute(d, info->device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "major") +
               attribute(d, info->device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "minor");
  info->sm_count = attribute(d, info->device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "sm count");
  info->smem_optin = attribute(d, info->device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "smem opt-in");
  info->l2_bytes = attribute(d, info->device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 size");
  // Double data rate: two transfers of the bus's width a memory clock (kHz).
  info->dram_bytes_per_s = tuning_attribute(d, info->device, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) * 1000 * 2 *
                           tuning_attribute(d, info->device, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH) / 8;
  char name[256] = {};
  check(d.cuDeviceGetName(name, sizeof name - 1, info->device), "cuDeviceGetName");
  info->name = name;
  // Stream-ordered allocation is cheap only if the pool keeps freed memory: by default it
  // returns it to the system at every synchronisation and the next allocation maps again.
  CUmemoryPool pool = nullptr;
  check(d.cuDeviceGetDefaultMemPool(&pool, info->device), "cuDeviceGetDefaultMemPool");
  cuuint64_t keep_all = ~cuuint64_t(0);
  check(d.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_all),
        "raising the release threshold of the default memory pool");
  return info;
}

}  // namespace

int device_count() {
  // Asked on every tensor allocation; the devices a process sees do not change.
  static const int count = [] {
    const Driver* d = driver_or_null(nullptr);
    if (!d || d->init_result != CUDA_SUCCESS) return 0;
    int n = 0;
    return d->cuDeviceGetCount(&n) == CUDA_SUCCESS ? n : 0;
  }();
  return count;
}

const DeviceInfo& device_info(int index) {
  if (index < 0) index = 0;
  if (index < kMaxDevices)
    if (const DeviceInfo* info = g_devices[size_t(index)].load(std::memory_order_acquire)) return *info;
  const int count = device_count();
  if (index >= count) {
    std::string why;
    if (!driver_or_null(&why)) sdk::fail(TILEOPS_ERR_DEVICE, why);
    driver();  // reports a failed cuInit
    sdk::invalid("cuda:" + std::to_string(index) + " does not exist: the driver reports " +
                 std::to_string(count) + " CUDA device(s)");
  }
  if (index >= kMaxDevices) sdk::unsupported("cuda:" + std::to_string(index) + ": the plugin handles at most 64 devices");
  std::lock_guard lock(g_setup);
  auto& slot = g_devices[size_t(index)];
  if (const DeviceInfo* info = slot.load(std::memory_order_acquire)) return *info;
  const DeviceInfo* info = set_up(index);
  slot.store(info, std::memory_order_release);
  return *info;
}

void make_current(const DeviceInfo& info) {
  const Driver& d = driver();
  CUcontext current = nullptr;
  if (d.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == info.context) return;
  check(d.cuCtxSetCurrent(info.context), "making cuda:" + std::to_string(info.index) + " current");
}

}  // namespace tileops::cuda
