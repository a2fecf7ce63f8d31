#include "driver.hpp"
#include "ops/common.hpp"

namespace tileops::cuda {

void launch(CUfunction f, const LaunchShape& s, void* stream, const void* params) {
  const Driver& d = driver();
  void* args[] = {const_cast<void*>(params)};
  CUresult r;
  if (s.cluster <= 1) {
    r = d.cuLaunchKernel(f, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2], 0,
                         static_cast<CUstream>(stream), args, nullptr);
  } else {
    CUlaunchAttribute attr{};
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = s.cluster;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    CUlaunchConfig config{};
    config.gridDimX = s.grid[0];
    config.gridDimY = s.grid[1];
    config.gridDimZ = s.grid[2];
    config.blockDimX = s.block[0];
    config.blockDimY = s.block[1];
    config.blockDimZ = s.block[2];
    config.hStream = static_cast<CUstream>(stream);
    config.attrs = &attr;
    config.numAttrs = 1;
    r = d.cuLaunchKernelEx(&config, f, args, nullptr);
  }
  check(r, "launching a kernel");
}

int occupancy(CUfunction f, int block) {
  int n = 0;
  check(driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, block, 0), "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return n > 0 ? n : 1;
}

unsigned grid_for(int64_t work, int64_t per_cta, const DeviceInfo& device, int per_sm) {
  const int64_t wanted = ceil_div(work, per_cta);
  const int64_t most = int64_t(device.sm_count) * per_sm;
  return unsigned(clamp(wanted < most ? wanted : most, 1, 0x7fffffff));
}

}  // namespace tileops::cuda
