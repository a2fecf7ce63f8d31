#include "baseline_choice.hpp"

#include <tileops/errors.hpp>

#include <variant>

namespace tileops::bench {
namespace {

bool bool_param(const Op& op, std::string_view name) {
  for (const auto& p : op.params())
    if (p.name == name)
      if (const bool* v = std::get_if<bool>(&p.value)) return *v;
  return false;
}

// The GEMM of GemmFwdOp (a: Mat[trans_a, M, K], b: Mat[trans_b, K, N]) or BmmFwdOp
// (a: [Bt, M, K], b: [Bt, K, N]) in the terms a vendor library takes.
MatmulCall matmul_call(const Op& op, std::span<const Tensor> inputs) {
  MatmulCall call{inputs[0], inputs[1]};
  const Tensor& a = inputs[0];
  const Tensor& b = inputs[1];
  if (op.name() == "BmmFwdOp") {
    call.batch = a.size(0);
    call.m = a.size(1);
    call.k = a.size(2);
    call.n = b.size(2);
    return call;
  }
  call.trans_a = bool_param(op, "trans_a");
  call.trans_b = bool_param(op, "trans_b");
  call.m = a.size(call.trans_a ? 1 : 0);
  call.k = a.size(call.trans_a ? 0 : 1);
  call.n = b.size(call.trans_b ? 0 : 1);
  return call;
}

}  // namespace

std::unique_ptr<Baseline> baseline_for(const Op& op, std::string_view roof_key, std::span<const Tensor> inputs,
                                       double bytes, RunDevice& device, std::string& why) {
  if (op.name() == "GemmFwdOp" || op.name() == "BmmFwdOp") return device.matmul_baseline(matmul_call(op, inputs), why);
  if (roof_key == "cuda_core") return copy_baseline(device.device(), bytes);
  why = "no baseline for " + std::string(roof_key) + " ops other than GEMMs";
  return nullptr;
}

}  // namespace tileops::bench
