#pragma once
// The CUDA devices the plugin has touched: primary context (retained for the process),
// and the facts kernel selection and launch configuration read. A device is set up on
// first use, never at plugin entry.
#include <cuda.h>

#include <tileops/abi.h>

#include <cstdint>
#include <string>

namespace tileops::cuda {

struct DeviceInfo {
  int index = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  int arch = 0;              // compute capability as major * 10 + minor: 90
  int sm_count = 0;
  int64_t smem_optin = 0;    // the most shared memory one CTA may opt into
  int64_t l2_bytes = 0;      // the L2 cache
  int64_t dram_bytes_per_s = 0;  // device memory's peak rate (0: the driver does not say)
  std::string name;          // "NVIDIA H200"
};

// Devices the driver reports; 0 when there is no driver or no device.
int device_count();
// Sets device `index` up on first use (-1 means 0); throws sdk::Failure when it does not
// exist or the driver fails.
const DeviceInfo& device_info(int index);
inline const DeviceInfo& device_info(const tileops_device& d) { return device_info(d.index); }
// Makes the device's primary context current on this thread (a no-op when it is).
void make_current(const DeviceInfo& info);

}  // namespace tileops::cuda
