#pragma once
// Elementwise ops over contiguous row-major buffers of n elements. T: float, f16, bf16;
// the ops that also take integers say so. Floating math is done in double and rounded
// once on store.
#include <cstdint>
#include <span>

namespace tileops::cpu_ref {

enum class GeluApprox { none, tanh };

// The activations, as torch defines them.
//   relu(x)    = max(x, 0), NaN stays NaN. Also T = int32_t, int64_t.
//   gelu(x)    = x/2 (1 + erf(x / sqrt(2)))                    (none)
//              = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))   (tanh)
//   silu(x)    = x / (1 + exp(-x))
//   sigmoid(x) = 1 / (1 + exp(-x))
double gelu(double x, GeluApprox approximate);
double silu(double x);
double sigmoid(double x);

template <class T>
void relu(const T* x, T* y, int64_t n);
template <class T>
void gelu(const T* x, T* y, int64_t n, GeluApprox approximate);
template <class T>
void silu(const T* x, T* y, int64_t n);
template <class T>
void sigmoid(const T* x, T* y, int64_t n);

// vLLM's gated activations on x [rows, 2 * half] -> y [rows, half]:
// y[r, j] = act(x[r, j]) * x[r, half + j].
template <class T>
void silu_and_mul(const T* x, T* y, int64_t rows, int64_t half);
template <class T>
void gelu_and_mul(const T* x, T* y, int64_t rows, int64_t half, GeluApprox approximate);

// The multiplier of b in add: `real` for floating T, `integral` (exact) for integers.
struct Alpha {
  double real = 1.0;
  int64_t integral = 1;
};

// y = a + alpha * b and y = a * b with numpy broadcasting: a's and b's shapes are
// right-aligned against y's, and a dim of 1 (or a missing one) repeats.
// Also T = int32_t, int64_t (wrapping, like torch's integer tensors).
template <class T>
void add(const T* a, std::span<const int64_t> a_shape, const T* b,
         std::span<const int64_t> b_shape, T* y, std::span<const int64_t> y_shape, Alpha alpha);
template <class T>
void mul(const T* a, std::span<const int64_t> a_shape, const T* b,
         std::span<const int64_t> b_shape, T* y, std::span<const int64_t> y_shape);

}  // namespace tileops::cpu_ref
