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

// A grid-stride loop, a unit a step. PARTIAL (R < head_dim): unit u of a head is its
// rotation unit u (if u < rot_units) and its pass-through unit u (if u < pass_units), so
// that where R = head_dim / 2 (chatglm3's half-rotary heads) every thread does one of
// each and a warp runs one path, not a rotation path and a copy path one after the
// other (on the H200, chatglm3's [2048, 32, 128] 11.9 -> 11.3 us in 16-bit, 19.9 -> 18.9
// in fp32; docs/perf/cuda-kernels-h200.md, twenty-seventh round); every load (x's, the
// position's) is issued before either is used. Without PARTIAL the pass-through path is
// compiled out (it costs full-rotary neox heads 8 registers, a sixth CTA an SM). A
// thread reports the first bad position it met after its loop: a call inside the loop
// costs registers.
template <class T, class P, int INTERLEAVED, int V, int PARTIAL>
__global__ void __launch_bounds__(256) rope(const RopeParams p) {
  constexpr bool kWide = INTERLEAVED && V > 1;  // a unit is one vector of V / 2 adjacent pairs
  constexpr int kAngles = kWide ? V / 2 : V;
  const T* x = static_cast<const T*>(p.x);
  T* y = static_cast<T*>(p.y);
  const P* positions = static_cast<const P*>(p.positions);
  const i64 total = p.tokens * p.heads_units.divisor;
  i64 bad_token = -1;
  for (i64 f = i64(blockIdx.x) * blockDim.x + threadIdx.x; f < total; f += i64(gridDim.x) * blockDim.x) {
    const u32 t = fast_div(u32(f), p.heads_units);
    const u32 in_token = u32(f - i64(t) * p.heads_units.divisor);
    const u32 h = fast_div(in_token, p.units);
    const int u = int(in_token - h * p.units.divisor);
    const i64 head = (i64(t) * p.heads + h) * p.head_dim;
    const bool rotate = !PARTIAL || u < p.rot_units;
    const bool pass = PARTIAL && u < p.pass_units;
    // kWide: elements u * V .. + V, pairs u * V / 2 .. + V / 2. Otherwise pairs
    // (i1 + k, i2 + k) rotated by angle i + k: neox i1 = i, i2 = i + R/2; interleaved
    // (V = 1) one pair i1 = 2i, i2 = 2i + 1. Pass-through: V elements from R + u * V.
    const i64 i = i64(u) * V;
    const i64 i1 = kWide || !INTERLEAVED ? i : 2 * i;
    const i64 i2 = INTERLEAVED ? i1 + 1 : i1 + p.rot_dim / 2;
    const i64 ip = p.rot_dim + i;
    // With pass-through units the position is read first, else after x (the orders
    // measured fastest: chatglm3 0.79 -> 0.86 of copy; full-rotary heads unchanged).
    i64 pos = PARTIAL ? i64(positions[t]) : 0;
    Vec<T, V> lo, hi, through;
    if (rotate) lo = load<T, V, kStreamNoL1>(x + head + i1);
    if constexpr (!kWide)
      if (rotate) hi = load<T, V, kStreamNoL1>(x + head + i2);
    if (pass) through = load<T, V, kStreamNoL1>(x + head + ip);
    if constexpr (!PARTIAL) pos = i64(positions[t]);
    if (pass) store<T, V>(y + head + ip, through);
    if (!rotate) continue;
    const bool bad = pos < 0 || pos >= p.max_positions;
    const float* cos = p.cache + (bad ? 0 : pos) * p.rot_dim + (kWide ? i / 2 : i);
    float c[kAngles], s[kAngles];
    load_float<float, kAngles, kCached>(cos, c);
    load_float<float, kAngles, kCached>(cos + p.rot_dim / 2, s);
    if (bad && bad_token < 0) bad_token = t;
    if constexpr (kWide) {
      float out[V];
#pragma unroll
      for (int k = 0; k < V / 2; ++k) {
        const float x1 = lo.get_float(2 * k), x2 = lo.get_float(2 * k + 1);
        out[2 * k] = bad ? quiet_nan() : x1 * c[k] - x2 * s[k];
        out[2 * k + 1] = bad ? quiet_nan() : x2 * c[k] + x1 * s[k];
      }
      store_float<T, V>(y + head + i1, out);
    } else {
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
  if (bad_token >= 0)
    raise_value_error(p.error, TILEOPS_CUDA_ERROR_POSITION, bad_token, i64(positions[bad_token]), p.max_positions);
}

}  // namespace tileops_cuda
