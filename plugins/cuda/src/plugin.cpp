// The built-in CUDA plugin's entry: registers the "cuda" device runtime and device facts,
// and one in-tree kernel type per op. It touches no driver: that happens when the host
// first asks for a cuda device.
#include "ops/ops.hpp"
#include "runtime.hpp"

#include <tileops/sdk/plugin.hpp>

#ifndef TILEOPS_CUDA_VERSION
#define TILEOPS_CUDA_VERSION "0.0.0"
#endif

TILEOPS_PLUGIN(reg) {
  reg.info("cuda", TILEOPS_CUDA_VERSION, TILEOPS_CUDA_BUILD_ID);
  reg.device_runtime("cuda", tileops::cuda::device_runtime());
  reg.device_facts("cuda", tileops::cuda::read_device_facts, nullptr);
  tileops::cuda::register_all_ops(reg);
}
