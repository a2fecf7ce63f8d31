// Elementwise ops: activations, gated activations (act(x[..., :n]) * x[..., n:]), and
// add / mul with broadcasting. Math in fp32 for floating types (torch's opmath), with the
// special-function unit's exp and reciprocal (relative error ~1e-6); relu and add stay
// exact for integers.
//
// Every kernel is grid-stride over vectors of V elements, U vectors in flight per thread,
// with a grid sized from the SM count by the host; V = 1 variants serve misaligned
// pointers and lengths that are not a multiple of the vector width.
#pragma once
#include "common.cuh"

namespace tileops_cuda {

// erf to within 3e-7 (Abramowitz and Stegun 7.1.28): a polynomial, four squarings and a
// reciprocal, about half the instructions of erff, which would make GELU compute-bound.
__device__ __forceinline__ float fast_erf(float x) {
  const float a = fabsf(x);
  float p = fmaf(fmaf(fmaf(fmaf(fmaf(4.30638e-5f, a, 2.765672e-4f), a, 1.520143e-4f), a, 9.2705272e-3f), a,
                      4.22820123e-2f), a, 7.05230784e-2f);
  p = fmaf(p, a, 1.f);
  p *= p;  // ^2
  p *= p;  // ^4
  p *= p;  // ^8
  p *= p;  // ^16
  return copysignf(1.f - fast_rcp(p), x);
}

template <int ACT>
__device__ __forceinline__ float activate(float x) {
  if constexpr (ACT == kRelu) {
    return x < 0.f ? 0.f : x;  // NaN stays NaN, as in torch
  } else if constexpr (ACT == kGelu) {
    return 0.5f * x * (1.f + fast_erf(x * 0.7071067811865476f));
  } else if constexpr (ACT == kGeluTanh) {
    // 0.5 (1 + tanh(u)) = sigmoid(2u)
    const float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return x * fast_rcp(1.f + fast_exp(-2.f * u));
  } else if constexpr (ACT == kSilu) {
    return x * fast_rcp(1.f + fast_exp(-x));
  } else {
    static_assert(ACT == kSigmoid, "unknown activation");
    return fast_rcp(1.f + fast_exp(-x));
  }
}

template <class T, int ACT, int V>
__device__ __forceinline__ Vec<T, V> apply(const Vec<T, V>& in) {
  if constexpr (IsFloat<T>::value) {
    float f[V];
#pragma unroll
    for (int k = 0; k < V; ++k) f[k] = activate<ACT>(in.get_float(k));
    return to_vec<T, V>(f);
  } else {
    static_assert(ACT == kRelu, "integers have relu only");
    Vec<T, V> out = {};
#pragma unroll
    for (int k = 0; k < V; ++k) out.set(k, in.get(k) < T(0) ? T(0) : in.get(k));
    return out;
  }
}

template <class T, int ACT, int V, int U>
__global__ void __launch_bounds__(256) unary(const UnaryParams p) {
  const T* x = static_cast<const T*>(p.x);
  T* y = static_cast<T*>(p.y);
  const i64 nvec = p.n / V;
  const i64 stride = i64(gridDim.x) * blockDim.x * U;
  for (i64 base = i64(blockIdx.x) * blockDim.x * U + threadIdx.x; base < nvec; base += stride) {
    Vec<T, V> v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (base + u * blockDim.x < nvec) v[u] = load<T, V>(x + (base + u * blockDim.x) * V);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (base + u * blockDim.x >= nvec) break;
      store<T, V>(y + (base + u * blockDim.x) * V, apply<T, ACT, V>(v[u]));
    }
  }
}

// Rows of 2n elements in, rows of n out. Flat over rows * n / V vectors.
template <class T, int ACT, int V, int U>
__global__ void __launch_bounds__(256) gated(const GatedParams p) {
  const T* x = static_cast<const T*>(p.x);
  T* y = static_cast<T*>(p.y);
  const i64 total = p.rows * (p.n / V);
  const i64 stride = i64(gridDim.x) * blockDim.x * U;
  for (i64 base = i64(blockIdx.x) * blockDim.x * U + threadIdx.x; base < total; base += stride) {
    Vec<T, V> a[U], b[U];
    i64 out[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const i64 f = base + u * blockDim.x;
      if (f >= total) break;
      const u32 r = fast_div(u32(f), p.n_vec);
      const i64 j = (f - i64(r) * p.n_vec.divisor) * V;
      const T* row = x + i64(r) * 2 * p.n;
      a[u] = load<T, V>(row + j);
      b[u] = load<T, V>(row + p.n + j);
      out[u] = i64(r) * p.n + j;
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (base + u * blockDim.x >= total) break;
      float o[V];
#pragma unroll
      for (int k = 0; k < V; ++k) o[k] = activate<ACT>(a[u].get_float(k)) * b[u].get_float(k);
      store_float<T, V>(y + out[u], o);
    }
  }
}

template <class T, int OP, int V>
__device__ __forceinline__ Vec<T, V> combine(const Vec<T, V>& a, const Vec<T, V>& b, const BinaryParams& p) {
  if constexpr (IsFloat<T>::value) {
    float o[V];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const float fa = a.get_float(k), fb = b.get_float(k);
      o[k] = OP == kAdd ? fa + p.alpha * fb : fa * fb;
    }
    return to_vec<T, V>(o);
  } else {
    static_assert(OP == kAdd, "integers have add only");
    Vec<T, V> o = {};
#pragma unroll
    for (int k = 0; k < V; ++k) o.set(k, T(i64(a.get(k)) + p.alpha_int * i64(b.get(k))));
    return o;
  }
}

// V elements of an operand at (row, col): a vector load when its column stride is 1,
// one element repeated when it is 0 (broadcast along the row).
template <class T, int V>
__device__ __forceinline__ Vec<T, V> operand(const T* base, i64 row_stride, int col_stride, i64 r, i64 c) {
  if (col_stride) return load<T, V>(base + r * row_stride + c);
  const T one = load_cached<T, 1>(base + r * row_stride).get(0);
  Vec<T, V> v = {};
#pragma unroll
  for (int k = 0; k < V; ++k) v.set(k, one);
  return v;
}

// y[r, c] = a[r, c] op b[r, c] over [rows, cols], flat over rows * cols / V vectors.
template <class T, int OP, int V, int U>
__global__ void __launch_bounds__(256) binary(const BinaryParams p) {
  const T* a = static_cast<const T*>(p.a);
  const T* b = static_cast<const T*>(p.b);
  T* y = static_cast<T*>(p.y);
  const i64 total = p.rows * (p.cols / V);
  const i64 stride = i64(gridDim.x) * blockDim.x * U;
  for (i64 base = i64(blockIdx.x) * blockDim.x * U + threadIdx.x; base < total; base += stride) {
    Vec<T, V> va[U], vb[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const i64 f = base + u * blockDim.x;
      if (f >= total) break;
      const u32 r = fast_div(u32(f), p.cols_vec);
      const i64 c = (f - i64(r) * p.cols_vec.divisor) * V;
      va[u] = operand<T, V>(a, p.a_row_stride, p.a_col_stride, r, c);
      vb[u] = operand<T, V>(b, p.b_row_stride, p.b_col_stride, r, c);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const i64 f = base + u * blockDim.x;
      if (f >= total) break;
      store<T, V>(y + f * V, combine<T, OP, V>(va[u], vb[u], p));
    }
  }
}

// Any broadcast: element by element through shape and per-operand strides (0 where an
// operand is broadcast), for what does not coalesce into two dims.
template <class T, int OP>
__global__ void __launch_bounds__(256) binary_nd(const BinaryParams p) {
  const T* a = static_cast<const T*>(p.a);
  const T* b = static_cast<const T*>(p.b);
  T* y = static_cast<T*>(p.y);
  const i64 total = p.rows * p.cols;
  for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += i64(gridDim.x) * blockDim.x) {
    i64 oa = 0, ob = 0;
    for (i64 rest = i, d = p.ndim - 1; d >= 0; --d) {
      const i64 idx = rest % p.shape[d];
      rest /= p.shape[d];
      oa += idx * p.a_stride[d];
      ob += idx * p.b_stride[d];
    }
    store<T, 1>(y + i, combine<T, OP, 1>(load<T, 1>(a + oa), load<T, 1>(b + ob), p));
  }
}

}  // namespace tileops_cuda
