// A tuning request reaches the kernels built before and after it, once per device;
// kernel_config reports a kernel's config.
#include "acme_helpers.hpp"

#include <doctest/doctest.h>

using namespace tileops;
using namespace acme_test;

TEST_CASE("request_tune reaches kernels already built, once per request and device") {
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({16})}});
  op({on_acme(random_cpu({2, 16}, 81), 1)});
  CHECK(config(op)["tuned"].empty());
  op.request_tune();
  CHECK(config(op)["tuned"]["acme:1"] == 1);
  op.request_tune();
  CHECK(config(op)["tuned"]["acme:1"] == 2);
}

TEST_CASE("kernels built after request_tune are tuned before their first launch") {
  Op op("SoftmaxFwdOp");
  op.request_tune();
  op({on_acme(random_cpu({2, 16}, 82), 0)});
  auto cfg = config(op);
  CHECK(cfg["tuned"]["acme:0"] == 1);
  CHECK(cfg["launches"] == 1);
}

TEST_CASE("kernel_config is empty before any kernel exists, then the kernel's own config") {
  Op op("SoftmaxFwdOp");
  CHECK(op.kernel_config().empty());
  op({on_acme(random_cpu({2, 16}, 83))});
  CHECK(config(op)["kernel"] == "acme_softmax");
}
