// Softmax and log-softmax of x viewed as [outer, len, inner] along len.
//
//   softmax_reg   inner == 1, the row stays in registers (read once, written once); TPR
//                 threads per row, RPC rows per CTA, or CLUSTER CTAs per row.
//   softmax_smem  inner == 1, rows too long for registers (sm_90): CLUSTER CTAs hold the
//                 row in shared memory (slice.cuh), read once; a (max, sum) pass as
//                 the slice lands (against the maximum of the vectors a thread holds in
//                 registers) and the write pass read shared memory. A cluster may sweep
//                 several rows (the host's choice of grid).
//   softmax_loop  inner == 1, any length: an online (max, sum) pass, then a write pass
//                 (whose reads mostly hit L2); CLUSTER CTAs split long rows.
//   softmax_strip inner > 1 (sm_90): a strip of 64 bytes of every row (whole 16-byte
//                 vectors) held in the shared memory of a cluster whose CTAs split len:
//                 read once with asynchronous copies, a max and a sum pass over shared
//                 memory, then the write pass.
//   softmax_col   inner > 1: TX threads across inner (V elements each) by TY threads
//                 down len, the CTAs of a cluster splitting len; an online pass, then a
//                 write pass.
// exp on the special-function unit (fast_exp); each exp is computed once per element in
// the register form. NaN anywhere in a row makes the whole row NaN (through the sum), as
// in torch.
#pragma once
#include "common.cuh"
#include "slice.cuh"

namespace tileops_cuda {

// exp(x - m), with exp(-inf - -inf) taken as 0 rather than NaN: a share of a row that has
// seen only -inf so far contributes nothing.
__device__ __forceinline__ float exp_shifted(float x, float m) { return x == neg_inf() ? 0.f : fast_exp(x - m); }

// exp(x - m) given ml = m log2 e: for 16-bit data 2^(x log2 e - ml), one FFMA before the
// SFU where exp(x - m) takes a subtraction and a multiplication. The exponent's rounding
// error, about |m| 2^-24, is far inside a 16-bit result's precision; fp32 data keeps
// exp(x - m).
template <class T>
__device__ __forceinline__ float exp_minus(float x, float m, float ml) {
  if constexpr (sizeof(T) == 2) {
    return fast_exp2(fmaf(x, kLog2e, -ml));
  } else {
    return fast_exp(x - m);
  }
}

// The outputs of a row (or column) from its max m and sum: exp(x - m) / sum, or for
// LOG x - m - log(sum). 16-bit softmax divides in the exponent, 2^(x log2 e - (m log2 e
// + log2 sum)): one FFMA and the exp an element, no multiplication. The exponent is
// rounded once, as in exp_minus: a relative error in the output of at most about 2^-17
// (exponents down to -126), far inside a 16-bit result's precision. With the packed
// maximum in softmax_smem (VecMax), two A/Bs on an H100: Softmax [64, 128256] bf16
// 1.010 faster, fp16 1.003-1.005, along dim 0 1.002-1.006, LogSoftmax [64, 152064] bf16
// 1.004-1.005 (docs/perf/h100-session35.md, calls 6 and 7).
template <class T, int LOG>
struct SoftmaxOut {
  static constexpr bool kScaleInExp = sizeof(T) == 2 && !LOG;
  float m, ml, inv_s, log_s;
  SoftmaxOut() = default;
  __device__ SoftmaxOut(float max, float sum)
      : m(max),
        ml(kScaleInExp ? fmaf(max, kLog2e, fast_log2(sum)) : max * kLog2e),
        inv_s(fast_rcp(sum)),
        log_s(LOG ? logf(sum) : 0.f) {}
  __device__ static SoftmaxOut of_sum(float max, float sum) { return {max, sum}; }
  __device__ __forceinline__ float operator()(float x) const {
    if constexpr (LOG) return x - m - log_s;
    else if constexpr (kScaleInExp) return fast_exp2(fmaf(x, kLog2e, -ml));
    else return exp_minus<T>(x, m, ml) * inv_s;
  }
};

// The `1` (blocks per SM) keeps ptxas from capping registers for occupancy, which
// spills part of the row to local memory.
template <class T, int LOG, int V, int ITEMS, int TPR, int RPC, int CLUSTER>
__global__ void __launch_bounds__(TPR* RPC, 1) softmax_reg(const SoftmaxParams p) {
  typedef RowGroup<TPR, RPC, CLUSTER> Group;
  __shared__ float buf0[Group::kBuf];
  __shared__ float buf1[Group::kBuf];
  __shared__ ClusterInbox<float, CLUSTER> inbox0, inbox1;
  const Group g(inbox0, inbox1);
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
  m = g.reduce(m, MaxOp(), buf0, inbox0, 0);
  const float ml = m * kLog2e;
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i)
    if (ok[i])
#pragma unroll
      for (int k = 0; k < V; ++k) s += exp_minus<T>(v[i].get_float(k), m, ml);
  s = g.reduce(s, SumOp(), buf1, inbox1, 0);
  const auto out_of = SoftmaxOut<T, LOG>::of_sum(m, s);
  T* y = static_cast<T*>(p.y) + g.row * p.len;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const i64 vi = (i64(g.rank) * ITEMS + i) * TPR + g.lane;
    if (!ok[i]) continue;
    float out[V];
#pragma unroll
    for (int k = 0; k < V; ++k) out[k] = out_of(v[i].get_float(k));
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

// How far past a thread's reference (the maximum of its held vectors) softmax_smem lets
// a value go before it takes the sum again: terms of at most e^8, about 3000.
constexpr float kSoftmaxSlack = 8.f;

// Dynamic shared memory: this CTA's slice of a row. The grid's clusters sweep the rows
// (a cluster per row, or fewer clusters each taking several rows in turn). Each thread
// gathers a (max, sum) pair, so the cluster reduces once per row. REGS > 0: the first
// REGS * TPR vectors of the CTA's share of a row stay in registers instead (HeldVectors).
template <class T, int LOG, int TPR, int CLUSTER, int PIECES, int REGS>
__global__ void __launch_bounds__(TPR, kHeldCtasPerSm<REGS>) softmax_smem(const SoftmaxParams p) {
  constexpr int V = 16 / int(sizeof(T));
  typedef RowGroup<TPR, 1, CLUSTER> Group;
  extern __shared__ __align__(16) u32 slices[];
  __shared__ u64 bars[PIECES];
  // By row parity: a CTA's threads may still read the last row's while the first go on.
  __shared__ MaxSum buf[2][Group::kBuf];
  __shared__ ClusterInbox<MaxSum, CLUSTER> inbox[2];
  const Group g(inbox[0], inbox[1]);
  const SlicedRows<T, 1, PIECES, TPR> sweep(p.x, p.len, p.outer, CLUSTER, g.rank, slices, bars, REGS * TPR);
  const SliceRange& r = sweep.range;
  HeldVectors<T, REGS, TPR> held(sweep.kept, g.lane);
  held.fetch(sweep, 0);
  for (u32 n = 0; sweep.rows.has(n); ++n) {
    const i64 first = sweep.rows.nth(n) * p.len + r.begin * V;  // the CTA's first element of the row
    // A thread that holds vectors takes its sum in the same pass as its maximum, piece by
    // piece as they land, against the maximum of its held vectors (a reference no vector
    // passes by more than kSoftmaxSlack, or each term could overflow: then, rarely, the sum
    // again against the thread's maximum); one without them takes its maximum, then its
    // sum. Any pair (m, sum of exp(x - m)) combines and writes alike, and the cluster
    // reduces once. Against a maximum pass then a sum pass, H100, 5 rounds: Softmax [64,
    // 128256] 1.020-1.029, LogSoftmax [64, 152064] 1.018-1.022, the 16-bit sweeps of
    // [2048, 128256] 1.003, its fp32 sweep 0.996 (docs/perf/session40.md, call 5).
    VecMax<T, V> mv;
    float ref, base, based, sum = 0.f;
    const auto rebase = [&](float m) {
      ref = m;
      base = m == neg_inf() ? 0.f : m;  // a share of only -inf sums to 0, not NaN
      based = base * kLog2e;
    };
    const auto add = [&](const Vec<T, V>& v, int) {
#pragma unroll
      for (int k = 0; k < V; ++k) sum += exp_minus<T>(v.get_float(k), base, based);
    };
    held.each([&](const Vec<T, V>& v, int) { mv.take(v); });
    rebase(mv.fold());
    held.each(add);
    sweep.each(n, g.lane, [&](const Vec<T, V>& v, int i) {
      mv.take(v);
      if constexpr (REGS > 0) add(v, i);
    });
    const float m = mv.fold();
    if (REGS == 0 || m > ref + kSoftmaxSlack) {
      rebase(m);
      sum = 0.f;
      held.each(add);
      sweep.each_again(n, g.lane, add);
    }
    const MaxSum acc = {ref, sum};
    // Each row after the first waits for the last row's stores before the exchange, as the
    // cluster barrier did before the inbox: without it the fp32 sweep of [2048, 128256]
    // ran 2.7% slower on an H100 (the next row's reads likely meet the last row's writes
    // in DRAM); the norms' sweeps lost nothing without it (perf doc, 38th round).
    if (n > 0) drain_memory();
    const MaxSum tot = g.reduce(acc, MaxSumOp(), buf[n & 1], inbox[n & 1], n >> 1);
    const auto out_of = SoftmaxOut<T, LOG>::of_sum(tot.m, tot.s);
    T* y = static_cast<T*>(p.y) + first;
    const auto write = [&](const Vec<T, V>& v, int i) {  // i: the vector's index in the CTA's share
      float out[V];
#pragma unroll
      for (int k = 0; k < V; ++k) out[k] = out_of(v.get_float(k));
      store_float<T, V>(y + i64(i) * V, out);
    };
    held.each_then_fetch(sweep, n, write);
  }
  g.finish();
}

template <class T, int LOG, int V, int TPR, int CLUSTER>
__global__ void __launch_bounds__(TPR) softmax_loop(const SoftmaxParams p) {
  typedef RowGroup<TPR, 1, CLUSTER> Group;
  constexpr int U = 4;  // vectors in flight per thread
  __shared__ MaxSum buf[Group::kBuf];
  __shared__ ClusterInbox<MaxSum, CLUSTER> inbox;
  const Group g(inbox);
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
  const MaxSum tot = g.reduce(acc, MaxSumOp(), buf, inbox, 0);
  const auto out_of = SoftmaxOut<T, LOG>::of_sum(tot.m, tot.s);
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
      for (int k = 0; k < V; ++k) out[k] = out_of(v[u].get_float(k));
      store_float<T, V>(y + (i0 + u * TPR) * V, out);
    }
  }
  g.finish();
}

// The (max, sum) of n shares a[0], a[stride], ...: the max first, then each sum rescaled
// to it (one exp a share, independent of one another), added in order.
__device__ __forceinline__ MaxSum combine_shares(const MaxSum* a, int n, int stride) {
  float m = a[0].m;
  for (int i = 1; i < n; ++i) m = fmaxf(m, a[i * stride].m);
  float s = 0.f;
  for (int i = 0; i < n; ++i) s += a[i * stride].s * exp_shifted(a[i * stride].m, m);
  return {m, s};
}

// Grid: x = outer * (inner / COLS) strips of COLS = 64 / sizeof(T) columns, times the
// cluster size; the cluster's CTAs split len. Dynamic shared memory: this CTA's rows of
// the strip, 64 bytes each. Thread t owns the 16-byte piece t % 4 (V columns) of every
// (TPR / 4)-th row, for the copies and every pass: it reads only what it copied (no
// barrier before a pass), 16-byte reads of shared memory, a warp's reads contiguous.
template <class T, int LOG, int TPR>
__global__ void __launch_bounds__(TPR) softmax_strip(const SoftmaxParams p) {
  constexpr int kRowBytes = 64, COLS = kRowBytes / int(sizeof(T)), V = 16 / int(sizeof(T));
  constexpr int kWarps = TPR / 32, kRowStep = TPR / 4;
  static_assert(TPR % 32 == 0, "whole warps");
  extern __shared__ __align__(16) u32 slice[];
  __shared__ MaxSum part[kWarps][COLS];
  // Every CTA of the cluster sends its (max, sum) of each column to every CTA's inbox
  // (st.async, landing on `landed`): no fence and no cluster barrier after the passes,
  // so a CTA leaves without waiting for its stores to drain.
  __shared__ __align__(8) MaxSum inbox[TILEOPS_CUDA_MAX_CLUSTER][COLS];
  __shared__ u64 landed;
  __shared__ SoftmaxOut<T, LOG> outs[COLS];  // each column's output rule
  const u32 ranks = cluster_size(), rank = cluster_rank();
  const i64 tile = blockIdx.x / ranks;
  const i64 strips = p.inner / COLS;
  const i64 o = tile / strips;
  const i64 per_cta = (p.len + ranks - 1) / ranks;
  const i64 begin = i64(rank) * per_cta;
  const int rows = int(p.len - begin < per_cta ? (p.len - begin > 0 ? p.len - begin : 0) : per_cta);
  const int piece = int(threadIdx.x) % 4, lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  if (threadIdx.x == 0 && ranks > 1) {
    mbarrier_init(&landed, 1);
    mbarrier_init_fence();
    mbarrier_expect_tx(&landed, ranks * COLS * u32(sizeof(MaxSum)));
  }
  // Every inbox is ready before anyone sends; the copies start before the wait.
  if (ranks > 1) cluster_arrive_relaxed();
  // This thread's piece of row `begin` of the strip.
  const i64 first = (o * p.len + begin) * p.inner + (tile % strips) * COLS + piece * V;
  // Running pointers to this thread's rows: one 64-bit add a row, not a multiplication.
  const i64 step = i64(kRowStep) * p.inner;
  // Each copy brings its whole 128-byte line into L2 (.L2::128B): the other half is the
  // neighbouring strip's, which the CTAs launched beside this one's cluster read next;
  // with 64-byte requests alone both halves opened the DRAM page (10% slower on the
  // H200; docs/perf/cuda-kernels-h200.md, twenty-fourth round).
  const T* x = static_cast<const T*>(p.x) + first + i64(threadIdx.x / 4) * p.inner;
  for (int r = int(threadIdx.x) / 4; r < rows; r += kRowStep, x += step)
    copy_async_16<kCopyLine128B>(slice + 16 * r + 4 * piece, x);
  wait_async_copies();
  // The thread's own maximum of each column first, then its sum against it (no rescaling
  // per element); the (max, sum) pairs then combine across the threads of a piece, the
  // warps and the cluster, each level taking the max first.
  float m[V], sum[V];
  VecMax<T, V> mv;
#pragma unroll 4
  for (int r = int(threadIdx.x) / 4; r < rows; r += kRowStep) mv.take(slice_vec<T, V>(slice, 4 * r + piece));
#pragma unroll
  for (int k = 0; k < V; ++k) m[k] = mv.m.get_float(k);
  float base[V], based[V];  // a column share of only -inf sums to 0, not NaN
#pragma unroll
  for (int k = 0; k < V; ++k) {
    base[k] = m[k] == neg_inf() ? 0.f : m[k];
    based[k] = base[k] * kLog2e;
    sum[k] = 0.f;
  }
#pragma unroll 4
  for (int r = int(threadIdx.x) / 4; r < rows; r += kRowStep) {
    const Vec<T, V> v = slice_vec<T, V>(slice, 4 * r + piece);
#pragma unroll
    for (int k = 0; k < V; ++k) sum[k] += exp_minus<T>(v.get_float(k), base[k], based[k]);
  }
#pragma unroll
  for (int k = 0; k < V; ++k) {
    float mw = m[k];
#pragma unroll
    for (int offset = 4; offset < 32; offset *= 2) mw = fmaxf(mw, shfl_xor(mw, offset));
    float sw = sum[k] * exp_shifted(m[k], mw);
#pragma unroll
    for (int offset = 4; offset < 32; offset *= 2) sw += shfl_xor(sw, offset);
    if (lane < 4) part[warp][piece * V + k] = {mw, sw};
  }
  if (ranks > 1) cluster_wait();
  __syncthreads();
  if (threadIdx.x < COLS) {
    MaxSum t = combine_shares(&part[0][threadIdx.x], kWarps, COLS);
    if (ranks > 1) {
      for (u32 r = 0; r < ranks; ++r) st_async(&inbox[rank][threadIdx.x], t, &landed, r);
      mbarrier_wait(&landed, 0);
      t = combine_shares(&inbox[0][threadIdx.x], int(ranks), COLS);  // in rank order: the same in every CTA
    }
    outs[threadIdx.x] = SoftmaxOut<T, LOG>::of_sum(t.m, t.s);
  }
  __syncthreads();
  SoftmaxOut<T, LOG> out_of[V];
#pragma unroll
  for (int k = 0; k < V; ++k) out_of[k] = outs[piece * V + k];
  T* y = static_cast<T*>(p.y) + first + i64(threadIdx.x / 4) * p.inner;
#pragma unroll 4
  for (int r = int(threadIdx.x) / 4; r < rows; r += kRowStep, y += step) {
    const Vec<T, V> v = slice_vec<T, V>(slice, 4 * r + piece);
    float out[V];
#pragma unroll
    for (int k = 0; k < V; ++k) out[k] = out_of[k](v.get_float(k));
    store_float<T, V>(y, out);
  }
}

// Grid: x = outer * ceil(inner / (TX * V)) column tiles, times the cluster size (sm_90:
// the cluster's CTAs split len). Each thread keeps V running (max, sum) pairs, one per
// column it owns.
template <class T, int LOG, int V, int TX, int TY>
__global__ void __launch_bounds__(TX* TY) softmax_col(const SoftmaxParams p) {
  constexpr int U = 4;  // rows in flight per thread
  __shared__ MaxSum part[TY][TX][V];
  __shared__ MaxSum cta[TX][V];
  const u32 ranks = cluster_size(), rank = cluster_rank();
  const i64 tile = blockIdx.x / ranks;
  const i64 tiles_per_outer = (p.inner / V + TX - 1) / TX;
  const i64 o = tile / tiles_per_outer;
  const i64 col = ((tile % tiles_per_outer) * TX + threadIdx.x) * V;
  const bool active = col < p.inner;
  const i64 per_cta = (p.len + ranks - 1) / ranks;
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
  if (ranks > 1)
    cluster_sync();
  else
    __syncthreads();
  SoftmaxOut<T, LOG> out_of[V];
#pragma unroll
  for (int k = 0; k < V; ++k) {
    MaxSum t = dsmem_or_local(&cta[threadIdx.x][k], 0, int(ranks));
    for (u32 r = 1; r < ranks; ++r) t = MaxSumOp()(t, dsmem_load(&cta[threadIdx.x][k], r));
    out_of[k] = SoftmaxOut<T, LOG>::of_sum(t.m, t.s);
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
      for (int k = 0; k < V; ++k) v[u][k] = out_of[k](v[u][k]);
      store_float<T, V>(y + (r0 + u * TY) * p.inner, v[u]);
    }
  }
  if (ranks > 1) cluster_sync();
}

}  // namespace tileops_cuda
