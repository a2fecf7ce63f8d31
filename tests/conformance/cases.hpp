#pragma once
// The conformance table: one or more SMALL calls per op of the manifest (all 25), with
// the params, each input's dtype, shape and value range, and the outputs the manifest
// says the call produces (written here by hand, independently of the runtime's shape
// inference). Shared by the API suites (test_ops.cpp, test_roofline_empty.cpp) and the
// CLI driver (test_cli_run.cpp, which uses cli_cases()).
#include <tileops/tileops.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace conformance {

using tileops::DType;
using tileops::Params;
namespace dt = tileops::dtypes;

// Where an input's values come from.
struct Values {
  enum Kind { Normal, IntRange } kind = Normal;
  double low = 0;   // IntRange: inclusive; Normal: unused (mean 0)
  double high = 1;  // IntRange: exclusive; Normal: the standard deviation
};
inline Values normal(double stddev = 1.0) { return {Values::Normal, 0, stddev}; }
inline Values int_range(double low, double high) { return {Values::IntRange, low, high}; }

struct InputSpec {
  std::string name;
  bool present = true;  // false: an omitted optional input
  DType dtype = dt::float32;
  std::vector<int64_t> shape;
  Values values = {};
};
inline InputSpec in(std::string name, DType dtype, std::vector<int64_t> shape, Values v = normal()) {
  return {std::move(name), true, dtype, std::move(shape), v};
}
inline InputSpec omitted(std::string name) { return {std::move(name), false, dt::float32, {}, {}}; }

struct OutputSpec {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
};
inline OutputSpec out(std::string name, DType dtype, std::vector<int64_t> shape) {
  return {std::move(name), dtype, std::move(shape)};
}

struct OpCase {
  OpCase(std::string id_, std::string op_, Params params_, std::vector<InputSpec> inputs_,
         std::vector<OutputSpec> outputs_, std::string rejected_ = {})
      : id(std::move(id_)), op(std::move(op_)), params(std::move(params_)), inputs(std::move(inputs_)),
        outputs(std::move(outputs_)), rejected(std::move(rejected_)) {}

  std::string id;  // "<op>/<what differs>"
  std::string op;
  Params params;
  std::vector<InputSpec> inputs;    // signature order, every input (omitted ones too)
  std::vector<OutputSpec> outputs;  // signature order
  // Empty-input cases only: the manifest refuses the call (a ValueError containing this).
  std::string rejected;


  // Params as given, or the spec's default.
  const tileops::ParamValue* find(const std::string& name) const {
    for (const auto& p : params)
      if (p.name == name) return &p.value;
    return nullptr;
  }
  template <class T>
  T get(const std::string& name, T fallback) const {
    const auto* v = find(name);
    if (!v || std::holds_alternative<std::monostate>(*v)) return fallback;
    return std::get<T>(*v);
  }
  template <class T>
  std::optional<T> opt(const std::string& name) const {
    const auto* v = find(name);
    if (!v || std::holds_alternative<std::monostate>(*v)) return std::nullopt;
    return std::get<T>(*v);
  }
  const InputSpec& input(const std::string& name) const {
    for (const auto& i : inputs)
      if (i.name == name) return i;
    throw std::out_of_range("case " + id + " has no input " + name);
  }
};

using Ints = std::vector<int64_t>;

// The 25 ops of the manifest, in catalogue order.
inline const std::vector<std::string>& manifest_ops() {
  static const std::vector<std::string> ops = {
      "RMSNormFwdOp", "FusedAddRMSNormFwdOp", "LayerNormFwdOp", "GroupNormFwdOp",
      "SoftmaxFwdOp", "LogSoftmaxFwdOp", "SumFwdOp", "MeanFwdOp", "AmaxFwdOp", "ArgmaxFwdOp",
      "CumsumFwdOp", "ReluFwdOp", "GeluFwdOp", "SiluFwdOp", "SigmoidFwdOp", "SiluAndMulFwdOp",
      "GeluAndMulFwdOp", "AddFwdOp", "MulFwdOp", "RoPEFwdOp", "GemmFwdOp", "BmmFwdOp",
      "GroupedQueryAttentionFwdOp", "GroupedQueryAttentionDecodePagedFwdOp", "SwiGLUMLPFwdOp"};
  return ops;
}

// ---- the calls with data ----------------------------------------------------------------

inline std::vector<OpCase> op_cases() {
  using tileops::ints;
  using tileops::none;
  std::vector<OpCase> c;
  // norm
  c.push_back({"RMSNormFwdOp/weight", "RMSNormFwdOp", {{"normalized_shape", ints({12})}, {"eps", 1e-5}},
               {in("x", dt::float32, {5, 3, 12}), in("weight", dt::float32, {12})},
               {out("y", dt::float32, {5, 3, 12})}});
  c.push_back({"RMSNormFwdOp/no-weight-2d-eps-none", "RMSNormFwdOp", {{"normalized_shape", ints({2, 6})}, {"eps", none()}},
               {in("x", dt::float16, {7, 2, 6}, normal(0.05)), omitted("weight")},
               {out("y", dt::float16, {7, 2, 6})}});
  c.push_back({"RMSNormFwdOp/bf16-default-eps", "RMSNormFwdOp", {{"normalized_shape", ints({10})}},
               {in("x", dt::bfloat16, {3, 10}), in("weight", dt::bfloat16, {10})},
               {out("y", dt::bfloat16, {3, 10})}});
  // values small enough that eps (None: torch.finfo(float32).eps) is visible in float32
  c.push_back({"RMSNormFwdOp/f32-eps-none-small", "RMSNormFwdOp", {{"normalized_shape", ints({5})}, {"eps", none()}},
               {in("x", dt::float32, {4, 5}, normal(3e-4)), omitted("weight")},
               {out("y", dt::float32, {4, 5})}});
  c.push_back({"FusedAddRMSNormFwdOp/weight", "FusedAddRMSNormFwdOp", {{"normalized_shape", ints({10})}},
               {in("x", dt::float32, {6, 10}), in("residual", dt::float32, {6, 10}), in("weight", dt::float32, {10})},
               {out("y", dt::float32, {6, 10}), out("residual_out", dt::float32, {6, 10})}});
  c.push_back({"FusedAddRMSNormFwdOp/no-weight", "FusedAddRMSNormFwdOp", {{"normalized_shape", ints({8})}, {"eps", 1e-5}},
               {in("x", dt::bfloat16, {3, 2, 8}), in("residual", dt::bfloat16, {3, 2, 8}), omitted("weight")},
               {out("y", dt::bfloat16, {3, 2, 8}), out("residual_out", dt::bfloat16, {3, 2, 8})}});
  c.push_back({"LayerNormFwdOp/weight-bias", "LayerNormFwdOp", {{"normalized_shape", ints({9})}, {"eps", 1e-5}},
               {in("x", dt::float32, {5, 9}), in("weight", dt::float32, {9}), in("bias", dt::float32, {9})},
               {out("y", dt::float32, {5, 9})}});
  c.push_back({"LayerNormFwdOp/weight-only-2d", "LayerNormFwdOp", {{"normalized_shape", ints({5, 4})}, {"eps", 1e-3}},
               {in("x", dt::float16, {3, 5, 4}), in("weight", dt::float16, {5, 4}), omitted("bias")},
               {out("y", dt::float16, {3, 5, 4})}});
  c.push_back({"LayerNormFwdOp/bias-only", "LayerNormFwdOp", {{"normalized_shape", ints({7})}},
               {in("x", dt::bfloat16, {5, 7}), omitted("weight"), in("bias", dt::bfloat16, {7})},
               {out("y", dt::bfloat16, {5, 7})}});
  c.push_back({"GroupNormFwdOp/affine", "GroupNormFwdOp", {{"num_groups", 3}, {"eps", 1e-5}},
               {in("x", dt::float32, {2, 6, 5}), in("weight", dt::float32, {6}), in("bias", dt::float32, {6})},
               {out("y", dt::float32, {2, 6, 5})}});
  c.push_back({"GroupNormFwdOp/no-affine-4d", "GroupNormFwdOp", {{"num_groups", 2}},
               {in("x", dt::float16, {3, 4, 2, 3}), omitted("weight"), omitted("bias")},
               {out("y", dt::float16, {3, 4, 2, 3})}});
  c.push_back({"GroupNormFwdOp/bias-only", "GroupNormFwdOp", {{"num_groups", 4}, {"eps", 1e-6}},
               {in("x", dt::bfloat16, {1, 4, 7}), omitted("weight"), in("bias", dt::bfloat16, {4})},
               {out("y", dt::bfloat16, {1, 4, 7})}});
  // reduction
  c.push_back({"SoftmaxFwdOp/last", "SoftmaxFwdOp", {},
               {in("x", dt::float32, {5, 7})}, {out("y", dt::float32, {5, 7})}});
  c.push_back({"SoftmaxFwdOp/dim1-bf16", "SoftmaxFwdOp", {{"dim", 1}},
               {in("x", dt::bfloat16, {3, 6, 4})}, {out("y", dt::bfloat16, {3, 6, 4})}});
  c.push_back({"LogSoftmaxFwdOp/dim0", "LogSoftmaxFwdOp", {{"dim", 0}},
               {in("x", dt::float32, {5, 7})}, {out("y", dt::float32, {5, 7})}});
  c.push_back({"LogSoftmaxFwdOp/last-f16", "LogSoftmaxFwdOp", {{"dim", -1}},
               {in("x", dt::float16, {2, 3, 9})}, {out("y", dt::float16, {2, 3, 9})}});
  c.push_back({"SumFwdOp/dims-0-2", "SumFwdOp", {{"dim", ints({0, 2})}},
               {in("x", dt::float32, {3, 5, 6})}, {out("y", dt::float32, {5})}});
  c.push_back({"SumFwdOp/all-f16", "SumFwdOp", {},
               {in("x", dt::float16, {4, 7})}, {out("y", dt::float16, {})}});
  c.push_back({"SumFwdOp/last-keepdim-bf16", "SumFwdOp", {{"dim", ints({-1})}, {"keepdim", true}},
               {in("x", dt::bfloat16, {2, 3, 4})}, {out("y", dt::bfloat16, {2, 3, 1})}});
  c.push_back({"MeanFwdOp/dim1-keepdim", "MeanFwdOp", {{"dim", ints({1})}, {"keepdim", true}},
               {in("x", dt::float32, {3, 5, 6})}, {out("y", dt::float32, {3, 1, 6})}});
  c.push_back({"MeanFwdOp/all-bf16", "MeanFwdOp", {{"dim", none()}},
               {in("x", dt::bfloat16, {6, 5})}, {out("y", dt::bfloat16, {})}});
  c.push_back({"AmaxFwdOp/last", "AmaxFwdOp", {{"dim", ints({-1})}},
               {in("x", dt::float32, {5, 7})}, {out("y", dt::float32, {5})}});
  c.push_back({"AmaxFwdOp/int32-dims-0-2-keepdim", "AmaxFwdOp", {{"dim", ints({0, 2})}, {"keepdim", true}},
               {in("x", dt::int32, {3, 4, 5}, int_range(-1000, 1000))}, {out("y", dt::int32, {1, 4, 1})}});
  c.push_back({"AmaxFwdOp/int64-all", "AmaxFwdOp", {},
               {in("x", dt::int64, {6}, int_range(-50, 50))}, {out("y", dt::int64, {})}});
  c.push_back({"ArgmaxFwdOp/dim1", "ArgmaxFwdOp", {{"dim", 1}},
               {in("x", dt::float32, {5, 7})}, {out("y", dt::int64, {5})}});
  // few distinct values: ties, which torch resolves to the first index
  c.push_back({"ArgmaxFwdOp/int32-flat-ties", "ArgmaxFwdOp", {{"dim", none()}},
               {in("x", dt::int32, {3, 4, 5}, int_range(-3, 3))}, {out("y", dt::int64, {})}});
  c.push_back({"ArgmaxFwdOp/int64-last-ties", "ArgmaxFwdOp", {{"dim", -1}},
               {in("x", dt::int64, {4, 9}, int_range(0, 3))}, {out("y", dt::int64, {4})}});
  c.push_back({"ArgmaxFwdOp/dim0-keepdim-bf16", "ArgmaxFwdOp", {{"dim", 0}, {"keepdim", true}},
               {in("x", dt::bfloat16, {4, 6})}, {out("y", dt::int64, {1, 6})}});
  c.push_back({"CumsumFwdOp/dim1", "CumsumFwdOp", {{"dim", 1}},
               {in("x", dt::float32, {5, 7})}, {out("y", dt::float32, {5, 7})}});
  c.push_back({"CumsumFwdOp/int64-dim0", "CumsumFwdOp", {{"dim", 0}},
               {in("x", dt::int64, {4, 6}, int_range(-50, 50))}, {out("y", dt::int64, {4, 6})}});
  c.push_back({"CumsumFwdOp/f16-last", "CumsumFwdOp", {{"dim", -1}},
               {in("x", dt::float16, {3, 5})}, {out("y", dt::float16, {3, 5})}});
  // elementwise
  c.push_back({"ReluFwdOp/f32", "ReluFwdOp", {},
               {in("x", dt::float32, {5, 7})}, {out("y", dt::float32, {5, 7})}});
  c.push_back({"ReluFwdOp/int32", "ReluFwdOp", {},
               {in("x", dt::int32, {13}, int_range(-20, 20))}, {out("y", dt::int32, {13})}});
  c.push_back({"GeluFwdOp/erf", "GeluFwdOp", {},
               {in("x", dt::float32, {5, 7})}, {out("y", dt::float32, {5, 7})}});
  c.push_back({"GeluFwdOp/tanh", "GeluFwdOp", {{"approximate", "tanh"}},
               {in("x", dt::float32, {4, 6}, normal(2.0))}, {out("y", dt::float32, {4, 6})}});
  c.push_back({"GeluFwdOp/tanh-bf16", "GeluFwdOp", {{"approximate", "tanh"}},
               {in("x", dt::bfloat16, {3, 11})}, {out("y", dt::bfloat16, {3, 11})}});
  c.push_back({"SiluFwdOp/f16", "SiluFwdOp", {},
               {in("x", dt::float16, {5, 7})}, {out("y", dt::float16, {5, 7})}});
  c.push_back({"SigmoidFwdOp/f32", "SigmoidFwdOp", {},
               {in("x", dt::float32, {3, 3, 5})}, {out("y", dt::float32, {3, 3, 5})}});
  c.push_back({"SiluAndMulFwdOp/f32", "SiluAndMulFwdOp", {},
               {in("x", dt::float32, {5, 12})}, {out("y", dt::float32, {5, 6})}});
  c.push_back({"SiluAndMulFwdOp/bf16-3d", "SiluAndMulFwdOp", {},
               {in("x", dt::bfloat16, {2, 3, 8})}, {out("y", dt::bfloat16, {2, 3, 4})}});
  c.push_back({"GeluAndMulFwdOp/erf", "GeluAndMulFwdOp", {},
               {in("x", dt::float32, {5, 10})}, {out("y", dt::float32, {5, 5})}});
  c.push_back({"GeluAndMulFwdOp/tanh-f16", "GeluAndMulFwdOp", {{"approximate", "tanh"}},
               {in("x", dt::float16, {3, 6})}, {out("y", dt::float16, {3, 3})}});
  c.push_back({"GeluAndMulFwdOp/tanh", "GeluAndMulFwdOp", {{"approximate", "tanh"}},
               {in("x", dt::float32, {2, 3, 8}, normal(2.0))}, {out("y", dt::float32, {2, 3, 4})}});
  c.push_back({"AddFwdOp/broadcast-alpha", "AddFwdOp", {{"alpha", 0.5}},
               {in("a", dt::float32, {3, 1, 5}), in("b", dt::float32, {4, 1})}, {out("y", dt::float32, {3, 4, 5})}});
  c.push_back({"AddFwdOp/int64-alpha-neg2", "AddFwdOp", {{"alpha", -2.0}},
               {in("a", dt::int64, {5, 6}, int_range(-100, 100)), in("b", dt::int64, {6}, int_range(-100, 100))},
               {out("y", dt::int64, {5, 6})}});
  c.push_back({"AddFwdOp/bf16", "AddFwdOp", {},
               {in("a", dt::bfloat16, {7}), in("b", dt::bfloat16, {7})}, {out("y", dt::bfloat16, {7})}});
  c.push_back({"MulFwdOp/row-broadcast", "MulFwdOp", {},
               {in("a", dt::float32, {5, 6}), in("b", dt::float32, {6})}, {out("y", dt::float32, {5, 6})}});
  c.push_back({"MulFwdOp/both-broadcast-f16", "MulFwdOp", {},
               {in("a", dt::float16, {2, 1, 3}), in("b", dt::float16, {2, 4, 1})}, {out("y", dt::float16, {2, 4, 3})}});
  // rope: R < D in the first case (the last D - R dims pass through)
  c.push_back({"RoPEFwdOp/neox-partial", "RoPEFwdOp", {{"layout", "neox"}},
               {in("x", dt::float32, {5, 3, 8}), in("positions", dt::int64, {5}, int_range(0, 11)),
                in("cos_sin_cache", dt::float32, {11, 6})},
               {out("y", dt::float32, {5, 3, 8})}});
  c.push_back({"RoPEFwdOp/interleaved-bf16-int32", "RoPEFwdOp", {{"layout", "interleaved"}},
               {in("x", dt::bfloat16, {2, 3, 2, 4}), in("positions", dt::int32, {2, 3}, int_range(0, 7)),
                in("cos_sin_cache", dt::float32, {7, 4})},
               {out("y", dt::bfloat16, {2, 3, 2, 4})}});
  // gemm
  c.push_back({"GemmFwdOp/nn", "GemmFwdOp", {},
               {in("a", dt::float32, {5, 7}), in("b", dt::float32, {7, 3})}, {out("y", dt::float32, {5, 3})}});
  c.push_back({"GemmFwdOp/tt-f16", "GemmFwdOp", {{"trans_a", true}, {"trans_b", true}},
               {in("a", dt::float16, {6, 5}), in("b", dt::float16, {3, 6})}, {out("y", dt::float16, {5, 3})}});
  c.push_back({"GemmFwdOp/nt-bf16", "GemmFwdOp", {{"trans_b", true}},
               {in("a", dt::bfloat16, {3, 9}), in("b", dt::bfloat16, {4, 9})}, {out("y", dt::bfloat16, {3, 4})}});
  c.push_back({"BmmFwdOp/f32", "BmmFwdOp", {},
               {in("a", dt::float32, {3, 2, 5}), in("b", dt::float32, {3, 5, 4})}, {out("y", dt::float32, {3, 2, 4})}});
  c.push_back({"BmmFwdOp/bf16", "BmmFwdOp", {},
               {in("a", dt::bfloat16, {2, 3, 4}), in("b", dt::bfloat16, {2, 4, 5})}, {out("y", dt::bfloat16, {2, 3, 5})}});
  // attention
  c.push_back({"GroupedQueryAttentionFwdOp/causal-gqa", "GroupedQueryAttentionFwdOp", {{"is_causal", true}},
               {in("q", dt::float32, {2, 4, 3, 8}), in("k", dt::float32, {2, 2, 5, 8}), in("v", dt::float32, {2, 2, 5, 8})},
               {out("o", dt::float32, {2, 4, 3, 8})}});
  c.push_back({"GroupedQueryAttentionFwdOp/scale-f16", "GroupedQueryAttentionFwdOp", {{"scale", 0.3}},
               {in("q", dt::float16, {1, 2, 5, 4}), in("k", dt::float16, {1, 2, 3, 4}), in("v", dt::float16, {1, 2, 3, 4})},
               {out("o", dt::float16, {1, 2, 5, 4})}});
  c.push_back({"GroupedQueryAttentionFwdOp/causal-sq-gt-skv-bf16", "GroupedQueryAttentionFwdOp", {{"is_causal", true}},
               {in("q", dt::bfloat16, {1, 3, 6, 4}), in("k", dt::bfloat16, {1, 1, 4, 4}), in("v", dt::bfloat16, {1, 1, 4, 4})},
               {out("o", dt::bfloat16, {1, 3, 6, 4})}});
  // paged decode: NB 7 blocks of BS 4 slots, MB 3 blocks per sequence
  c.push_back({"GroupedQueryAttentionDecodePagedFwdOp/f32", "GroupedQueryAttentionDecodePagedFwdOp", {},
               {in("q", dt::float32, {3, 4, 8}), in("k_cache", dt::float32, {7, 4, 2, 8}),
                in("v_cache", dt::float32, {7, 4, 2, 8}), in("block_table", dt::int32, {3, 3}, int_range(0, 7)),
                in("seq_lens", dt::int32, {3}, int_range(1, 13))},
               {out("o", dt::float32, {3, 4, 8})}});
  c.push_back({"GroupedQueryAttentionDecodePagedFwdOp/scale-f16", "GroupedQueryAttentionDecodePagedFwdOp", {{"scale", 0.5}},
               {in("q", dt::float16, {2, 2, 4}), in("k_cache", dt::float16, {5, 2, 1, 4}),
                in("v_cache", dt::float16, {5, 2, 1, 4}), in("block_table", dt::int32, {2, 4}, int_range(0, 5)),
                in("seq_lens", dt::int32, {2}, int_range(1, 9))},
               {out("o", dt::float16, {2, 2, 4})}});
  // composite
  c.push_back({"SwiGLUMLPFwdOp/f32", "SwiGLUMLPFwdOp", {},
               {in("x", dt::float32, {5, 8}), in("w_gate_up", dt::float32, {12, 8}), in("w_down", dt::float32, {8, 6})},
               {out("y", dt::float32, {5, 8})}});
  c.push_back({"SwiGLUMLPFwdOp/bf16", "SwiGLUMLPFwdOp", {},
               {in("x", dt::bfloat16, {3, 4}), in("w_gate_up", dt::bfloat16, {10, 4}), in("w_down", dt::bfloat16, {4, 5})},
               {out("y", dt::bfloat16, {3, 4})}});
  return c;
}

// ---- calls with a zero-size dimension ---------------------------------------------------
// Every op once: the outputs come back empty (no kernel runs) unless `rejected` says the
// manifest refuses the call.

inline std::vector<OpCase> empty_cases() {
  using tileops::ints;
  using tileops::none;
  std::vector<OpCase> c;
  c.push_back({"RMSNormFwdOp/empty", "RMSNormFwdOp", {{"normalized_shape", ints({4})}},
               {in("x", dt::float32, {0, 4}), in("weight", dt::float32, {4})}, {out("y", dt::float32, {0, 4})}});
  c.push_back({"FusedAddRMSNormFwdOp/empty", "FusedAddRMSNormFwdOp", {{"normalized_shape", ints({4})}},
               {in("x", dt::float32, {2, 0, 4}), in("residual", dt::float32, {2, 0, 4}), omitted("weight")},
               {out("y", dt::float32, {2, 0, 4}), out("residual_out", dt::float32, {2, 0, 4})}});
  c.push_back({"LayerNormFwdOp/empty", "LayerNormFwdOp", {{"normalized_shape", ints({3})}},
               {in("x", dt::float16, {0, 3}), in("weight", dt::float16, {3}), in("bias", dt::float16, {3})},
               {out("y", dt::float16, {0, 3})}});
  c.push_back({"GroupNormFwdOp/empty", "GroupNormFwdOp", {{"num_groups", 2}},
               {in("x", dt::float32, {0, 4, 3}), omitted("weight"), omitted("bias")}, {out("y", dt::float32, {0, 4, 3})}});
  c.push_back({"SoftmaxFwdOp/empty", "SoftmaxFwdOp", {},
               {in("x", dt::float32, {0, 5})}, {out("y", dt::float32, {0, 5})}});
  c.push_back({"LogSoftmaxFwdOp/empty", "LogSoftmaxFwdOp", {{"dim", 0}},
               {in("x", dt::bfloat16, {3, 0})}, {out("y", dt::bfloat16, {3, 0})}});
  c.push_back({"SumFwdOp/empty", "SumFwdOp", {{"dim", ints({1})}},
               {in("x", dt::float32, {0, 5})}, {out("y", dt::float32, {0})}});
  c.push_back({"MeanFwdOp/empty", "MeanFwdOp", {{"dim", ints({0})}, {"keepdim", true}},
               {in("x", dt::float32, {3, 0})}, {out("y", dt::float32, {1, 0})}});
  c.push_back({"AmaxFwdOp/empty", "AmaxFwdOp", {{"dim", ints({-1})}},
               {in("x", dt::int32, {0, 4})}, {out("y", dt::int32, {0})}});
  c.push_back({"ArgmaxFwdOp/empty", "ArgmaxFwdOp", {{"dim", 1}},
               {in("x", dt::float32, {0, 4})}, {out("y", dt::int64, {0})}});
  c.push_back({"CumsumFwdOp/empty", "CumsumFwdOp", {{"dim", 0}},
               {in("x", dt::int64, {0, 3})}, {out("y", dt::int64, {0, 3})}});
  c.push_back({"ReluFwdOp/empty", "ReluFwdOp", {}, {in("x", dt::float32, {0})}, {out("y", dt::float32, {0})}});
  c.push_back({"GeluFwdOp/empty", "GeluFwdOp", {}, {in("x", dt::float32, {2, 0})}, {out("y", dt::float32, {2, 0})}});
  c.push_back({"SiluFwdOp/empty", "SiluFwdOp", {}, {in("x", dt::float16, {0, 3})}, {out("y", dt::float16, {0, 3})}});
  c.push_back({"SigmoidFwdOp/empty", "SigmoidFwdOp", {}, {in("x", dt::float32, {0})}, {out("y", dt::float32, {0})}});
  c.push_back({"SiluAndMulFwdOp/empty", "SiluAndMulFwdOp", {},
               {in("x", dt::float32, {0, 6})}, {out("y", dt::float32, {0, 3})}});
  c.push_back({"GeluAndMulFwdOp/empty", "GeluAndMulFwdOp", {},
               {in("x", dt::float32, {4, 0})}, {out("y", dt::float32, {4, 0})}});
  c.push_back({"AddFwdOp/empty", "AddFwdOp", {},
               {in("a", dt::float32, {0, 3}), in("b", dt::float32, {3})}, {out("y", dt::float32, {0, 3})}});
  c.push_back({"MulFwdOp/empty", "MulFwdOp", {},
               {in("a", dt::float32, {2, 1}), in("b", dt::float32, {0})}, {out("y", dt::float32, {2, 0})}});
  c.push_back({"RoPEFwdOp/empty", "RoPEFwdOp", {},
               {in("x", dt::float32, {0, 2, 4}), in("positions", dt::int64, {0}), in("cos_sin_cache", dt::float32, {5, 4})},
               {out("y", dt::float32, {0, 2, 4})}});
  c.push_back({"GemmFwdOp/empty", "GemmFwdOp", {{"trans_b", true}},
               {in("a", dt::float32, {0, 4}), in("b", dt::float32, {3, 4})}, {out("y", dt::float32, {0, 3})}});
  c.push_back({"BmmFwdOp/empty", "BmmFwdOp", {},
               {in("a", dt::float32, {0, 2, 3}), in("b", dt::float32, {0, 3, 4})}, {out("y", dt::float32, {0, 2, 4})}});
  c.push_back({"GroupedQueryAttentionFwdOp/empty", "GroupedQueryAttentionFwdOp", {},
               {in("q", dt::float32, {0, 2, 3, 4}), in("k", dt::float32, {0, 1, 5, 4}), in("v", dt::float32, {0, 1, 5, 4})},
               {out("o", dt::float32, {0, 2, 3, 4})}});
  c.push_back({"GroupedQueryAttentionDecodePagedFwdOp/empty", "GroupedQueryAttentionDecodePagedFwdOp", {},
               {in("q", dt::float32, {0, 2, 4}), in("k_cache", dt::float32, {3, 2, 1, 4}),
                in("v_cache", dt::float32, {3, 2, 1, 4}), in("block_table", dt::int32, {0, 2}),
                in("seq_lens", dt::int32, {0})},
               {out("o", dt::float32, {0, 2, 4})}});
  c.push_back({"SwiGLUMLPFwdOp/empty", "SwiGLUMLPFwdOp", {},
               {in("x", dt::float32, {0, 4}), in("w_gate_up", dt::float32, {6, 4}), in("w_down", dt::float32, {4, 3})},
               {out("y", dt::float32, {0, 4})}});
  // what the manifest refuses (torch refuses these reductions of empty inputs too)
  c.push_back({"ArgmaxFwdOp/empty-flat", "ArgmaxFwdOp", {{"dim", none()}}, {in("x", dt::float32, {0, 4})}, {},
               "ArgmaxFwdOp"});
  c.push_back({"AmaxFwdOp/empty-all", "AmaxFwdOp", {}, {in("x", dt::float32, {0, 4})}, {}, "AmaxFwdOp"});
  c.push_back({"AmaxFwdOp/empty-axis", "AmaxFwdOp", {{"dim", ints({0})}}, {in("x", dt::float32, {0, 4})}, {},
               "AmaxFwdOp"});
  return c;
}

// ---- `tileops run` --------------------------------------------------------------------
// One call per op through the CLI: a workload case id of the op's spec and small shapes
// consistent with that case's params and value ranges (RoPE positions and paged block ids
// are drawn from the case's P / NB, so those caches keep the case's row count).

struct CliCase {
  std::string op;
  std::string case_id;
  std::vector<std::string> shapes;   // INPUT=AxB
  std::vector<std::string> outputs;  // "NAME: DTYPE[SHAPE]", as `tileops run` describes them
};

inline std::vector<CliCase> cli_cases() {
  return {
      {"RMSNormFwdOp", "llama3-8b-prefill-float16", {"x=3x4096"}, {"y: float16[3, 4096]"}},
      {"FusedAddRMSNormFwdOp", "mem-8192x8192-float32", {"x=3x8192", "residual=3x8192"}, {"y: float32[3, 8192]", "residual_out: float32[3, 8192]"}},
      {"LayerNormFwdOp", "gptj-6b-prefill-bfloat16", {"x=3x4096"}, {"y: bfloat16[3, 4096]"}},
      {"GroupNormFwdOp", "sdxl-unet-320ch-float16", {"x=2x64x3x5", "weight=64", "bias=64"}, {"y: float16[2, 64, 3, 5]"}},
      {"SoftmaxFwdOp", "qwen2.5-7b-sample-b1-float32", {"x=3x7"}, {"y: float32[3, 7]"}},
      {"LogSoftmaxFwdOp", "llama3-8b-loss-float32", {"x=5x9"}, {"y: float32[5, 9]"}},
      {"SumFwdOp", "llama3-8b-seq-pool-b8-float16", {"x=2x3x5"}, {"y: float16[2, 5]"}},
      {"MeanFwdOp", "resnet50-avgpool-b256-float32", {"x=2x3x4x4"}, {"y: float32[2, 3, 1, 1]"}},
      {"AmaxFwdOp", "mem-8192x8192-int-dim0-int32", {"x=6x5"}, {"y: int32[5]"}},
      {"ArgmaxFwdOp", "llama3-8b-greedy-b64-float32", {"x=3x11"}, {"y: int64[3]"}},
      {"CumsumFwdOp", "position-ids-b8-int64", {"x=3x7"}, {"y: int64[3, 7]"}},
      {"ReluFwdOp", "mem-8192x8192-int-int64", {"x=5x3"}, {"y: int64[5, 3]"}},
      {"GeluFwdOp", "gptj-6b-ffn-prefill-bfloat16", {"x=3x7"}, {"y: bfloat16[3, 7]"}},
      {"SiluFwdOp", "mem-8192x8192-float32", {"x=3x7"}, {"y: float32[3, 7]"}},
      {"SigmoidFwdOp", "deepseek-v3-router-4k-float16", {"x=3x7"}, {"y: float16[3, 7]"}},
      {"SiluAndMulFwdOp", "llama3-8b-decode-b64-float32", {"x=3x10"}, {"y: float32[3, 5]"}},
      {"GeluAndMulFwdOp", "gemma2-9b-decode-b64-float16", {"x=3x10"}, {"y: float16[3, 5]"}},
      {"AddFwdOp", "mem-8192x8192-int-bcast-int32", {"a=5x4", "b=5x1"}, {"y: int32[5, 4]"}},
      {"MulFwdOp", "mem-8192x8192-row-scale-bfloat16", {"a=3x7", "b=3x1"}, {"y: bfloat16[3, 7]"}},
      {"RoPEFwdOp", "chatglm3-6b-q-prefill-float32-int32", {"x=3x2x128", "positions=3", "cos_sin_cache=8192x64"}, {"y: float32[3, 2, 128]"}},
      {"GemmFwdOp", "llama3-8b-gate-up-wgrad-float16", {"a=6x5", "b=6x3"}, {"y: float16[5, 3]"}},
      {"BmmFwdOp", "llama3-8b-attn-qk-float32", {"a=2x3x4", "b=2x4x5"}, {"y: float32[2, 3, 5]"}},
      {"GroupedQueryAttentionFwdOp", "llama3-8b-prefill-4k-bfloat16", {"q=1x4x3x8", "k=1x2x3x8", "v=1x2x3x8"}, {"o: bfloat16[1, 4, 3, 8]"}},
      {"GroupedQueryAttentionDecodePagedFwdOp", "llama3-8b-b1-ctx8k-float32",
       {"q=1x2x8", "k_cache=4096x16x1x8", "v_cache=4096x16x1x8", "block_table=1x512", "seq_lens=1"}, {"o: float32[1, 2, 8]"}},
      {"SwiGLUMLPFwdOp", "llama3-8b-decode-b64-bfloat16", {"x=4x16", "w_gate_up=24x16", "w_down=16x12"}, {"y: bfloat16[4, 16]"}},
  };
}

}  // namespace conformance
