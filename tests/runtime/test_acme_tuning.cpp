// A tuning request reaches the kernels built before and after it, once per device;
// kernel_config reports a kernel's config; both are safe beside calls from other threads.
#include "acme_helpers.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <thread>
#include <vector>

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

TEST_CASE("configs and tuning asked from several threads while others call the op") {
  // The ABI lets a kernel's config_json answer in storage its next call reuses: the host
  // must never have two of them (nor a request_tune) in flight on one kernel.
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({16})}});
  const Tensor x = on_acme(random_cpu({2, 16}, 84), 1);
  op({x});
  constexpr int kThreads = 6, kRounds = 200;
  std::atomic<int> bad_configs{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        if (t == 0) {
          op.request_tune();
        } else if (t % 2) {
          if (config(op)["kernel"] != "acme_rms_norm") ++bad_configs;
        } else {
          op({x});
        }
      }
    });
  for (auto& th : threads) th.join();
  CHECK(bad_configs == 0);
  CHECK(config(op)["tuned"]["acme:1"] == kRounds);
  CHECK(config(op)["launches"] == 1 + 2 * kRounds);
}
