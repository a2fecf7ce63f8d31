#include "kernels/norm.hpp"

#include "numeric.hpp"

#include <cmath>
#include <vector>

namespace tileops::cpu_ref {

namespace {

// Scales one row by 1 / sqrt(mean(row^2) + eps) and the optional weight.
template <class T>
void rms_norm_row(const double* row, const T* weight, T* y, int64_t cols, double eps) {
  double sum_sq = 0;
  for (int64_t j = 0; j < cols; ++j) sum_sq += row[j] * row[j];
  const double inv_rms = 1.0 / std::sqrt(sum_sq / double(cols) + eps);
  for (int64_t j = 0; j < cols; ++j) {
    const double w = weight ? to_double(weight[j]) : 1.0;
    y[j] = from_double<T>(row[j] * inv_rms * w);
  }
}

}  // namespace

template <class T>
void rms_norm(const T* x, const T* weight, T* y, int64_t rows, int64_t cols, double eps) {
  std::vector<double> row(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) row[size_t(j)] = to_double(x[r * cols + j]);
    rms_norm_row(row.data(), weight, y + r * cols, cols, eps);
  }
}

template <class T>
void fused_add_rms_norm(const T* x, T* residual, const T* weight, T* y, int64_t rows,
                        int64_t cols, double eps) {
  std::vector<double> row(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t i = r * cols + j;
      residual[i] = from_double<T>(to_double(residual[i]) + to_double(x[i]));
      row[size_t(j)] = to_double(residual[i]);  // the stored (rounded) sum is normalised
    }
    rms_norm_row(row.data(), weight, y + r * cols, cols, eps);
  }
}

template <class T>
void layer_norm(const T* x, const T* weight, const T* bias, T* y, int64_t rows, int64_t cols,
                double eps) {
  std::vector<double> row(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t j = 0; j < cols; ++j) sum += row[size_t(j)] = to_double(x[r * cols + j]);
    const double mean = sum / double(cols);
    double sum_sq = 0;  // two passes: no cancellation
    for (int64_t j = 0; j < cols; ++j) sum_sq += (row[size_t(j)] - mean) * (row[size_t(j)] - mean);
    const double inv_std = 1.0 / std::sqrt(sum_sq / double(cols) + eps);
    for (int64_t j = 0; j < cols; ++j) {
      double v = (row[size_t(j)] - mean) * inv_std;
      if (weight) v *= to_double(weight[j]);
      if (bias) v += to_double(bias[j]);
      y[r * cols + j] = from_double<T>(v);
    }
  }
}

template <class T>
void group_norm(const T* x, const T* weight, const T* bias, T* y, int64_t batch,
                int64_t channels, int64_t spatial, int64_t groups, double eps) {
  const int64_t per_group = channels / groups;
  const int64_t group_size = per_group * spatial;  // one group's elements are contiguous
  std::vector<double> vals(static_cast<size_t>(group_size));
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t base = (n * channels + g * per_group) * spatial;
      double sum = 0;
      for (int64_t i = 0; i < group_size; ++i) sum += vals[size_t(i)] = to_double(x[base + i]);
      const double mean = sum / double(group_size);
      double sum_sq = 0;
      for (double v : vals) sum_sq += (v - mean) * (v - mean);
      const double inv_std = 1.0 / std::sqrt(sum_sq / double(group_size) + eps);
      for (int64_t i = 0; i < group_size; ++i) {
        const int64_t c = g * per_group + i / spatial;
        double v = (vals[size_t(i)] - mean) * inv_std;
        if (weight) v *= to_double(weight[c]);
        if (bias) v += to_double(bias[c]);
        y[base + i] = from_double<T>(v);
      }
    }
  }
}

#define CPU_REF_INSTANTIATE(T)                                                                \
  template void rms_norm<T>(const T*, const T*, T*, int64_t, int64_t, double);                \
  template void fused_add_rms_norm<T>(const T*, T*, const T*, T*, int64_t, int64_t, double);  \
  template void layer_norm<T>(const T*, const T*, const T*, T*, int64_t, int64_t, double);    \
  template void group_norm<T>(const T*, const T*, const T*, T*, int64_t, int64_t, int64_t,    \
                              int64_t, double);
CPU_REF_INSTANTIATE(float)
CPU_REF_INSTANTIATE(f16)
CPU_REF_INSTANTIATE(bf16)
#undef CPU_REF_INSTANTIATE

}  // namespace tileops::cpu_ref
