#pragma once
// A corpus of calls of every op the CUDA plugin has kernel types for, across dtypes,
// row-length classes (empty to 2^31), axes, broadcasts, GroupNorm groups and RoPE
// layouts, planned on a device's facts without a GPU: for the tests of what the kernel
// types plan (call_programs_test.cpp, nvrtc_variants_test.cpp).
#include "ops/common.hpp"

#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace tileops::cuda::test {

// An H200's and an A100's facts (arch, SMs, the shared memory a CTA may opt into).
extern const tileops_device_facts kH200, kA100;

// One call, owning everything its tileops_call points at.
class TestCall {
 public:
  TestCall(const char* op, std::string label) : op_(op), label_(std::move(label)) {}

  TestCall& tensor(tileops_dtype dtype, std::vector<int64_t> shape);
  TestCall& absent();  // an omitted optional input
  TestCall& param_int(const char* name, int64_t v);
  TestCall& param_float(const char* name, double v);
  TestCall& param_string(const char* name, const char* v);
  TestCall& param_bool(const char* name, bool v);
  TestCall& param_none(const char* name);
  TestCall& param_ints(const char* name, std::vector<int64_t> v);

  const std::string& label() const { return label_; }
  // Whether every tensor fits an H200's memory (a larger one cannot be called).
  bool fits() const { return fits_; }
  const tileops_call& call(const tileops_device_facts& facts);

 private:
  tileops_param& param(const char* name, int32_t kind);

  const char* op_;
  std::string label_;
  std::deque<std::vector<int64_t>> shapes_, lists_;  // deque: what specs and params point at stays put
  std::deque<tileops_tensor_spec> specs_;
  std::vector<const tileops_tensor_spec*> tensors_;
  std::vector<tileops_param> params_;
  tileops_call call_{};
  bool fits_ = true;
};

using Calls = std::deque<TestCall>;

// The corpus's calls of `op` (the kernel type's own string, which outlives them).
Calls calls_of(const char* op);

// Runs `check` on each call that fits the H200 of each kernel type that accepts it on a
// device with `facts` (refusals are counted but not checked); requires most calls of
// each op to be accepted, so a check cannot pass by refusing everything. Returns how
// many were.
size_t for_each_accepted(const tileops_device_facts& facts,
                         const std::function<void(const KernelTypeDef&, TestCall&, const Call&)>& check);

}  // namespace tileops::cuda::test
