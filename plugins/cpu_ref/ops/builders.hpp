#pragma once
// The cpu_ref builders: one per non-composite op of the manifest, each a plain function
// over sdk::BuildArgs (inputs in signature order, params under their manifest names).
#include <tileops/sdk/plugin.hpp>

#include <memory>
#include <span>
#include <string_view>

namespace tileops::cpu_ref {

struct OpBuilder {
  const char* op;  // the manifest's op name
  sdk::BuildFn build;
};

// Every op cpu_ref serves. SwiGLUMLPFwdOp is absent: a composite builds no kernel.
std::span<const OpBuilder> op_builders();
// The builder of `op`, or nullptr.
sdk::BuildFn find_builder(std::string_view op);

using KernelPtr = std::unique_ptr<sdk::Kernel>;
using Args = sdk::BuildArgs;

// norm
KernelPtr build_rms_norm(const Args& args);
KernelPtr build_fused_add_rms_norm(const Args& args);
KernelPtr build_layer_norm(const Args& args);
KernelPtr build_group_norm(const Args& args);
// reduction
KernelPtr build_softmax(const Args& args);
KernelPtr build_log_softmax(const Args& args);
KernelPtr build_sum(const Args& args);
KernelPtr build_mean(const Args& args);
KernelPtr build_amax(const Args& args);
KernelPtr build_argmax(const Args& args);
KernelPtr build_cumsum(const Args& args);
// elementwise
KernelPtr build_relu(const Args& args);
KernelPtr build_gelu(const Args& args);
KernelPtr build_silu(const Args& args);
KernelPtr build_sigmoid(const Args& args);
KernelPtr build_silu_and_mul(const Args& args);
KernelPtr build_gelu_and_mul(const Args& args);
KernelPtr build_add(const Args& args);
KernelPtr build_mul(const Args& args);
// rope
KernelPtr build_rope(const Args& args);
// gemm
KernelPtr build_gemm(const Args& args);
KernelPtr build_bmm(const Args& args);
// attention
KernelPtr build_gqa_attention(const Args& args);
KernelPtr build_gqa_decode_paged(const Args& args);

}  // namespace tileops::cpu_ref
