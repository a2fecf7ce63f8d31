// Softmax and log-softmax of x viewed as [outer, len, inner] along len.
//
//   softmax_reg   inner == 1, the row stays in registers (read once, written once); TPR
//                 threads per row, RPC rows per CTA, or CLUSTER CTAs per row.
//   softmax_loop  inner == 1, any length: an online (max, sum) pass, then a write pass
//                 (whose reads mostly hit L2); CLUSTER CTAs split long rows.
//   softmax_col   inner > 1: TX threads across inner (V elements each) by TY threads
//                 down len, CLUSTER CTAs splitting len; an online pass, then a write pass.
// exp on the special-function unit (fast_exp); each exp is computed once per element in
// the register form. NaN anywhere in a row makes the whole row NaN (through the sum), as
// in torch.
#pragma once
#include "common.cuh"

namespace tileops_cuda {

// exp(x - m), with exp(-inf - -inf) taken as 0 rather than NaN: a share of a row that has
// seen only -inf so far contributes nothing.
__device__ __forceinline__ float exp_shifted(float x, float m) { return x == neg_inf() ? 0.f : fast_exp(x - m); }

// The output for x given the row's max m, 1 / sum and log(sum).
template <int LOG>
__device__ __forceinline__ float softmax_out(float x, float m, float inv_sum, float log_sum) {
  return LOG ? x - m - log_sum : fast_exp(x - m) * inv_sum;
}

// The `1` (blocks per SM) keeps ptxas from capping registers for occupancy, which
// spills part of the row to local memory.
template <class T, int LOG, int V, int ITEMS, int TPR, int RPC, int CLUSTER>
__global__ void __launch_bounds__(TPR* RPC, 1) softmax_reg(const SoftmaxParams p) {
  typedef RowGroup<TPR, RPC, CLUSTER> Group;
  __shared__ float buf0[Group::kBuf];
  __shared__ float buf1[Group::kBuf];
  const Group g;
  const bool active = g.row < p.outer;
  const i64 nvec = p.len / V;
  const T* x = static_cast<const T*>(p.x) + g.row * p.len;
  Vec<T, V> v[ITEMS];  // packed: 16-bit rows take half the registers of floats
  bool ok[ITEMS];
  float m = neg_inf();
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const i64 vi = (i64(g.rank) * ITEMS + i) * TPR + g.lane;
    ok[i] = active && vi < nvec;
    if (ok[i]) v[i] = load<T, V>(x + vi * V);
  }
#pragma unroll
  for (int i = 0; i < ITEMS; ++i)  // after every load is in flight
    if (ok[i])
#pragma unroll
      for (int k = 0; k < V; ++k) m = fmaxf(m, v[i].get_float(k));
  m = g.reduce(m, MaxOp(), buf0);
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i)
    if (ok[i])
#pragma unroll
      for (int k = 0; k < V; ++k) s += fast_exp(v[i].get_float(k) - m);
  s = g.reduce(s, SumOp(), buf1);
  const float inv_s = fast_rcp(s), log_s = LOG ? logf(s) : 0.f;
  T* y = static_cast<T*>(p.y) + g.row * p.len;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const i64 vi = (i64(g.rank) * ITEMS + i) * TPR + g.lane;
    if (!ok[i]) continue;
    float out[V];
#pragma unroll
    for (int k = 0; k < V; ++k) out[k] = softmax_out<LOG>(v[i].get_float(k), m, inv_s, log_s);
    store_float<T, V>(y + vi * V, out);
  }
  g.finish();
}

// A running maximum and the sum of exp(x - max) over what has been seen.
struct MaxSum {
  float m, s;
  // Adds V values at once: one rescale per vector rather than per element.
  template <int V>
  __device__ __forceinline__ void add(const float (&x)[V]) {
    float vm = x[0];
#pragma unroll
    for (int k = 1; k < V; ++k) vm = fmaxf(vm, x[k]);
    if (vm > m) {
      s *= exp_shifted(m, vm);
      m = vm;
    }
#pragma unroll
    for (int k = 0; k < V; ++k) s += exp_shifted(x[k], m);
  }
  __device__ __forceinline__ void add(float x) {
    const float one[1] = {x};
    add<1>(one);
  }
};
struct MaxSumOp {
  __device__ __forceinline__ MaxSum operator()(MaxSum a, MaxSum b) const {
    const float m = fmaxf(a.m, b.m);
    return {m, a.s * exp_shifted(a.m, m) + b.s * exp_shifted(b.m, m)};
  }
};

template <class T, int LOG, int V, int TPR, int CLUSTER>
__global__ void __launch_bounds__(TPR) softmax_loop(const SoftmaxParams p) {
  typedef RowGroup<TPR, 1, CLUSTER> Group;
  constexpr int U = 4;  // vectors in flight per thread
  __shared__ MaxSum buf[Group::kBuf];
  const Group g;
  const i64 nvec = p.len / V;
  const i64 per_cta = (nvec + CLUSTER - 1) / CLUSTER;
  const i64 begin = i64(g.rank) * per_cta;
  const i64 end = begin + per_cta < nvec ? begin + per_cta : nvec;
  const T* x = static_cast<const T*>(p.x) + g.row * p.len;
  MaxSum acc = {neg_inf(), 0.f};
  for (i64 i0 = begin + g.lane; i0 < end; i0 += i64(TPR) * U) {
    Vec<T, V> v[U];  // packed until used: more loads in flight for the registers
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (i0 + u * TPR < end) v[u] = load<T, V>(x + (i0 + u * TPR) * V);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (i0 + u * TPR >= end) continue;
      float f[V];
#pragma unroll
      for (int k = 0; k < V; ++k) f[k] = v[u].get_float(k);
      acc.add<V>(f);
    }
  }
  const MaxSum tot = g.reduce(acc, MaxSumOp(), buf);
  const float inv_s = fast_rcp(tot.s), log_s = LOG ? logf(tot.s) : 0.f;
  T* y = static_cast<T*>(p.y) + g.row * p.len;
  for (i64 i0 = begin + g.lane; i0 < end; i0 += i64(TPR) * U) {
    Vec<T, V> v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (i0 + u * TPR < end) v[u] = load_cached<T, V>(x + (i0 + u * TPR) * V);  // likely in L2
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (i0 + u * TPR >= end) continue;
      float out[V];
#pragma unroll
      for (int k = 0; k < V; ++k) out[k] = softmax_out<LOG>(v[u].get_float(k), tot.m, inv_s, log_s);
      store_float<T, V>(y + (i0 + u * TPR) * V, out);
    }
  }
  g.finish();
}

// Grid: x = outer * ceil(inner / (TX * V)) column tiles, times CLUSTER CTAs that split
// len. Each thread keeps V running (max, sum) pairs, one per column it owns.
template <class T, int LOG, int V, int TX, int TY, int CLUSTER>
__global__ void __launch_bounds__(TX* TY) softmax_col(const SoftmaxParams p) {
  constexpr int U = 4;  // rows in flight per thread
  __shared__ MaxSum part[TY][TX][V];
  __shared__ MaxSum cta[TX][V];
  const u32 rank = CLUSTER > 1 ? cluster_rank() : 0;
  const i64 tile = blockIdx.x / CLUSTER;
  const i64 tiles_per_outer = (p.inner / V + TX - 1) / TX;
  const i64 o = tile / tiles_per_outer;
  const i64 col = ((tile % tiles_per_outer) * TX + threadIdx.x) * V;
  const bool active = col < p.inner;
  const i64 per_cta = (p.len + CLUSTER - 1) / CLUSTER;
  const i64 begin = i64(rank) * per_cta;
  const i64 end = active ? (begin + per_cta < p.len ? begin + per_cta : p.len) : 0;
  const T* x = static_cast<const T*>(p.x) + o * p.len * p.inner + col;
  MaxSum acc[V];
#pragma unroll
  for (int k = 0; k < V; ++k) acc[k] = {neg_inf(), 0.f};
  for (i64 r0 = begin + threadIdx.y; r0 < end; r0 += i64(TY) * U) {
    float v[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (r0 + u * TY < end) load_float<T, V, kCached>(x + (r0 + u * TY) * p.inner, v[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (r0 + u * TY < end)
#pragma unroll
        for (int k = 0; k < V; ++k) acc[k].add(v[u][k]);
  }
#pragma unroll
  for (int k = 0; k < V; ++k) part[threadIdx.y][threadIdx.x][k] = acc[k];
  __syncthreads();
  if (threadIdx.y == 0) {
#pragma unroll
    for (int k = 0; k < V; ++k) {
      MaxSum t = part[0][threadIdx.x][k];
      for (int j = 1; j < TY; ++j) t = MaxSumOp()(t, part[j][threadIdx.x][k]);
      cta[threadIdx.x][k] = t;
    }
  }
  if constexpr (CLUSTER > 1) {
    cluster_sync();
  } else {
    __syncthreads();
  }
  float m[V], inv_s[V], log_s[V];
#pragma unroll
  for (int k = 0; k < V; ++k) {
    MaxSum t = dsmem_or_local(&cta[threadIdx.x][k], 0, CLUSTER);
    for (int r = 1; r < CLUSTER; ++r) t = MaxSumOp()(t, dsmem_or_local(&cta[threadIdx.x][k], u32(r), CLUSTER));
    m[k] = t.m;
    inv_s[k] = fast_rcp(t.s);
    log_s[k] = LOG ? logf(t.s) : 0.f;
  }
  T* y = static_cast<T*>(p.y) + o * p.len * p.inner + col;
  for (i64 r0 = begin + threadIdx.y; r0 < end; r0 += i64(TY) * U) {
    float v[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (r0 + u * TY < end) load_float<T, V, kCached>(x + (r0 + u * TY) * p.inner, v[u]);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (r0 + u * TY >= end) continue;
#pragma unroll
      for (int k = 0; k < V; ++k) v[u][k] = softmax_out<LOG>(v[u][k], m[k], inv_s[k], log_s[k]);
      store_float<T, V>(y + (r0 + u * TY) * p.inner, v[u]);
    }
  }
  if constexpr (CLUSTER > 1) cluster_sync();
}

}  // namespace tileops_cuda
