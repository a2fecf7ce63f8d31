// ns per BoundSignature::check on typical ops (not a ctest test: run it by hand).
//   ninja -C build-manifest bench_manifest_check && build-manifest/bin/bench_manifest_check
#include <tileops/manifest.hpp>

#include <benchmark/benchmark.h>

#include <array>

namespace {

using namespace tileops;
using namespace tileops::manifest;

const Manifest& specs() {
  static const Manifest m = Manifest::load_embedded();
  return m;
}

void run(benchmark::State& state, const char* op, const Params& params, std::span<const TensorDesc* const> inputs) {
  auto bound = specs().find(op)->bind(params);
  CallCheck call;
  bound->check(inputs, {}, call);  // warm: sizes the outputs once
  for (auto _ : state) {
    bound->check(inputs, {}, call);
    benchmark::DoNotOptimize(call.outputs().data());
  }
}

const Device kCuda = Device("cuda", 0);

// As a caller that keeps no CallCheck around would do: a fresh one per call.
void BM_RMSNormFreshCallCheck(benchmark::State& state) {
  std::array<int64_t, 2> xs{2048, 4096};
  std::array<int64_t, 1> ws{4096};
  TensorDesc x{kCuda, dtypes::float16, xs}, w{kCuda, dtypes::float16, ws};
  std::array<const TensorDesc*, 2> in{&x, &w};
  auto bound = specs().find("RMSNormFwdOp")->bind({{"normalized_shape", ints({4096})}});
  for (auto _ : state) {
    CallCheck call;
    bound->check(in, {}, call);
    benchmark::DoNotOptimize(call.outputs().data());
  }
}

void BM_RMSNorm(benchmark::State& state) {
  std::array<int64_t, 2> xs{2048, 4096};
  std::array<int64_t, 1> ws{4096};
  TensorDesc x{kCuda, dtypes::float16, xs}, w{kCuda, dtypes::float16, ws};
  std::array<const TensorDesc*, 2> in{&x, &w};
  run(state, "RMSNormFwdOp", {{"normalized_shape", ints({4096})}}, in);
}

void BM_Gemm(benchmark::State& state) {
  std::array<int64_t, 2> as{4096, 4096}, bs{14336, 4096};
  TensorDesc a{kCuda, dtypes::bfloat16, as}, b{kCuda, dtypes::bfloat16, bs};
  std::array<const TensorDesc*, 2> in{&a, &b};
  run(state, "GemmFwdOp", {{"trans_b", ParamValue(true)}}, in);
}

void BM_Softmax(benchmark::State& state) {
  std::array<int64_t, 4> xs{1, 32, 2048, 2048};
  TensorDesc x{kCuda, dtypes::float16, xs};
  std::array<const TensorDesc*, 1> in{&x};
  run(state, "SoftmaxFwdOp", {}, in);
}

void BM_SiluAndMul(benchmark::State& state) {
  std::array<int64_t, 2> xs{4096, 28672};
  TensorDesc x{kCuda, dtypes::bfloat16, xs};
  std::array<const TensorDesc*, 1> in{&x};
  run(state, "SiluAndMulFwdOp", {}, in);
}

void BM_AddBroadcast(benchmark::State& state) {
  std::array<int64_t, 2> as{4096, 4608};
  std::array<int64_t, 1> bs{4608};
  TensorDesc a{kCuda, dtypes::bfloat16, as}, b{kCuda, dtypes::bfloat16, bs};
  std::array<const TensorDesc*, 2> in{&a, &b};
  run(state, "AddFwdOp", {}, in);
}

void BM_SumDim(benchmark::State& state) {
  std::array<int64_t, 3> xs{8, 4096, 4096};
  TensorDesc x{kCuda, dtypes::bfloat16, xs};
  std::array<const TensorDesc*, 1> in{&x};
  run(state, "SumFwdOp", {{"dim", ints({1})}}, in);
}

}  // namespace

BENCHMARK(BM_RMSNorm);
BENCHMARK(BM_RMSNormFreshCallCheck);
BENCHMARK(BM_Gemm);
BENCHMARK(BM_Softmax);
BENCHMARK(BM_SiluAndMul);
BENCHMARK(BM_AddBroadcast);
BENCHMARK(BM_SumDim);
BENCHMARK_MAIN();
