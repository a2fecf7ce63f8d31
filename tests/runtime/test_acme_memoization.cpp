// When build_kernel is called again: once per device and input signature.
#include "acme_helpers.hpp"

#include <doctest/doctest.h>

using namespace tileops;
using namespace acme_test;

namespace {
int builds(const Op& op) { return config(op)["builds"].get<int>(); }
}  // namespace

TEST_CASE("the same device and input signature reuse the kernel") {
  Op op("SoftmaxFwdOp");
  Tensor x = on_acme(random_cpu({4, 16}, 31));
  op({x});
  const int after_first = builds(op);
  for (int i = 0; i < 5; ++i) op({on_acme(random_cpu({4, 16}, 32 + i))});
  CHECK(builds(op) == after_first);
  CHECK(config(op)["launches"] == 6);
}

TEST_CASE("a new shape or dtype builds again") {
  Op op("SoftmaxFwdOp");
  op({on_acme(random_cpu({4, 16}, 41))});
  const int first = builds(op);
  op({on_acme(random_cpu({4, 17}, 42))});
  CHECK(builds(op) == first + 1);
  Tensor half = Tensor::empty({4, 16}, dtypes::float16, Device("acme", 0));
  op({half});
  CHECK(builds(op) == first + 2);
}

TEST_CASE("a second device builds again") {
  Op op("SoftmaxFwdOp");
  op({on_acme(random_cpu({4, 16}, 51), 0)});
  const int first = builds(op);
  op({on_acme(random_cpu({4, 16}, 52), 1)});
  CHECK(builds(op) == first + 1);
  op({on_acme(random_cpu({4, 16}, 53), 0)});
  CHECK(builds(op) == first + 1);
}

TEST_CASE("an omitted optional input is part of the key") {
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({16})}});
  Tensor x = on_acme(random_cpu({2, 16}, 61));
  op({x});
  const int first = builds(op);
  op({x, on_acme(random_cpu({16}, 62))});
  CHECK(builds(op) == first + 1);
  op({x});
  op({x, on_acme(random_cpu({16}, 63))});
  CHECK(builds(op) == first + 1);
}

TEST_CASE("params are not part of the key: they are fixed per instance") {
  Op a("SoftmaxFwdOp", {{"dim", 0}});
  Op b("SoftmaxFwdOp", {{"dim", 1}});
  Tensor x = on_acme(random_cpu({4, 16}, 71));
  a({x});
  const int after_a = builds(a);
  b({x});
  CHECK(builds(b) == after_a + 1);  // another instance: its own table
}
