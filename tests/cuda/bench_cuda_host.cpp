// The CUDA plugin's host cost on a machine without a GPU: a memo-hit call over the fake
// driver (fake_driver/, whose launch only counts), against a raw launch of the same
// fake. The difference is what the runtime and the plugin add to a launch: the checks,
// the memo, the output's allocation and release through the caching allocator, the
// launch's parameters and the driver calls around it. The driver's own cost (on a GPU
// host, about 3-4 us a launch) is not in it. Run with the fake first on the path:
//   LD_LIBRARY_PATH=build/tests/cuda/fake_driver build/bin/bench_cuda_host
#include "fake_driver/fake_cuda.h"

#include <tileops/tileops.hpp>

#include <benchmark/benchmark.h>
#include <cuda.h>
#include <dlfcn.h>

#include <optional>

using namespace tileops;

namespace {

const Device kCuda0("cuda", 0);

// The fake driver the plugin opened, or nullptr (after SkipWithError) when it is not one.
void* fake_driver(benchmark::State& state) {
  load_plugins();
  try {
    Tensor::empty({1}, dtypes::float32, kCuda0);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return nullptr;
  }
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib || !dlsym(lib, "fake_cuda_read_counts")) {
    state.SkipWithError("the libcuda.so.1 loaded is not the fake driver: put its folder on LD_LIBRARY_PATH");
    return nullptr;
  }
  return lib;
}

void BM_fake_raw_launch(benchmark::State& state) {
  void* lib = fake_driver(state);
  if (!lib) return;
  auto launch = reinterpret_cast<decltype(&::cuLaunchKernel)>(dlsym(lib, "cuLaunchKernel"));
  int params = 0;
  void* args[] = {&params};
  for (auto _ : state)
    benchmark::DoNotOptimize(launch(nullptr, 1, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
}
BENCHMARK(BM_fake_raw_launch);

// RMSNorm [1, 4096] bf16, as bench_cuda's host-cost row on the GPU machine: on the
// default stream (created_stream:0) or, as there, on a stream of its own (1).
void BM_cuda_memo_hit_rms_norm(benchmark::State& state) {
  if (!fake_driver(state)) return;
  std::optional<Stream> stream;
  std::optional<StreamGuard> guard;
  if (state.range(0)) guard.emplace(kCuda0, stream.emplace(kCuda0).handle());
  Op rms("RMSNormFwdOp", {{"normalized_shape", ints({4096})}});
  Tensor inputs[] = {Tensor::empty({1, 4096}, dtypes::bfloat16, kCuda0), Tensor::empty({4096}, dtypes::bfloat16, kCuda0)};
  Tensor outputs[1];
  rms.call(inputs, outputs);  // builds the kernel
  for (auto _ : state) {
    outputs[0] = Tensor();
    rms.call(inputs, outputs);
    benchmark::DoNotOptimize(outputs[0].data());
  }
}
BENCHMARK(BM_cuda_memo_hit_rms_norm)->ArgName("created_stream")->Arg(0)->Arg(1);

// The output's share: a block from the caching allocator and back.
void BM_cuda_alloc_release(benchmark::State& state) {
  if (!fake_driver(state)) return;
  for (auto _ : state) benchmark::DoNotOptimize(Tensor::empty({1, 4096}, dtypes::bfloat16, kCuda0).data());
}
BENCHMARK(BM_cuda_alloc_release);

}  // namespace

BENCHMARK_MAIN();
