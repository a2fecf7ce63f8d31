#pragma once
// Shared by the acme suites: tensors on acme devices and a reference RMSNorm.
#include <tileops/tileops.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <random>
#include <vector>

namespace acme_test {

inline tileops::Tensor random_cpu(std::initializer_list<int64_t> shape, unsigned seed) {
  auto t = tileops::Tensor::empty(shape, tileops::dtypes::float32);
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_ptr<float>()[i] = dist(gen);
  return t;
}

inline tileops::Tensor on_acme(const tileops::Tensor& t, int index = 0) {
  return t.to(tileops::Device("acme", index));
}

// rms_norm over the last dim, in double.
inline std::vector<double> rms_norm_ref(const tileops::Tensor& x, const tileops::Tensor* w, double eps) {
  const int64_t n = x.shape().back(), rows = x.numel() / n;
  std::vector<double> out(size_t(x.numel()));
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < n; ++i) ss += double(x.data_ptr<float>()[r * n + i]) * x.data_ptr<float>()[r * n + i];
    double scale = 1.0 / std::sqrt(ss / double(n) + eps);
    for (int64_t i = 0; i < n; ++i)
      out[size_t(r * n + i)] = x.data_ptr<float>()[r * n + i] * scale * (w ? w->data_ptr<float>()[i] : 1.0);
  }
  return out;
}

inline nlohmann::json config(const tileops::Op& op) {
  auto text = op.kernel_config();
  return text.empty() ? nlohmann::json() : nlohmann::json::parse(text);
}

}  // namespace acme_test
