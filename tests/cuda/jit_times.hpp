#pragma once
// NVRTC first-build and disk-cache-hit times of the programs the norm, softmax and
// elementwise kernel types build, for the targets (first build <= 150 ms, hit
// <= 2 ms). Shared by bench_cuda (on the GPU machine, a hit loads the module) and
// bench_cuda_jit (any machine with NVRTC: a hit reads and verifies the entry only).
#include "jit.hpp"

#include <functional>
#include <string>
#include <vector>

namespace tileops::cuda::bench {

struct JitTimes {
  std::string program;              // its first kernel's name expression
  std::vector<double> compiles_ms;  // in the order they ran
  double cache_hit_ms = -1;         // -1 when the second get_cubin did not come from disk
  double sorted(size_t i) const;    // the i-th fastest build
};

// Builds each program `compiles` (at least 1) times from scratch (NVRTC's own cache bypassed), then
// once through a fresh disk cache, timing the hit with `load` (what the caller does with
// a cubin, e.g. cuModuleLoadData) included. Programs whose first kernel contains none of
// `filters` (when any) are left out. Uses and removes a temporary TILEOPS_CACHE_DIR.
std::vector<JitTimes> jit_times(int compiles, const std::vector<std::string>& filters,
                                const std::function<void(const Cubin&)>& load);

// The markdown table of `times` (a "## JIT" section); `hit` names what a hit includes.
std::string jit_table(const std::vector<JitTimes>& times, const std::string& hit);

}  // namespace tileops::cuda::bench
