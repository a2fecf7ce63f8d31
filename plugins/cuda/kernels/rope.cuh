// Rotary position embedding of x [tokens, heads, head_dim] by cos_sin_cache [P, R]
// (row p: cos(p * theta_0 .. theta_{R/2-1}), then sin(...)), at positions [tokens].
//
// A thread does one work unit of one head of one token: a rotation unit (neox: V pairs
// (i, i + R/2); interleaved: V elements = V/2 pairs (2i, 2i + 1), or one pair when
// V is 1) or a pass-through unit (V elements of [R, head_dim), copied). A position outside [0, P) is reported through
// raise_value_error and its token's rotated elements are written as NaN, so no garbage
// passes for a result if the report is ignored.
#pragma once
#include "common.cuh"

namespace tileops_cuda {

template <class T, class P, int INTERLEAVED, int V>
__global__ void __launch_bounds__(256) rope(const RopeParams p) {
  const T* x = static_cast<const T*>(p.x);
  T* y = static_cast<T*>(p.y);
  const P* positions = static_cast<const P*>(p.positions);
  const i64 total = p.tokens * p.heads_units.divisor;
  for (i64 f = i64(blockIdx.x) * blockDim.x + threadIdx.x; f < total; f += i64(gridDim.x) * blockDim.x) {
    const u32 t = fast_div(u32(f), p.heads_units);
    const u32 in_token = u32(f - i64(t) * p.heads_units.divisor);
    const u32 h = fast_div(in_token, p.units);
    const int u = int(in_token - h * p.units.divisor);
    const i64 head = (i64(t) * p.heads + h) * p.head_dim;
    if (u >= p.rot_units) {  // pass-through
      const i64 e = p.rot_dim + i64(u - p.rot_units) * V;
      store<T, V>(y + head + e, load<T, V, kStreamNoL1>(x + head + e));
      continue;
    }
    const i64 pos = i64(positions[t]);
    const bool bad = pos < 0 || pos >= p.max_positions;
    if (bad) raise_value_error(p.error, TILEOPS_CUDA_ERROR_POSITION, t, pos, p.max_positions);
    const float* cos = p.cache + (bad ? 0 : pos) * p.rot_dim;
    const float* sin = cos + p.rot_dim / 2;
    if constexpr (INTERLEAVED && V > 1) {
      const i64 e = i64(u) * V;  // elements e .. e + V: pairs e / 2 .. e / 2 + V / 2
      const Vec<T, V> in = load<T, V, kStreamNoL1>(x + head + e);
      float c[V / 2], s[V / 2];
      load_float<float, V / 2, kCached>(cos + e / 2, c);
      load_float<float, V / 2, kCached>(sin + e / 2, s);
      float out[V];
#pragma unroll
      for (int k = 0; k < V / 2; ++k) {
        const float x1 = in.get_float(2 * k), x2 = in.get_float(2 * k + 1);
        out[2 * k] = bad ? quiet_nan() : x1 * c[k] - x2 * s[k];
        out[2 * k + 1] = bad ? quiet_nan() : x2 * c[k] + x1 * s[k];
      }
      store_float<T, V>(y + head + e, out);
    } else {
      // Pairs (i1 + k, i2 + k) rotated by cos/sin[i + k]: neox i1 = i, i2 = i + R/2;
      // interleaved (V = 1) one pair i1 = 2i, i2 = 2i + 1.
      const i64 i = i64(u) * V;
      const i64 i1 = INTERLEAVED ? 2 * i : i;
      const i64 i2 = INTERLEAVED ? 2 * i + 1 : i + p.rot_dim / 2;
      const Vec<T, V> lo = load<T, V, kStreamNoL1>(x + head + i1);
      const Vec<T, V> hi = load<T, V, kStreamNoL1>(x + head + i2);
      float c[V], s[V];
      load_float<float, V, kCached>(cos + i, c);
      load_float<float, V, kCached>(sin + i, s);
      float out_lo[V], out_hi[V];
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const float x1 = lo.get_float(k), x2 = hi.get_float(k);
        out_lo[k] = bad ? quiet_nan() : x1 * c[k] - x2 * s[k];
        out_hi[k] = bad ? quiet_nan() : x2 * c[k] + x1 * s[k];
      }
      store_float<T, V>(y + head + i1, out_lo);
      store_float<T, V>(y + head + i2, out_hi);
    }
  }
}

}  // namespace tileops_cuda
