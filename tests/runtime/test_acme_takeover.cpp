// A vendor plugin (target "acme" on the made-up device type "acme") takes over ops:
// numerics, validation before the backend, parameter normalisation, outputs.
#include "acme_helpers.hpp"

#include <doctest/doctest.h>

#include <cfloat>

using namespace tileops;
using namespace acme_test;

TEST_CASE("RMSNorm on acme tensors runs acme's kernel and matches the reference") {
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({64})}});
  Tensor x = random_cpu({4, 64}, 1), w = random_cpu({64}, 2);
  Tensor y = op({on_acme(x), on_acme(w)})[0];
  CHECK(op.target() == "acme");
  CHECK(y.device() == Device("acme", 0));
  CHECK(y.dtype() == dtypes::float32);
  CHECK(std::vector<int64_t>(y.shape().begin(), y.shape().end()) == std::vector<int64_t>{4, 64});
  Tensor host = y.to(Device::cpu());
  auto ref = rms_norm_ref(x, &w, FLT_EPSILON);  // eps None: finfo(float32).eps
  for (size_t i = 0; i < ref.size(); ++i) CHECK(host.data_ptr<float>()[i] == doctest::Approx(ref[i]).epsilon(1e-5));
}

TEST_CASE("an omitted optional input reaches the builder as absent") {
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({16})}, {"eps", 1e-3}});
  Tensor x = random_cpu({3, 16}, 3);
  Tensor y = op({on_acme(x)})[0].to(Device::cpu());
  auto ref = rms_norm_ref(x, nullptr, 1e-3);
  for (size_t i = 0; i < ref.size(); ++i) CHECK(y.data_ptr<float>()[i] == doctest::Approx(ref[i]).epsilon(1e-5));
}

TEST_CASE("a call that breaks the signature never reaches the backend") {
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({16})}});
  Tensor x = on_acme(random_cpu({3, 16}, 4));
  Tensor bad_w = on_acme(random_cpu({15}, 5));
  CHECK_THROWS_WITH_AS(op({x, bad_w}), doctest::Contains("input 'weight' has shape [15]"), ValueError);
  CHECK_FALSE(op.target().has_value());  // nothing was settled
  CHECK(op.kernel_config().empty());     // nothing was built
}

TEST_CASE("inputs on two devices are refused by the checks") {
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({16})}});
  Tensor x = on_acme(random_cpu({3, 16}, 6), 0);
  Tensor w = on_acme(random_cpu({16}, 7), 1);
  CHECK_THROWS_AS(op({x, w}), ValueError);
}

TEST_CASE("a non-contiguous input reaches the kernel contiguous") {
  Op op("SoftmaxFwdOp", {{"dim", 1}});
  Tensor x = random_cpu({8, 5}, 8);
  Tensor xt = on_acme(x).transpose(0, 1);  // [5, 8], strided
  Tensor y = op({xt})[0].to(Device::cpu());
  Tensor expected_in = x.transpose(0, 1).contiguous();
  for (int64_t r = 0; r < 5; ++r) {
    double sum = 0, mx = -1e30;
    for (int64_t c = 0; c < 8; ++c) mx = std::max<double>(mx, expected_in.data_ptr<float>()[r * 8 + c]);
    for (int64_t c = 0; c < 8; ++c) sum += std::exp(expected_in.data_ptr<float>()[r * 8 + c] - mx);
    for (int64_t c = 0; c < 8; ++c)
      CHECK(y.data_ptr<float>()[r * 8 + c] == doctest::Approx(std::exp(expected_in.data_ptr<float>()[r * 8 + c] - mx) / sum).epsilon(1e-5));
  }
}

TEST_CASE("a call whose written tensors are all empty runs nothing") {
  Op op("RMSNormFwdOp", {{"normalized_shape", ints({16})}});
  Tensor x = Tensor::empty({0, 16}, dtypes::float32, Device("acme", 0));
  Tensor y = op({x})[0];
  CHECK(y.numel() == 0);
  CHECK(y.device() == Device("acme", 0));
  CHECK(op.kernel_config().empty());
}
