// A model-like sequence: RMSNorm -> GEMM (gate and up, trans_b) -> SiluAndMul -> GEMM
// (down, trans_b) against the composite SwiGLUMLPFwdOp on the normalised input.
#include "support.hpp"

#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

using namespace tileops;
using namespace conformance;

namespace {

Tensor random(std::vector<int64_t> shape, double scale, uint64_t seed) {
  Tensor t = Tensor::empty(ShapeView(shape), dtypes::float32);
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> n(0.0, scale);
  std::vector<double> v(size_t(t.numel()));
  for (auto& x : v) x = n(gen);
  tooling::fill_from_doubles(t, v);
  return t;
}

}  // namespace

TEST_CASE("RMSNorm -> GEMM -> SiluAndMul -> GEMM equals the composite SwiGLUMLPFwdOp (float32)") {
  const int64_t tokens = 7, hidden = 24, inter = 40;
  Tensor x = random({tokens, hidden}, 1.0, 1);
  Tensor norm_w = random({hidden}, 1.0, 2);
  Tensor w_gate_up = random({2 * inter, hidden}, 0.2, 3);
  Tensor w_down = random({hidden, inter}, 0.2, 4);

  Op rms("RMSNormFwdOp", {{"normalized_shape", ints({hidden})}, {"eps", 1e-5}});
  Op gate_up("GemmFwdOp", {{"trans_b", true}});
  Op act("SiluAndMulFwdOp");
  Op down("GemmFwdOp", {{"trans_b", true}});
  Op mlp("SwiGLUMLPFwdOp");

  Tensor h = rms({x, norm_w})[0];
  Tensor gu = gate_up({h, w_gate_up})[0];
  CHECK(shape_of(gu) == std::vector<int64_t>{tokens, 2 * inter});
  Tensor a = act({gu})[0];
  CHECK(shape_of(a) == std::vector<int64_t>{tokens, inter});
  Tensor y = down({a, w_down})[0];
  CHECK(shape_of(y) == std::vector<int64_t>{tokens, hidden});
  for (Op* op : {&rms, &gate_up, &act, &down}) CHECK(op->target() == std::optional<std::string>("cpu_ref"));

  Tensor y_mlp = mlp({h, w_gate_up, w_down})[0];
  CHECK(mlp.target() == std::optional<std::string>("cpu_ref"));  // the composition ran on cpu_ref's kernels
  CHECK(shape_of(y_mlp) == std::vector<int64_t>{tokens, hidden});
  CHECK(y_mlp.data() != y.data());
  CHECK(tooling::relative_error(y_mlp, y) <= 1e-6);

  // and both agree with the independent reference of the composite
  OpCase c{"model", "SwiGLUMLPFwdOp", {},
           {in("x", dtypes::float32, {tokens, hidden}), in("w_gate_up", dtypes::float32, {2 * inter, hidden}),
            in("w_down", dtypes::float32, {hidden, inter})},
           {out("y", dtypes::float32, {tokens, hidden})}};
  auto ref = reference(c, {tooling::to_doubles(h), tooling::to_doubles(w_gate_up), tooling::to_doubles(w_down)});
  CHECK(tooling::relative_error(y_mlp, as_tensor(ref[0], {tokens, hidden})) <= 1e-5);

  // a second call reuses the composite's sub-ops and gives the same bits
  Tensor again = mlp({h, w_gate_up, w_down})[0];
  CHECK(bit_identical(again, y_mlp));
}
