// Op::roofline against FLOPs and bytes counted by hand, and calls with a zero-size
// dimension: empty outputs without a kernel, or the manifest's refusal.
#include "support.hpp"

#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace tileops;
using namespace conformance;

namespace {

const OpCase& find_case(const std::string& id) {
  static const auto cases = op_cases();
  for (const auto& c : cases)
    if (c.id == id) return c;
  throw std::out_of_range("no case " + id);
}

Roofline roofline_of(const std::string& id) {
  const OpCase& c = find_case(id);
  Op op(c.op, c.params);
  auto inputs = make_inputs(c);
  return op.roofline(inputs);
}

}  // namespace

TEST_CASE("roofline: the manifest's formulas, counted by hand") {
  SUBCASE("RMSNorm: 4 flops per element with weight, 3 without; bytes derived from the signature") {
    // x float32 [5, 3, 12], weight [12]: 180 elements
    Roofline r = roofline_of("RMSNormFwdOp/weight");
    CHECK(r.flops == 4.0 * 180);
    CHECK(r.bytes == 180 * 4 + 12 * 4 + 180 * 4);
    // x float16 [7, 2, 6], no weight: 84 elements
    r = roofline_of("RMSNormFwdOp/no-weight-2d-eps-none");
    CHECK(r.flops == 3.0 * 84);
    CHECK(r.bytes == 84 * 2 + 84 * 2);
  }
  SUBCASE("FusedAddRMSNorm: the mutated residual is read and written, its alias output not counted again") {
    // x, residual float32 [6, 10], weight [10]
    Roofline r = roofline_of("FusedAddRMSNormFwdOp/weight");
    CHECK(r.flops == 5.0 * 60);
    CHECK(r.bytes == 60 * 4 + 2 * 60 * 4 + 10 * 4 + 60 * 4);
  }
  SUBCASE("GEMM: 2 M N K") {
    // trans_b: a bfloat16 [3, 9] (M 3, K 9), b [4, 9] (N 4), y [3, 4]
    Roofline r = roofline_of("GemmFwdOp/nt-bf16");
    CHECK(r.flops == 2.0 * 3 * 4 * 9);
    CHECK(r.bytes == (27 + 36 + 12) * 2);
    // trans_a and trans_b: a float16 [6, 5] (K 6, M 5), b [3, 6] (N 3)
    r = roofline_of("GemmFwdOp/tt-f16");
    CHECK(r.flops == 2.0 * 5 * 3 * 6);
    CHECK(r.bytes == (30 + 18 + 15) * 2);
  }
  SUBCASE("RoPE: only the cache rows the positions select are read") {
    // x float32 [5, 3, 8] (B [5], H 3), positions int64 [5], cache [11, 6] (P 11, R 6)
    Roofline r = roofline_of("RoPEFwdOp/neox-partial");
    CHECK(r.flops == 3.0 * 5 * 3 * 6);
    CHECK(r.bytes == 120 * 4 + 5 * 8 + std::min(11, 5) * 6 * 4 + 120 * 4);
  }
  SUBCASE("causal GQA with Sq < Skv: Sq (Sq + 1) / 2 pairs, only the first Sq keys read") {
    // q float32 [2, 4, 3, 8], k, v [2, 2, 5, 8]
    Roofline r = roofline_of("GroupedQueryAttentionFwdOp/causal-gqa");
    const double pairs = 3 * 4 / 2;
    CHECK(r.flops == 4.0 * 2 * 4 * pairs * 8);
    const double q = 2 * 4 * 3 * 8 * 4, kv = 2 * 2 * 5 * 8 * 4;
    CHECK(r.bytes == q + std::floor(2 * kv * 3 / 5) + q);
  }
  SUBCASE("the composite SwiGLUMLP: its own formula, bytes of its inputs and output only") {
    // x float32 [5, 8] (M 5, Hd 8), w_gate_up [12, 8] (I 6), w_down [8, 6], y [5, 8]
    Roofline r = roofline_of("SwiGLUMLPFwdOp/f32");
    CHECK(r.flops == 6.0 * 5 * 8 * 6 + 6.0 * 5 * 6);
    CHECK(r.bytes == (40 + 96 + 48 + 40) * 4);
  }
  SUBCASE("Mean: one add per input element, one divide per output element") {
    // x float32 [3, 5, 6], dim [1], keepdim: y [3, 1, 6]
    Roofline r = roofline_of("MeanFwdOp/dim1-keepdim");
    CHECK(r.flops == 90.0 + 18);
    CHECK(r.bytes == 90 * 4 + 18 * 4);
  }
}

TEST_CASE("roofline checks the call like a call does") {
  Op gemm("GemmFwdOp", {{"trans_b", true}});
  Tensor a = Tensor::empty({3, 9}, dtypes::float32), b = Tensor::empty({4, 8}, dtypes::float32);
  CHECK_THROWS_AS(gemm.roofline(std::vector<Tensor>{a, b}), ValueError);
}

TEST_CASE("a zero-size dimension: empty outputs and no kernel where the manifest allows it") {
  for (const auto& c : empty_cases()) {
    INFO("case " << c.id);
    Op op(c.op, c.params);
    auto inputs = make_inputs(c);
    if (!c.rejected.empty()) {
      CHECK_THROWS_WITH_AS(op(inputs), doctest::Contains(c.rejected.c_str()), ValueError);
      CHECK_FALSE(op.target().has_value());
      continue;
    }
    std::vector<Tensor> outs;
    try {
      outs = op(inputs);
    } catch (const Error& e) {
      FAIL_CHECK(e.kind() << ": " << e.what());
      continue;
    }
    REQUIRE(outs.size() == c.outputs.size());
    for (size_t j = 0; j < outs.size(); ++j) {
      INFO("output " << c.outputs[j].name);
      REQUIRE(outs[j].defined());
      CHECK(outs[j].numel() == 0);
      CHECK(outs[j].dtype() == c.outputs[j].dtype);
      CHECK(shape_of(outs[j]) == c.outputs[j].shape);
      CHECK(outs[j].device() == Device::cpu());
    }
    // No kernel ran: no target was settled and nothing was built.
    CHECK_FALSE(op.target().has_value());
    CHECK(op.kernel_config().empty());
    if (c.op == "FusedAddRMSNormFwdOp") CHECK(outs[1].storage() == inputs[1].storage());
  }
}

TEST_CASE("the empty short-circuit through the typed classes and the C API's op") {
  elementwise::SiluAndMulFwdOp silu_mul;
  Tensor y = silu_mul(Tensor::empty({0, 8}, dtypes::bfloat16));
  CHECK(shape_of(y) == std::vector<int64_t>{0, 4});
  CHECK(y.dtype() == dtypes::bfloat16);
  CHECK_FALSE(silu_mul.op().target().has_value());
  // the next non-empty call settles the target
  Tensor x = Tensor::empty({2, 8}, dtypes::bfloat16);
  tooling::fill_from_doubles(x, std::vector<double>(16, 1.0));
  y = silu_mul(x);
  CHECK(silu_mul.op().target() == std::optional<std::string>("cpu_ref"));
  CHECK(tooling::to_doubles(y) == round_to(dtypes::bfloat16, Buffer(8, 1.0 / (1.0 + std::exp(-1.0)))));
}

TEST_CASE("reducing an empty tensor to a non-empty result runs the kernel: sum 0 (torch.sum), mean NaN (torch.mean)") {
  Tensor x = Tensor::empty({0, 3}, dtypes::float32);
  Op sum("SumFwdOp");
  auto s = sum({x})[0];
  CHECK(s.ndim() == 0);
  CHECK(sum.target() == std::optional<std::string>("cpu_ref"));
  CHECK(tooling::to_doubles(s) == std::vector<double>{0.0});
  Op sum_rows("SumFwdOp", {{"dim", ints({0})}});
  CHECK(tooling::to_doubles(sum_rows({x})[0]) == std::vector<double>{0.0, 0.0, 0.0});
  Op mean("MeanFwdOp");
  auto m = tooling::to_doubles(mean({x})[0]);
  REQUIRE(m.size() == 1);
  CHECK(std::isnan(m[0]));
}
