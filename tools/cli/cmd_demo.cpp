// tileops demo: a small model-like sequence on the CPU through whatever target serves
// it (cpu_ref on a fresh install): RMSNorm -> GEMM (gate+up) -> SiluAndMul -> GEMM
// (down), with Llama-like proportions, and a check against the composite op.
#include "commands.hpp"

#include "tensor_values.hpp"

#include <tileops/tileops.hpp>

#include <chrono>
#include <iostream>
#include <random>

namespace tileops::cli {
namespace {

Tensor random(std::initializer_list<int64_t> shape, double scale, std::mt19937_64& gen) {
  Tensor t = Tensor::empty(shape, dtypes::float32);
  std::normal_distribution<double> n(0, scale);
  std::vector<double> v(size_t(t.numel()));
  for (auto& x : v) x = n(gen);
  tooling::fill_from_doubles(t, v);
  return t;
}

void demo() {
  const int64_t tokens = 16, hidden = 256, inter = 688;
  std::mt19937_64 gen(7);
  Tensor x = random({tokens, hidden}, 1.0, gen);
  Tensor norm_w = random({hidden}, 1.0, gen);
  Tensor w_gate_up = random({2 * inter, hidden}, 0.05, gen);
  Tensor w_down = random({hidden, inter}, 0.05, gen);

  Op rms("RMSNormFwdOp", {{"normalized_shape", ints({hidden})}, {"eps", 1e-5}});
  Op gate_up("GemmFwdOp", {{"trans_b", true}});
  Op act("SiluAndMulFwdOp");
  Op down("GemmFwdOp", {{"trans_b", true}});
  Op mlp("SwiGLUMLPFwdOp");

  auto start = std::chrono::steady_clock::now();
  Tensor h = rms({x, norm_w})[0];
  Tensor gu = gate_up({h, w_gate_up})[0];
  Tensor a = act({gu})[0];
  Tensor y = down({a, w_down})[0];
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  std::cout << "MLP block, " << tokens << " tokens, hidden " << hidden << ", intermediate " << inter << ":\n";
  std::cout << "  RMSNormFwdOp     [" << rms.target().value_or("?") << "]  -> " << tooling::describe(h) << "\n";
  std::cout << "  GemmFwdOp        [" << gate_up.target().value_or("?") << "]  -> " << tooling::describe(gu) << "\n";
  std::cout << "  SiluAndMulFwdOp  [" << act.target().value_or("?") << "]  -> " << tooling::describe(a) << "\n";
  std::cout << "  GemmFwdOp        [" << down.target().value_or("?") << "]  -> " << tooling::describe(y) << "\n";
  std::cout << "  " << ms << " ms for the four calls (first calls: kernels built)\n";

  Tensor y2 = mlp({h, w_gate_up, w_down})[0];
  double err = tooling::relative_error(y2, y);
  std::cout << "SwiGLUMLPFwdOp (composite of the last three) [" << mlp.target().value_or("?")
            << "]: relative difference " << err << "\n";
  if (!(err <= 1e-6)) throw BackendError("the composite disagrees with the sequence it composes");
}

}  // namespace

void add_demo_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("demo", "Run an MLP block (RMSNorm, GEMM, SiluAndMul, GEMM) on the CPU");
  cmd->callback([] { demo(); });
}

}  // namespace tileops::cli
