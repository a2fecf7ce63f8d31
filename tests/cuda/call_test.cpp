// A kernel interface's view of a call (ops/common.hpp): the refusals every kernel type
// shares, with the messages the runtime passes on. No GPU needed.
#include "ops/common.hpp"

#include <doctest/doctest.h>

#include <string>

namespace cuda = tileops::cuda;

namespace {

// What refusing `call` says, or "" when it is accepted.
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const tileops::sdk::Failure& e) {
    CHECK(e.status == TILEOPS_ERR_UNSUPPORTED);
    return e.message;
  }
  return "";
}

struct OneTensorCall {
  int64_t shape[2] = {4, 8};
  tileops_tensor_spec x{};
  const tileops_tensor_spec* tensors[1] = {&x};
  tileops_device_facts facts{};
  tileops_call call{};

  OneTensorCall(int32_t arch, tileops_dtype dtype) {
    x.struct_size = sizeof x;
    x.dtype = dtype;
    x.ndim = 2;
    x.shape = shape;
    facts.struct_size = sizeof facts;
    facts.arch = arch;
    call.struct_size = sizeof call;
    call.op = "SoftmaxFwdOp";
    call.facts = &facts;
    call.tensors = tensors;
    call.n_tensors = 1;
  }
};

constexpr tileops_dtype kF32{TILEOPS_DTYPE_FLOAT, 32, 1}, kI8{TILEOPS_DTYPE_INT, 8, 1};

}  // namespace

TEST_CASE("a device older than the kernels' compute capability is refused, naming both") {
  OneTensorCall c(75, kF32);
  const cuda::Call call(c.call);
  CHECK(refusal([&] { call.require_arch(80); }) ==
        "SoftmaxFwdOp on CUDA: needs compute capability 8.0 or newer, the device has arch 75");
  CHECK(refusal([&] { call.require_arch(75); }).empty());
  CHECK(refusal([&] { cuda::Call(OneTensorCall(90, kF32).call).require_arch(80); }).empty());
}

TEST_CASE("a call without device facts is refused for the missing compute capability") {
  OneTensorCall c(90, kF32);
  c.call.facts = nullptr;
  CHECK(refusal([&] { cuda::Call(c.call).require_arch(80); }) ==
        "SoftmaxFwdOp on CUDA: needs compute capability 8.0 or newer, and the device facts give none");
}

TEST_CASE("a dtype the kernel does not take is refused with the ones it takes") {
  OneTensorCall c(90, kI8);
  const cuda::Call call(c.call);
  CHECK(refusal([&] { call.dtype(0, "x", cuda::kFloats); }) ==
        "SoftmaxFwdOp on CUDA: x is int8; the kernel takes float32, float16 or bfloat16");
  OneTensorCall f(90, kF32);
  CHECK(cuda::Call(f.call).dtype(0, "x", cuda::kFloats) == cuda::Elem::f32);
  f.call.n_tensors = 0;
  CHECK(refusal([&] { cuda::Call(f.call).dtype(0, "x", cuda::kFloats); }) == "SoftmaxFwdOp on CUDA: x is missing");
}
