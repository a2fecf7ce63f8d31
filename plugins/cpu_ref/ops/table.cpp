#include "ops/builders.hpp"

namespace tileops::cpu_ref {

namespace {

constexpr OpBuilder kBuilders[] = {
    // norm
    {"RMSNormFwdOp", build_rms_norm},
    {"FusedAddRMSNormFwdOp", build_fused_add_rms_norm},
    {"LayerNormFwdOp", build_layer_norm},
    {"GroupNormFwdOp", build_group_norm},
    // reduction
    {"SoftmaxFwdOp", build_softmax},
    {"LogSoftmaxFwdOp", build_log_softmax},
    {"SumFwdOp", build_sum},
    {"MeanFwdOp", build_mean},
    {"AmaxFwdOp", build_amax},
    {"ArgmaxFwdOp", build_argmax},
    {"CumsumFwdOp", build_cumsum},
    // elementwise
    {"ReluFwdOp", build_relu},
    {"GeluFwdOp", build_gelu},
    {"SiluFwdOp", build_silu},
    {"SigmoidFwdOp", build_sigmoid},
    {"SiluAndMulFwdOp", build_silu_and_mul},
    {"GeluAndMulFwdOp", build_gelu_and_mul},
    {"AddFwdOp", build_add},
    {"MulFwdOp", build_mul},
    // rope
    {"RoPEFwdOp", build_rope},
    // gemm
    {"GemmFwdOp", build_gemm},
    {"BmmFwdOp", build_bmm},
    // attention
    {"GroupedQueryAttentionFwdOp", build_gqa_attention},
    {"GroupedQueryAttentionDecodePagedFwdOp", build_gqa_decode_paged},
    // SwiGLUMLPFwdOp: composite, the host runs its composition.
};

}  // namespace

std::span<const OpBuilder> op_builders() { return kBuilders; }

sdk::BuildFn find_builder(std::string_view op) {
  for (const OpBuilder& b : kBuilders)
    if (op == b.op) return b.build;
  return nullptr;
}

}  // namespace tileops::cpu_ref
