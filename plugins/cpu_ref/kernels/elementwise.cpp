#include "kernels/elementwise.hpp"

#include "kernels/indexing.hpp"
#include "numeric.hpp"

#include <cmath>
#include <numbers>

namespace tileops::cpu_ref {

// Both forms are evaluated without the cancellation of 1 + erf(z) or 1 + tanh(z) for
// negative z, so the negative tail keeps its relative accuracy:
//   1 + erf(z) = erfc(-z),   (1 + tanh(z)) / 2 = 1 / (1 + exp(-2z)).
double gelu(double x, GeluApprox approximate) {
  if (approximate == GeluApprox::tanh) {
    const double z = std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x);
    return x / (1.0 + std::exp(-2.0 * z));
  }
  return 0.5 * x * std::erfc(-x / std::numbers::sqrt2);
}

double silu(double x) { return x / (1.0 + std::exp(-x)); }

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

namespace {

// y[i] = f(x[i]) in double.
template <class T, class F>
void map(const T* x, T* y, int64_t n, F&& f) {
  for (int64_t i = 0; i < n; ++i) y[i] = from_double<T>(f(to_double(x[i])));
}

// y[r, j] = f(x[r, j]) * x[r, half + j].
template <class T, class F>
void gated(const T* x, T* y, int64_t rows, int64_t half, F&& f) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* gate = x + r * 2 * half;
    const T* up = gate + half;
    for (int64_t j = 0; j < half; ++j)
      y[r * half + j] = from_double<T>(f(to_double(gate[j])) * to_double(up[j]));
  }
}

// The strides that read `shape` broadcast to `out_shape` (0 where it repeats).
Shape broadcast_strides(std::span<const int64_t> shape, std::span<const int64_t> out_shape) {
  const Shape own = contiguous_strides(shape);
  Shape strides(out_shape.size(), 0);
  const size_t lead = out_shape.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1) strides[lead + d] = own[d];
  return strides;
}

// y = f(a, b) under broadcasting.
template <class T, class F>
void binary(const T* a, std::span<const int64_t> a_shape, const T* b,
            std::span<const int64_t> b_shape, T* y, std::span<const int64_t> y_shape, F&& f) {
  const Shape a_strides = broadcast_strides(a_shape, y_shape);
  const Shape b_strides = broadcast_strides(b_shape, y_shape);
  const Shape y_strides = contiguous_strides(y_shape);
  for_each_offset<3>(y_shape, {a_strides, b_strides, y_strides},
                     [&](int64_t ao, int64_t bo, int64_t yo) { y[yo] = f(a[ao], b[bo]); });
}

}  // namespace

template <class T>
void relu(const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = (widen(x[i]) > 0 || is_nan(x[i])) ? x[i] : T{};
}

template <class T>
void gelu(const T* x, T* y, int64_t n, GeluApprox approximate) {
  map(x, y, n, [=](double v) { return gelu(v, approximate); });
}

template <class T>
void silu(const T* x, T* y, int64_t n) {
  map(x, y, n, [](double v) { return silu(v); });
}

template <class T>
void sigmoid(const T* x, T* y, int64_t n) {
  map(x, y, n, [](double v) { return sigmoid(v); });
}

template <class T>
void silu_and_mul(const T* x, T* y, int64_t rows, int64_t half) {
  gated(x, y, rows, half, [](double v) { return silu(v); });
}

template <class T>
void gelu_and_mul(const T* x, T* y, int64_t rows, int64_t half, GeluApprox approximate) {
  gated(x, y, rows, half, [=](double v) { return gelu(v, approximate); });
}

template <class T>
void add(const T* a, std::span<const int64_t> a_shape, const T* b,
         std::span<const int64_t> b_shape, T* y, std::span<const int64_t> y_shape, Alpha alpha) {
  if constexpr (is_integer_v<T>) {
    const T k = static_cast<T>(alpha.integral);
    binary(a, a_shape, b, b_shape, y, y_shape,
           [=](T u, T v) { return wrapping_add(u, wrapping_mul(k, v)); });
  } else {
    binary(a, a_shape, b, b_shape, y, y_shape, [=](T u, T v) {
      return from_double<T>(to_double(u) + alpha.real * to_double(v));
    });
  }
}

template <class T>
void mul(const T* a, std::span<const int64_t> a_shape, const T* b,
         std::span<const int64_t> b_shape, T* y, std::span<const int64_t> y_shape) {
  if constexpr (is_integer_v<T>) {
    binary(a, a_shape, b, b_shape, y, y_shape, [](T u, T v) { return wrapping_mul(u, v); });
  } else {
    binary(a, a_shape, b, b_shape, y, y_shape,
           [](T u, T v) { return from_double<T>(to_double(u) * to_double(v)); });
  }
}

#define CPU_REF_SHAPE std::span<const int64_t>
#define CPU_REF_INSTANTIATE_FLOAT(T)                                     \
  template void gelu<T>(const T*, T*, int64_t, GeluApprox);              \
  template void silu<T>(const T*, T*, int64_t);                          \
  template void sigmoid<T>(const T*, T*, int64_t);                       \
  template void silu_and_mul<T>(const T*, T*, int64_t, int64_t);         \
  template void gelu_and_mul<T>(const T*, T*, int64_t, int64_t, GeluApprox);
#define CPU_REF_INSTANTIATE_ANY(T)                                                          \
  template void relu<T>(const T*, T*, int64_t);                                             \
  template void add<T>(const T*, CPU_REF_SHAPE, const T*, CPU_REF_SHAPE, T*, CPU_REF_SHAPE, \
                       Alpha);                                                              \
  template void mul<T>(const T*, CPU_REF_SHAPE, const T*, CPU_REF_SHAPE, T*, CPU_REF_SHAPE);
CPU_REF_INSTANTIATE_FLOAT(float)
CPU_REF_INSTANTIATE_FLOAT(f16)
CPU_REF_INSTANTIATE_FLOAT(bf16)
CPU_REF_INSTANTIATE_ANY(float)
CPU_REF_INSTANTIATE_ANY(f16)
CPU_REF_INSTANTIATE_ANY(bf16)
CPU_REF_INSTANTIATE_ANY(int32_t)
CPU_REF_INSTANTIATE_ANY(int64_t)
#undef CPU_REF_INSTANTIATE_FLOAT
#undef CPU_REF_INSTANTIATE_ANY
#undef CPU_REF_SHAPE

}  // namespace tileops::cpu_ref
