#include "driver.hpp"
#include "ops/common.hpp"

namespace tileops::cuda {
namespace {

// cuLaunchKernelEx's description of `s`: its cluster (when more than one CTA) with the
// load-balancing scheduling policy, whether it is cooperative and, with `dependent`,
// programmatic serialization (last), written into `attrs` (room for four). The policy:
// rows held in clusters (one-wave softmax, GroupNorm sweeps) ran 0.5-4.6% faster with
// it on an H100 (34th round of docs/perf/cuda-kernels-h200.md), nothing measurably
// slower.
CUlaunchConfig launch_config(const LaunchShape& s, CUstream stream, bool dependent, CUlaunchAttribute* attrs) {
  unsigned n = 0;
  if (s.cluster > 1) {
    attrs[n] = {};
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[n].value.clusterDim.x = s.cluster;
    attrs[n].value.clusterDim.y = 1;
    attrs[n].value.clusterDim.z = 1;
    ++n;
    attrs[n] = {};
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
    attrs[n].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING;
    ++n;
  }
  if (s.cooperative) {
    attrs[n] = {};
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attrs[n].value.cooperative = 1;
    ++n;
  }
  if (dependent) {
    attrs[n] = {};
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attrs[n].value.programmaticStreamSerializationAllowed = 1;
    ++n;
  }
  CUlaunchConfig config{};
  config.gridDimX = s.grid[0];
  config.gridDimY = s.grid[1];
  config.gridDimZ = s.grid[2];
  config.blockDimX = s.block[0];
  config.blockDimY = s.block[1];
  config.blockDimZ = s.block[2];
  config.sharedMemBytes = s.smem;
  config.hStream = stream;
  config.attrs = attrs;
  config.numAttrs = n;
  return config;
}

}  // namespace

CUresult try_launch(CUfunction f, const LaunchShape& s, void* stream, const void* params) {
  const Driver& d = driver();
  void* args[] = {const_cast<void*>(params)};
  CUresult r;
  if (s.cluster <= 1 && !s.dependent && !s.cooperative) {
    r = d.cuLaunchKernel(f, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2], s.smem,
                         static_cast<CUstream>(stream), args, nullptr);
  } else {
    CUlaunchAttribute attrs[4];
    CUlaunchConfig config = launch_config(s, static_cast<CUstream>(stream), s.dependent, attrs);
    r = d.cuLaunchKernelEx(&config, f, args, nullptr);
    if (r != CUDA_SUCCESS && s.dependent) {
      // A driver or stream that cannot overlap kernels (NOT_SUPPORTED), or this launch
      // with the other attributes: the plain stream order is just as correct (pdl_wait()
      // then returns at once), only later, and a launch that fails for another reason
      // fails again and reports that. The serialization attribute is the last one.
      config.numAttrs -= 1;
      r = d.cuLaunchKernelEx(&config, f, args, nullptr);
    }
  }
  return r;
}

void launch(CUfunction f, const LaunchShape& s, void* stream, const void* params) {
  check(try_launch(f, s, stream, params), "launching a kernel");
}

int occupancy(CUfunction f, int block, size_t smem) {
  int n = 0;
  check(driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, block, smem),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return n > 0 ? n : 1;
}

int resident_clusters(CUfunction f, const LaunchShape& s) {
  CUlaunchAttribute attrs[4];
  const CUlaunchConfig config = launch_config(s, nullptr, false, attrs);
  int n = 0;
  check(driver().cuOccupancyMaxActiveClusters(&n, f, &config), "cuOccupancyMaxActiveClusters");
  return n > 0 ? n : 1;
}

void allow_max_smem(CUfunction f, const DeviceInfo& device) {
  const Driver& d = driver();
  int static_bytes = 0;
  check(d.cuFuncGetAttribute(&static_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f), "cuFuncGetAttribute");
  check(d.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             int(device.smem_optin) - static_bytes),
        "raising a kernel's dynamic shared memory limit");
}

ProgramSpec zero_words_program() { return {"zero_words", {"tileops_cuda::zero_words"}}; }

void zero_words(CUfunction zero, void* words, int64_t count, void* stream) {
  constexpr int kThreads = 256;
  const tileops_cuda::ZeroParams p{words, count};
  LaunchShape s;
  s.grid[0] = unsigned(ceil_div(count, kThreads));
  s.block[0] = kThreads;
  launch(zero, s, stream, &p);
}

unsigned grid_for(int64_t work, int64_t per_cta, const DeviceInfo& device, int per_sm) {
  const int64_t wanted = ceil_div(work, per_cta);
  const int64_t most = int64_t(device.sm_count) * per_sm;
  return unsigned(clamp(wanted < most ? wanted : most, 1, 0x7fffffff));
}

}  // namespace tileops::cuda
