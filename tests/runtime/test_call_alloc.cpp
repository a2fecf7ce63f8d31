// A memo-hit call allocates nothing but its outputs: one heap block per output
// tensor (its storage record; the memory itself comes from the device runtime). A C API
// call that runs out of host memory anywhere hands out none of its outputs.
#include <tileops/tileops.h>
#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

#include "inert_device.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace {
std::atomic<long> allocations{0};
std::atomic<long> fail_allocation{0};  // the allocation, counted from `allocations`, that fails
}  // namespace

void* operator new(size_t n) {
  if (++allocations == fail_allocation) throw std::bad_alloc();
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

void load_alloccount() {
  static const bool loaded = load_plugin_entry("alloccount", entry);
  REQUIRE(loaded);
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
  load_alloccount();
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

// Every allocation of a memo-hit FusedAddRMSNorm call through the C API, both output
// slots NULL (y new, residual_out the residual's own storage), fails in turn: the call
// either hands out both outputs or leaves both slots NULL. A failed call leaves the op
// to check its next call again (15 allocations), so each failure follows a hit.
TEST_CASE("a C API call that runs out of host memory hands out no output") {
  load_alloccount();
  const tileops_device dev{"allocdev", 0};
  const tileops_dtype f32{TILEOPS_DTYPE_FLOAT, 32, 1};
  const int64_t shape[] = {4, 64}, normalized[] = {64};
  tileops_param param{};
  param.name = "normalized_shape";
  param.kind = TILEOPS_PARAM_INT_LIST;
  param.u.ints = {normalized, 1};
  tileops_op* op = nullptr;
  REQUIRE(tileops_op_create("FusedAddRMSNormFwdOp", &param, 1, nullptr, &op) == TILEOPS_OK);
  tileops_array* in[2] = {nullptr, nullptr};
  for (auto*& a : in) REQUIRE(tileops_array_empty(dev, f32, 2, shape, &a) == TILEOPS_OK);
  const auto call = [&](tileops_array** out) { return tileops_op_call(op, in, 2, out, 2); };
  const auto release = [](tileops_array** out) {
    for (int j = 0; j < 2; ++j) tileops_array_release(out[j]);
  };
  // Allocations of a successful call (after the first, the miss: a memo hit).
  const auto succeed = [&] {
    tileops_array* out[2] = {nullptr, nullptr};
    const long before = allocations;
    REQUIRE(call(out) == TILEOPS_OK);
    REQUIRE(out[0] != nullptr);
    REQUIRE(out[1] != nullptr);
    const long made = allocations - before;
    release(out);
    return made;
  };
  succeed();
  const long per_hit = succeed();
  CHECK(per_hit == 3);  // the output's storage record and the two handles
  for (long k = 1; k <= per_hit; ++k) {
    CAPTURE(k);
    CHECK(succeed() >= per_hit);
    tileops_array* out[2] = {nullptr, nullptr};
    fail_allocation = allocations + k;
    const tileops_status status = call(out);
    fail_allocation = 0;
    CHECK(status == TILEOPS_ERR_OUT_OF_MEMORY);
    CHECK(std::string(tileops_last_error()) == "out of host memory");
    CHECK(out[0] == nullptr);
    CHECK(out[1] == nullptr);
    release(out);
  }
  for (auto* a : in) tileops_array_release(a);
  tileops_op_destroy(op);
}
