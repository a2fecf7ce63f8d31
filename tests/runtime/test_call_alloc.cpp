// A memo-hit call allocates nothing but its outputs: one heap block per output
// tensor (its storage record; the memory itself comes from the device runtime).
#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

#include "inert_device.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {
std::atomic<long> allocations{0};
}  // namespace

void* operator new(size_t n) {
  ++allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

using namespace tileops;

namespace {

tileops_status entry(const tileops_host_api* host, tileops_registrar* reg, tileops_plugin_info*, tileops_error* err) {
  const tileops_device_runtime rt = testing::inert_runtime();
  if (host->register_device_runtime(reg, "allocdev", &rt, err)) return TILEOPS_ERR_INTERNAL;
  auto detect = [](void*, const tileops_device* d) -> int32_t { return std::strcmp(d->type, "allocdev") == 0; };
  if (host->register_detector(reg, "alloccount", detect, nullptr, err)) return TILEOPS_ERR_INTERNAL;
  auto build = [](void*, const char*, const tileops_tensor_spec* const*, size_t, const tileops_param*, size_t,
                  tileops_kernel* out, tileops_error*) -> tileops_status {
    out->launch = [](void*, const tileops_tensor* const*, size_t, const tileops_tensor* const*, size_t, void*,
                     tileops_error*) -> tileops_status { return TILEOPS_OK; };
    return TILEOPS_OK;
  };
  for (const char* op : {"RMSNormFwdOp", "GemmFwdOp", "FusedAddRMSNormFwdOp"})
    if (host->register_kernel_builder(reg, op, "alloccount", build, nullptr, err)) return TILEOPS_ERR_INTERNAL;
  return TILEOPS_OK;
}

long allocations_per_hit(Op& op, std::span<const Tensor> inputs, size_t n_outputs) {
  std::vector<Tensor> outputs(n_outputs);
  op.call(inputs, outputs);  // the miss: builds and memoises
  for (auto& t : outputs) t = Tensor();
  const long before = allocations;
  op.call(inputs, outputs);
  return allocations - before;
}

}  // namespace

TEST_CASE("a memo hit allocates one block per new output and nothing else") {
  REQUIRE(load_plugin_entry("alloccount", entry));
  Device dev("allocdev", 0);
  {
    Op op("RMSNormFwdOp", {{"normalized_shape", ints({4096})}});
    Tensor in[] = {Tensor::empty({16, 4096}, dtypes::float16, dev), Tensor::empty({4096}, dtypes::float16, dev)};
    CHECK(allocations_per_hit(op, in, 1) == 1);
  }
  {
    Op op("GemmFwdOp", {{"trans_b", true}});
    Tensor in[] = {Tensor::empty({8, 256}, dtypes::bfloat16, dev), Tensor::empty({512, 256}, dtypes::bfloat16, dev)};
    CHECK(allocations_per_hit(op, in, 1) == 1);
  }
  {
    // residual_out aliases residual: only y is new.
    Op op("FusedAddRMSNormFwdOp", {{"normalized_shape", ints({64})}});
    Tensor in[] = {Tensor::empty({4, 64}, dtypes::float32, dev), Tensor::empty({4, 64}, dtypes::float32, dev)};
    CHECK(allocations_per_hit(op, in, 2) == 1);
  }
}
