// A program of its own: a non-template kernel is compiled into every program whose
// translation unit includes it, and zero_words took a norm program's build 20% longer
// (NVVM and ptxas) when norm.cuh included it.
#pragma once
#include "common.cuh"

namespace tileops_cuda {

// Zeroes the words a kernel's CTAs meet in (a chained scan's flags, norm_queue's and
// norm_grid's counters). That kernel is launched right after as its programmatic dependent: it
// starts at once and waits (pdl_wait) only before it first touches the words.
__global__ void __launch_bounds__(256) zero_words(const ZeroParams p) {
  pdl_launch_dependents();
  u32* words = static_cast<u32*>(p.words);
  for (i64 i = blockIdx.x * i64(blockDim.x) + threadIdx.x; i < p.count; i += i64(gridDim.x) * blockDim.x) words[i] = 0;
}

}  // namespace tileops_cuda
