// The error paths of the reference document, with their messages.
#include "acme_helpers.hpp"

#include <doctest/doctest.h>

using namespace tileops;
using namespace acme_test;

TEST_CASE("an op the target does not implement raises; there is no fall back") {
  Op op("LayerNormFwdOp", {{"normalized_shape", ints({8})}});
  CHECK_THROWS_WITH_AS(op({on_acme(random_cpu({2, 8}, 21))}),
                       "target 'acme' registers no kernel builder for LayerNormFwdOp; targets that do: ['cpu_ref']. "
                       "There is no fall back to the in-tree implementation: those kernels do not run on this "
                       "target's devices.",
                       OpNotAvailableError);
}

TEST_CASE("an unregistered target named at construction or as the default raises, listing the known ones") {
  CHECK_THROWS_WITH_AS(Op("SoftmaxFwdOp", {}, "nope"),
                       "no backend registered target 'nope'; known targets: ['acme', 'cpu_ref']",
                       UnknownTargetError);
  CHECK_THROWS_WITH_AS(set_default_target("nope"),
                       "no backend registered target 'nope'; known targets: ['acme', 'cpu_ref']",
                       UnknownTargetError);
}

TEST_CASE("BUILTIN forces the in-tree kernels, which do not run on cpu") {
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({8})}}, std::string(BUILTIN));
  CHECK_THROWS_WITH_AS(op({random_cpu({2, 8}, 22)}),
                       "RMSNormFwdOp's in-tree kernels do not run on cpu; known targets for this op: ['acme', 'cpu_ref']",
                       OpNotAvailableError);
}

TEST_CASE("a failed call binds the op to no target") {
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({8})}});
  op({on_acme(random_cpu({2, 8}, 23))});
  REQUIRE(op.target() == "acme");
  // bfloat16 is inside the signature but acme's builder refuses it.
  Tensor bf = Tensor::empty({2, 8}, dtypes::bfloat16, Device("acme", 0));
  CHECK_THROWS_WITH_AS(op({bf}), doctest::Contains("acme RMSNormFwdOp needs float32 or float16, got bfloat16"),
                       OpNotAvailableError);
  CHECK_FALSE(op.target().has_value());
  CHECK(op.kernel_config().empty());
}

TEST_CASE("the process default comes before detection; BUILTIN as default turns substitution off") {
  set_default_target(std::string("cpu_ref"));
  Op op("SoftmaxFwdOp");
  CHECK_THROWS_AS(op({on_acme(random_cpu({2, 8}, 24))}), BackendError);  // cpu_ref cannot run acme tensors
  set_default_target(std::string(BUILTIN));
  Op builtin("SoftmaxFwdOp");
  CHECK_THROWS_WITH_AS(builtin({random_cpu({2, 8}, 25)}), doctest::Contains("in-tree kernels do not run on cpu"),
                       OpNotAvailableError);
  set_default_target(std::nullopt);
  Op detected("SoftmaxFwdOp");
  detected({random_cpu({2, 8}, 26)});
  CHECK(detected.target() == "cpu_ref");
}

TEST_CASE("an unknown op name suggests the nearest manifest names") {
  CHECK_THROWS_WITH_AS(Op("RMSNormFwOp"), doctest::Contains("unknown op 'RMSNormFwOp'; did you mean RMSNormFwdOp"),
                       ValueError);
}
