// The host cost of a memo-hit call: checks + empty test + memo lookup + output
// allocation + launch of a kernel that does nothing, against a direct call of the
// same no-op launch function. Device "noopdev" allocates from a ring of preallocated
// buffers, so the numbers are the runtime's, not malloc's.
#include <tileops/tileops.h>
#include <tileops/tileops.hpp>

#include <benchmark/benchmark.h>

#include <cstring>

using namespace tileops;

namespace {

alignas(64) char ring[8][1 << 16];
int next_slot = 0;

tileops_device_runtime ring_runtime() {
  tileops_device_runtime rt{};
  rt.struct_size = sizeof rt;
  rt.device_count = [](void*) -> int32_t { return 1; };
  rt.alloc = [](void*, const tileops_device*, size_t, void*, void** p, tileops_error*) -> tileops_status {
    *p = ring[next_slot++ & 7];
    return TILEOPS_OK;
  };
  rt.free = [](void*, const tileops_device*, void*, void*) {};
  rt.copy = [](void*, void* d, const tileops_device*, const void* s, const tileops_device*, size_t n, void*,
               tileops_error*) -> tileops_status {
    std::memmove(d, s, n);
    return TILEOPS_OK;
  };
  rt.synchronize = [](void*, const tileops_device*, void*, tileops_error*) -> tileops_status { return TILEOPS_OK; };
  return rt;
}

tileops_status noop_launch(void*, const tileops_tensor* const*, size_t, const tileops_tensor* const*, size_t, void*,
                           tileops_error*) {
  benchmark::ClobberMemory();
  return TILEOPS_OK;
}

tileops_status entry(const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info* info,
                     tileops_error* err) {
  info->name = "noop";
  auto rt = ring_runtime();
  if (host->register_device_runtime(reg, "noopdev", &rt, err)) return TILEOPS_ERR_INTERNAL;
  auto detect = [](void*, const tileops_device* d) -> int32_t { return std::strcmp(d->type, "noopdev") == 0; };
  if (host->register_detector(reg, "noop", detect, nullptr, err)) return TILEOPS_ERR_INTERNAL;
  auto build = [](void*, const char*, const tileops_tensor_spec* const*, size_t, const tileops_param*, size_t,
                  tileops_kernel* out, tileops_error*) -> tileops_status {
    out->launch = noop_launch;
    return TILEOPS_OK;
  };
  for (const char* op : {"RMSNormFwdOp", "GemmFwdOp"})
    if (host->register_kernel_builder(reg, op, "noop", build, nullptr, err)) return TILEOPS_ERR_INTERNAL;
  return TILEOPS_OK;
}

const bool registered = [] {
  load_plugin_entry("noop", entry);
  return true;
}();

void BM_direct_noop_launch(benchmark::State& state) {
  tileops_tensor in{}, out{};
  const tileops_tensor* ins[1] = {&in};
  const tileops_tensor* outs[1] = {&out};
  auto* volatile fn = &noop_launch;
  for (auto _ : state) benchmark::DoNotOptimize(fn(nullptr, ins, 1, outs, 1, nullptr, nullptr));
}
BENCHMARK(BM_direct_noop_launch);

// Calls `op` on `inputs` again and again: every call after the first is a memo hit.
void run_memo_hits(benchmark::State& state, Op& op, std::span<const Tensor> inputs) {
  Tensor outputs[1];
  op.call(inputs, outputs);
  for (auto _ : state) {
    outputs[0] = Tensor();
    op.call(inputs, outputs);
    benchmark::DoNotOptimize(outputs[0].data());
  }
}

void BM_memo_hit_rms_norm(benchmark::State& state) {
  Device dev("noopdev", 0);
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({4096})}});
  Tensor inputs[] = {Tensor::empty({16, 4096}, dtypes::float16, dev), Tensor::empty({4096}, dtypes::float16, dev)};
  run_memo_hits(state, op, inputs);
}
BENCHMARK(BM_memo_hit_rms_norm);

void BM_memo_hit_gemm(benchmark::State& state) {
  Device dev("noopdev", 0);
  Op op("GemmFwdOp", {{"trans_b", true}});
  Tensor inputs[] = {Tensor::empty({16, 4096}, dtypes::bfloat16, dev), Tensor::empty({14336, 4096}, dtypes::bfloat16, dev)};
  run_memo_hits(state, op, inputs);
}
BENCHMARK(BM_memo_hit_gemm);

// The same RMSNorm memo hit through the C API: handles in, a new output handle out,
// released each call as a C caller would.
void BM_capi_memo_hit_rms_norm(benchmark::State& state) {
  const tileops_device dev{"noopdev", 0};
  const int64_t shape_x[2] = {16, 4096}, shape_w[1] = {4096}, normalized[1] = {4096};
  tileops_param param{};
  param.name = "normalized_shape";
  param.kind = TILEOPS_PARAM_INT_LIST;
  param.u.ints = {normalized, 1};
  tileops_op* op = nullptr;
  tileops_array* inputs[2] = {};
  if (tileops_op_create("RMSNormFwdOp", &param, 1, nullptr, &op) != TILEOPS_OK ||
      tileops_array_empty(dev, dtypes::float16.to_c(), 2, shape_x, &inputs[0]) != TILEOPS_OK ||
      tileops_array_empty(dev, dtypes::float16.to_c(), 1, shape_w, &inputs[1]) != TILEOPS_OK) {
    state.SkipWithError(tileops_last_error());
    return;
  }
  for (auto _ : state) {
    tileops_array* outputs[1] = {nullptr};
    tileops_op_call(op, inputs, 2, outputs, 1);
    benchmark::DoNotOptimize(outputs[0]);
    tileops_array_release(outputs[0]);
  }
  tileops_array_release(inputs[0]);
  tileops_array_release(inputs[1]);
  tileops_op_destroy(op);
}
BENCHMARK(BM_capi_memo_hit_rms_norm);

}  // namespace

BENCHMARK_MAIN();
