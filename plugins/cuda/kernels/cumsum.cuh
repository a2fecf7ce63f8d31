// Inclusive cumulative sum of x viewed as [outer, len, inner] along len. Floating types
// accumulate in fp32, int64 exactly.
//
//   cumsum_row  inner == 1: a CTA per row (per split of a row: grid.y) walks it in chunks
//               of TPR * ITEMS * V elements; each thread scans ITEMS * V contiguous
//               elements, the CTA scans the thread totals, a running carry links the
//               chunks. The carry into split s is the sum of the totals of the splits
//               before it (reduce_row<..., kSum, ..., PARTIAL> of reduce.cuh writes them
//               as [rows][splits]) when rows are split.
//   cumsum_col  inner > 1: a thread per V columns walks down its split of len; the
//               carry into split s is the sum of the totals of splits < s (written by
//               reduce_col<..., kSum, ..., PARTIAL> of reduce.cuh) when splits > 1.
#pragma once
#include "common.cuh"

namespace tileops_cuda {

// The `1` (blocks per SM) keeps ptxas from capping registers for occupancy, which
// spills part of a thread's elements to local memory.
template <class T, int V, int ITEMS, int TPR>
__global__ void __launch_bounds__(TPR, 1) cumsum_row(const ScanParams p) {
  typedef typename Acc<T>::type A;
  constexpr int K = ITEMS * V;  // contiguous elements per thread per chunk
  constexpr int WARPS = TPR / 32;
  static_assert(TPR % 32 == 0, "whole warps");
  __shared__ A warp_total[WARPS];
  __shared__ A chunk_total;
  const i64 row = blockIdx.x;
  const T* x = static_cast<const T*>(p.x) + row * p.len;
  T* y = static_cast<T*>(p.y) + row * p.len;
  const u32 lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const i64 begin = i64(blockIdx.y) * p.chunk * V;  // this split's elements
  const i64 end = begin + p.chunk * V < p.len ? begin + p.chunk * V : p.len;
  A carry = A(0);
  const A* totals = static_cast<const A*>(p.partial) + row * p.splits;
  for (int s = 0; s < int(blockIdx.y); ++s) carry += totals[s];
  for (i64 chunk = begin; chunk < end; chunk += i64(TPR) * K) {
    const i64 first = chunk + i64(threadIdx.x) * K;
    Vec<T, V> in[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
      if (first + i * V < end) in[i] = load<T, V>(x + first + i * V);
    A v[K];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)  // after every load is in flight
#pragma unroll
      for (int k = 0; k < V; ++k) v[i * V + k] = first + i * V < end ? acc_of(in[i].get(k)) : A(0);
#pragma unroll
    for (int j = 1; j < K; ++j) v[j] += v[j - 1];
    // Inclusive scan of the thread totals: within the warp, then across warps.
    A t = v[K - 1];
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const A n = shfl_up(t, d);
      if (lane >= u32(d)) t += n;
    }
    if (lane == 31) warp_total[warp] = t;
    __syncthreads();
    if (warp == 0) {
      A w = lane < WARPS ? warp_total[lane] : A(0);
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const A n = shfl_up(w, d);
        if (lane >= u32(d)) w += n;
      }
      if (lane < WARPS) warp_total[lane] = w;
      if (lane == WARPS - 1) chunk_total = w;
    }
    __syncthreads();
    const A before = carry + (warp > 0 ? warp_total[warp - 1] : A(0)) + t - v[K - 1];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const i64 e = first + i * V;
      if (e < end) {
        Vec<T, V> out = {};
#pragma unroll
        for (int k = 0; k < V; ++k) out.set(k, value_of<T>(before + v[i * V + k]));
        store<T, V>(y + e, out);
      }
    }
    carry += chunk_total;
    __syncthreads();  // warp_total and chunk_total are rewritten by the next chunk
  }
}

// Grid: x = outer * ceil(inner / (TX * V)) column tiles, y = splits of `chunk` rows.
template <class T, int V, int TX>
__global__ void __launch_bounds__(TX) cumsum_col(const ScanParams p) {
  typedef typename Acc<T>::type A;
  constexpr int U = 4;  // rows loaded ahead of the running sum
  const i64 tiles_per_outer = (p.inner / V + TX - 1) / TX;
  const i64 o = blockIdx.x / tiles_per_outer;
  const i64 col = ((blockIdx.x % tiles_per_outer) * TX + threadIdx.x) * V;
  if (col >= p.inner) return;
  A run[V];
#pragma unroll
  for (int k = 0; k < V; ++k) run[k] = A(0);
  const A* totals = static_cast<const A*>(p.partial);
  for (int s = 0; s < int(blockIdx.y); ++s)  // totals are [outer * inner][splits]
#pragma unroll
    for (int k = 0; k < V; ++k) run[k] += totals[(o * p.inner + col + k) * p.splits + s];
  const i64 begin = i64(blockIdx.y) * p.chunk;
  const i64 end = begin + p.chunk < p.len ? begin + p.chunk : p.len;
  const T* x = static_cast<const T*>(p.x) + o * p.len * p.inner + col;
  T* y = static_cast<T*>(p.y) + o * p.len * p.inner + col;
  for (i64 r0 = begin; r0 < end; r0 += U) {
    Vec<T, V> v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (r0 + u < end) v[u] = load<T, V>(x + (r0 + u) * p.inner);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (r0 + u >= end) break;
      Vec<T, V> out = {};
#pragma unroll
      for (int k = 0; k < V; ++k) {
        run[k] += acc_of(v[u].get(k));
        out.set(k, value_of<T>(run[k]));
      }
      store<T, V>(y + (r0 + u) * p.inner, out);
    }
  }
}

}  // namespace tileops_cuda
