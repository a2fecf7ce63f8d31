// The hot path allocates nothing: check() on typical ops, with a reused CallCheck,
// makes no heap allocation (global operator new is counted here).
#include "test_support.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> counting{false};
std::atomic<size_t> allocations{0};
}  // namespace

void* operator new(size_t size) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

using namespace tileops;
using namespace tileops::manifest;
using namespace tileops::manifest::test;

namespace {

// Allocations made by one check() (after a warm-up call that sizes the outputs).
size_t allocations_of_check(const BoundSignature& sig, std::span<const TensorDesc* const> inputs) {
  CallCheck call;
  sig.check(inputs, {}, call);
  allocations = 0;
  counting = true;
  sig.check(inputs, {}, call);
  counting = false;
  return allocations;
}

}  // namespace

TEST_CASE("check() does not allocate for RMSNorm, GEMM, Softmax, SiluAndMul, Add, Sum") {
  Device cuda("cuda", 0);
  std::array<int64_t, 2> x2{2048, 4096}, w1{4096}, b2{14336, 4096};
  std::array<int64_t, 4> x4{1, 32, 2048, 2048};
  std::array<int64_t, 3> x3{8, 4096, 4096};
  TensorDesc x{cuda, dtypes::float16, x2}, w{cuda, dtypes::float16, std::span<const int64_t>(w1.data(), 1)},
      b{cuda, dtypes::float16, b2}, s{cuda, dtypes::float16, x4}, r{cuda, dtypes::float16, x3};
  const TensorDesc* rms_in[] = {&x, &w};
  const TensorDesc* gemm_in[] = {&x, &b};
  const TensorDesc* one_4d[] = {&s};
  const TensorDesc* one_2d[] = {&x};
  const TensorDesc* add_in[] = {&x, &w};
  const TensorDesc* one_3d[] = {&r};
  CHECK(allocations_of_check(*bind_op(real_specs(), "RMSNormFwdOp", {{"normalized_shape", ints({4096})}}), rms_in) == 0);
  CHECK(allocations_of_check(*bind_op(real_specs(), "GemmFwdOp", {{"trans_b", ParamValue(true)}}), gemm_in) == 0);
  CHECK(allocations_of_check(*bind_op(real_specs(), "SoftmaxFwdOp"), one_4d) == 0);
  CHECK(allocations_of_check(*bind_op(real_specs(), "SiluAndMulFwdOp"), one_2d) == 0);
  CHECK(allocations_of_check(*bind_op(real_specs(), "AddFwdOp"), add_in) == 0);
  CHECK(allocations_of_check(*bind_op(real_specs(), "SumFwdOp", {{"dim", ints({1})}}), one_3d) == 0);
}
