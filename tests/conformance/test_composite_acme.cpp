// The composite on a target that cannot serve its sub-ops: run with
// TILEOPS_PLUGIN_PATH=<vendor dir> (acme registers builders for RMSNormFwdOp and
// SoftmaxFwdOp only). The composite's sub-ops inherit its settled target, 'acme', and
// do not fall back to cpu_ref.
#include "support.hpp"

#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

#include <algorithm>

using namespace tileops;
using namespace conformance;

namespace {

Tensor random_acme(std::vector<int64_t> shape, uint64_t seed) {
  Tensor t = Tensor::empty(ShapeView(shape), dtypes::float32);
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> n(0.0, 1.0);
  std::vector<double> v(size_t(t.numel()));
  for (auto& x : v) x = n(gen);
  tooling::fill_from_doubles(t, v);
  return t.to(Device("acme", 0));
}

const char* const kNoGemm =
    "target 'acme' registers no kernel builder for GemmFwdOp; targets that do: ['cpu_ref']. There is no fall "
    "back to the in-tree implementation: those kernels do not run on this target's devices.";

}  // namespace

TEST_CASE("the acme vendor plugin is loaded next to cpu_ref") {
  auto targets = registered_targets();
  CHECK(targets == std::vector<std::string>{"acme", "cpu_ref"});
  CHECK(registered_targets("SwiGLUMLPFwdOp").empty());  // a composite: nobody registers a builder
  CHECK(registered_targets("GemmFwdOp") == std::vector<std::string>{"cpu_ref"});
  // what acme does serve runs on acme
  Op rms("RMSNormFwdOp", {{"normalized_shape", ints({8})}});
  Tensor y = rms({random_acme({3, 8}, 1)})[0];
  CHECK(rms.target() == std::optional<std::string>("acme"));
  CHECK(y.device() == Device("acme", 0));
}

TEST_CASE("SwiGLUMLPFwdOp on acme tensors: OpNotAvailableError naming GemmFwdOp and target 'acme'") {
  Op mlp("SwiGLUMLPFwdOp");
  std::vector<Tensor> inputs = {random_acme({4, 8}, 2), random_acme({12, 8}, 3), random_acme({8, 6}, 4)};
  CHECK_THROWS_WITH_AS(mlp(inputs), kNoGemm, OpNotAvailableError);
  CHECK_FALSE(mlp.target().has_value());  // the failed call settled nothing
  // the same again: the failure revoked the route, the next call settles (and fails) anew
  CHECK_THROWS_WITH_AS(mlp(inputs), kNoGemm, OpNotAvailableError);

  // the typed class the same way
  composite::SwiGLUMLPFwdOp typed;
  CHECK_THROWS_WITH_AS(typed(inputs[0], inputs[1], inputs[2]), kNoGemm, OpNotAvailableError);

  // naming target acme at construction: the same
  Op named("SwiGLUMLPFwdOp", {}, std::string("acme"));
  CHECK_THROWS_WITH_AS(named(inputs), kNoGemm, OpNotAvailableError);
}

TEST_CASE("with acme loaded, the composite still runs on cpu tensors through cpu_ref") {
  Op mlp("SwiGLUMLPFwdOp");
  std::vector<Tensor> inputs;
  for (const auto& t : {random_acme({4, 8}, 5), random_acme({12, 8}, 6), random_acme({8, 6}, 7)})
    inputs.push_back(t.to(Device::cpu()));
  Tensor y = mlp(inputs)[0];
  CHECK(mlp.target() == std::optional<std::string>("cpu_ref"));
  CHECK(shape_of(y) == std::vector<int64_t>{4, 8});
  OpCase c{"acme-cpu", "SwiGLUMLPFwdOp", {},
           {in("x", dtypes::float32, {4, 8}), in("w_gate_up", dtypes::float32, {12, 8}),
            in("w_down", dtypes::float32, {8, 6})},
           {out("y", dtypes::float32, {4, 8})}};
  auto ref = reference(c, {tooling::to_doubles(inputs[0]), tooling::to_doubles(inputs[1]), tooling::to_doubles(inputs[2])});
  CHECK(tooling::relative_error(y, as_tensor(ref[0], {4, 8})) <= 1e-5);
}
