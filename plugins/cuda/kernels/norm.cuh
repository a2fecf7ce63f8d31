// The norm family: RMSNorm, fused residual add + RMSNorm, LayerNorm, GroupNorm.
//
// Each row (a GroupNorm row is one (sample, group), contiguous) is normalised by
// statistics over the whole row. Two shapes of kernel:
//   norm_reg  the row stays in registers: read once, written once. TPR threads per row,
//             RPC rows per CTA, or CLUSTER CTAs per row exchanging partial sums through
//             distributed shared memory (rows too long for one CTA's registers).
//   norm_smem rows too long for registers (sm_90; not the fused add): CLUSTER CTAs hold
//             the row in shared memory (slice.cuh), read from device memory once.
//   norm_loop any row length: one pass for the statistics, one to write (the second
//             read mostly hits L2); CLUSTER CTAs per row split it when rows are long.
//   norm_grid rows of 4 MB or more, too long for a cluster's shared memory but not for
//             the GPU's (sm_90; not the fused add): a span of CTAs holds each row in
//             shared memory, read from device memory once, meeting through global memory.
//   norm_queue other rows too long for a cluster's shared memory (sm_90; not the fused add):
//             a persistent grid takes pieces of rows in an order that reads each piece
//             a second time while it is still in L2 (kept there by eviction priorities).
// Statistics in fp32, one reduction per row: the sum of squares (RMS), or for LayerNorm
// and GroupNorm the sums of (x - K) and (x - K)^2 with K the row's first element, which
// gives the biased variance without cancellation when the mean is large.
#pragma once
#include "common.cuh"
#include "queue_order.cuh"
#include "slice.cuh"

namespace tileops_cuda {

// sum(x - K) and sum((x - K)^2).
struct Sum2 {
  float a, b;
  __device__ __forceinline__ Sum2 operator+(const Sum2& o) const { return {a + o.a, b + o.b}; }
};

template <int KIND>
__device__ __forceinline__ void accumulate(Sum2& acc, float x, float shift) {
  if constexpr (KIND == kLayer || KIND == kGroup) {
    const float d = x - shift;
    acc.a += d;
    acc.b += d * d;
  } else {
    acc.b += x * x;
  }
}

template <int KIND, class T, int V>
__device__ __forceinline__ void accumulate(Sum2& acc, const Vec<T, V>& v, float shift) {
#pragma unroll
  for (int k = 0; k < V; ++k) accumulate<KIND>(acc, v.get_float(k), shift);
}

// Mean and 1 / sqrt(variance + eps) (RMS: mean 0, mean square for variance).
template <int KIND>
__device__ __forceinline__ void finish_stats(const Sum2& tot, float shift, float n, float eps, float& mean,
                                             float& scale) {
  float var;
  if constexpr (KIND == kLayer || KIND == kGroup) {
    const float m = tot.a / n;
    mean = shift + m;
    var = fmaxf(tot.b / n - m * m, 0.f);
  } else {
    mean = 0.f;
    var = tot.b / n;
  }
  scale = rsqrtf(var + eps);
}

// The first channel of a GroupNorm row (one (sample, group)).
__device__ __forceinline__ i32 first_channel(const NormParams& p, i64 row) {
  const u32 r = u32(row);
  return i32(r - fast_div(r, p.groups) * p.groups.divisor) * p.channels_per_group;
}

// The affine factors of the V elements at element `e` of a row: per element for the row
// norms, per channel for GroupNorm (V divides the channel size, so the V elements share
// one channel). Loaded when the statistics are known, through L1, each vector right
// before it is used (kCachedInOrder): every row reads the same weights, so they are L1
// or L2 hits, and holding a thread's weights beside its share of the row would cost the
// registers that let several CTAs share an SM.
template <class T, int KIND, int AFFINE, int V>
struct Affine {
  static constexpr bool kW = AFFINE & kWeight, kB = AFFINE & kBias;
  Vec<T, V> w, b;
  float wc, bc;
  __device__ __forceinline__ void load(const NormParams& p, i32 c0, i64 e) {
    if constexpr (KIND == kGroup) {
      const i32 c = c0 + i32(fast_div(u32(e), p.channel_size));
      if constexpr (kW) wc = to_float(tileops_cuda::load<T, 1, kCachedInOrder>(static_cast<const T*>(p.weight) + c).get(0));
      if constexpr (kB) bc = to_float(tileops_cuda::load<T, 1, kCachedInOrder>(static_cast<const T*>(p.bias) + c).get(0));
    } else {
      if constexpr (kW) w = tileops_cuda::load<T, V, kCachedInOrder>(static_cast<const T*>(p.weight) + e);
      if constexpr (kB) b = tileops_cuda::load<T, V, kCachedInOrder>(static_cast<const T*>(p.bias) + e);
    }
  }
  // The V elements `in`, normalised.
  __device__ __forceinline__ Vec<T, V> values(const NormParams& p, const Vec<T, V>& in, float mean,
                                              float scale) const {
    float o[V];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      o[k] = (in.get_float(k) - mean) * scale;
      if constexpr (kW) o[k] *= KIND == kGroup ? wc : w.get_float(k);
      if constexpr (kB) o[k] += KIND == kGroup ? bc : b.get_float(k);
    }
    return to_vec<T, V>(o);
  }
  // Normalises `in`, the V elements at element `e` of a row whose GroupNorm channels start
  // at c0, and stores them at `out`.
  static __device__ __forceinline__ void store_normalised(const NormParams& p, i32 c0, i64 e, const Vec<T, V>& in,
                                                          float mean, float scale, T* out) {
    Affine affine;
    affine.load(p, c0, e);
    store<T, V>(out, affine.values(p, in, mean, scale));
  }
};

// A row's V elements at `offset`, in two steps so that every load of a thread is in
// flight before the first result is used: issue() starts the loads, value() finishes.
// Fused add stores x + residual (rounded to T) back into the residual and returns that
// rounded sum, which is what is normalised. Its fp32 rows read x through the coherent
// path: ptxas may move a read-only load below the residual stores, and in the fp32
// kernel without a weight it moved five of a thread's eight, to save registers, so that
// they waited one after another behind the stores ([8192, 8192]: 0.85 of copy, 0.98
// with coherent loads, which stay above the stores). 16-bit rows keep the read-only
// path: their loads were not moved, and coherent ones cost them 12 registers (a CTA an SM
// fewer) and 1% on 8192-wide rows.
template <class T, int KIND, int V>
struct RowVec {
  Vec<T, V> x, r;
  __device__ __forceinline__ void issue(const NormParams& p, i64 offset) {
    const T* in = static_cast<const T*>(p.x) + offset;
    x = KIND == kFusedAddRms && sizeof(T) == 4 ? load_rw<T, V>(in) : load<T, V>(in);
    if constexpr (KIND == kFusedAddRms) r = load_rw<T, V>(static_cast<const T*>(p.residual) + offset);
  }
  __device__ __forceinline__ Vec<T, V> value(const NormParams& p, i64 offset) const {
    if constexpr (KIND == kFusedAddRms) {
      float s[V];
#pragma unroll
      for (int k = 0; k < V; ++k) s[k] = x.get_float(k) + r.get_float(k);
      const Vec<T, V> rounded = to_vec<T, V>(s);
      store<T, V>(static_cast<T*>(p.residual) + offset, rounded);
      return rounded;
    } else {
      return x;
    }
  }
};

template <class T, int KIND>
__device__ __forceinline__ float row_shift(const NormParams& p, i64 row) {
  if constexpr (KIND == kLayer || KIND == kGroup)
    return to_float(load_cached<T, 1>(static_cast<const T*>(p.x) + row * p.cols).get(0));
  else
    return 0.f;
}

// CTAs an SM norm_reg asks ptxas for. Rows of 16-bit vectors (packed two elements to
// a register), one CTA a row, fit 1536 threads' worth of registers (40 for 256-thread
// CTAs: six CTAs an SM, not five, so a row count a little over a multiple of five SMs'
// worth wastes less of its last wave). Other rows (fp32, scalar accesses, a cluster's
// exchange, the fused add's residual) would spill, and get 1: the registers ptxas wants.
// (THREADS is at most 512.)
template <class T, int KIND, int V, int THREADS, int CLUSTER>
struct NormRegBlocks {
  enum : int { value = sizeof(T) == 2 && V == 8 && CLUSTER == 1 && KIND != kFusedAddRms ? 1536 / THREADS : 1 };
};

template <class T, int KIND, int AFFINE, int V, int ITEMS, int TPR, int RPC, int CLUSTER>
__global__ void __launch_bounds__(TPR* RPC, (NormRegBlocks<T, KIND, V, TPR * RPC, CLUSTER>::value)) norm_reg(const NormParams p) {
  typedef RowGroup<TPR, RPC, CLUSTER> Group;
  __shared__ Sum2 buf[Group::kBuf];
  __shared__ ClusterInbox<Sum2, CLUSTER> inbox;
  const Group g(inbox);
  const bool active = g.row < p.rows;
  const i64 nvec = p.cols / V;
  const i32 c0 = KIND == kGroup ? first_channel(p, g.row) : 0;
  const float shift = active ? row_shift<T, KIND>(p, g.row) : 0.f;
  RowVec<T, KIND, V> in[ITEMS];
  Vec<T, V> v[ITEMS];  // packed: 16-bit rows take half the registers of floats
  bool ok[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const i64 vi = (i64(g.rank) * ITEMS + i) * TPR + g.lane;
    ok[i] = active && vi < nvec;
    if (ok[i]) in[i].issue(p, g.row * p.cols + vi * V);
  }
  Sum2 acc = {0.f, 0.f};
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const i64 vi = (i64(g.rank) * ITEMS + i) * TPR + g.lane;
    if (!ok[i]) continue;
    v[i] = in[i].value(p, g.row * p.cols + vi * V);
    accumulate<KIND>(acc, v[i], shift);
  }
  float mean, scale;
  finish_stats<KIND>(g.reduce(acc, SumOp(), buf, inbox, 0), shift, float(p.cols), p.eps, mean, scale);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const i64 vi = (i64(g.rank) * ITEMS + i) * TPR + g.lane;
    if (!ok[i]) continue;
    T* out = static_cast<T*>(p.y) + g.row * p.cols + vi * V;
    Affine<T, KIND, AFFINE, V>::store_normalised(p, c0, vi * V, v[i], mean, scale, out);
  }
  g.finish();
}

// Dynamic shared memory: this CTA's slice of a row; the grid's clusters sweep the rows
// (slice.cuh). REGS > 0: the first REGS * TPR vectors of the CTA's share of a row stay in
// registers instead (HeldVectors). Not for the fused add, which also reads and writes
// the residual.
template <class T, int KIND, int AFFINE, int TPR, int CLUSTER, int PIECES, int REGS>
__global__ void __launch_bounds__(TPR, kHeldCtasPerSm<REGS>) norm_smem(const NormParams p) {
  static_assert(KIND != kFusedAddRms, "the fused add takes norm_reg or norm_loop");
  constexpr int V = 16 / int(sizeof(T));
  typedef RowGroup<TPR, 1, CLUSTER> Group;
  extern __shared__ __align__(16) u32 slices[];
  __shared__ u64 bars[PIECES];
  // By row parity: a CTA's threads may still read the last row's while the first go on.
  __shared__ Sum2 buf[2][Group::kBuf];
  __shared__ ClusterInbox<Sum2, CLUSTER> inbox[2];
  const Group g(inbox[0], inbox[1]);
  constexpr bool kRolledWalks = true;  // a quarter off the first build (slice.cuh)
  const SlicedRows<T, 1, PIECES, TPR, kRolledWalks> sweep(p.x, p.cols, p.rows, CLUSTER, g.rank, slices, bars,
                                                                  REGS * TPR);
  const SliceRange& r = sweep.range;
  HeldVectors<T, REGS, TPR> held(sweep.kept, g.lane);
  held.fetch(sweep, 0);
  for (u32 n = 0; sweep.rows.has(n); ++n) {
    const i64 row = sweep.rows.nth(n);
    const float shift = row_shift<T, KIND>(p, row);
    Sum2 acc = {0.f, 0.f};
    const auto add = [&](const Vec<T, V>& v, int) {
      accumulate<KIND>(acc, v, shift);
    };
    held.each(add);
    sweep.each(n, g.lane, add);
    float mean, scale;
    finish_stats<KIND>(g.reduce(acc, SumOp(), buf[n & 1], inbox[n & 1], n >> 1), shift, float(p.cols), p.eps, mean, scale);
    const i32 c0 = KIND == kGroup ? first_channel(p, row) : 0;
    T* y = static_cast<T*>(p.y) + row * p.cols;
    const auto write = [&](const Vec<T, V>& v, int i) {  // i: the vector's index in the CTA's share
      const i64 e = (r.begin + i) * V;
      Affine<T, KIND, AFFINE, V>::store_normalised(p, c0, e, v, mean, scale, y + e);
    };
    held.each_then_fetch(sweep, n, write);
  }
  g.finish();
}

// Odd spans start `ns` late (p.stagger_ns, RowPlan::stagger_ns: half a round of the
// spans' bytes), so that one half's loads meet the other half's stores: thread 0 waits,
// then the CTA.
__device__ __forceinline__ void stagger_start(u32 s, u32 ns) {
  if (threadIdx.x == 0 && (s & 1) && ns > 0) {
    u64 t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
      __nanosleep(200);
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
  }
  __syncthreads();
}

// Dynamic shared memory: this CTA's slice of a row, as in norm_smem, but p.span CTAs a
// row (up to one an SM; a span, not a cluster) meet through global memory: each stores
// its slice's Sum2 and counts itself in on the row's word, and once all have, each CTA
// combines the row's Sum2s in rank order itself (every CTA finds the same statistics).
// A CTA waits only for the CTAs of its own span, and the launch is cooperative, so that
// all of them are resident at once. The grid's spans sweep the rows. GroupNorm VAE's
// 8 MB fp32 groups are read from device memory once, where norm_queue read them 1.9
// times on an H100 (docs/perf/session43.md). The counters are zeroed by zero_words,
// this kernel's programmatic predecessor. REGS > 0: the first REGS * TPR vectors of the
// CTA's range of a row stay in registers (HeldVectors), so that more spans fit the GPU
// at once (rows.cpp); the CTAs are then built for two an SM (79-91 registers). The
// spans start out of step (stagger_start).
template <class T, int KIND, int AFFINE, int TPR, int PIECES, int REGS>
__global__ void __launch_bounds__(TPR, REGS > 0 ? 2 : 0) norm_grid(const NormParams p) {
  static_assert(KIND != kFusedAddRms, "the fused add takes norm_reg or norm_loop");
  constexpr int V = 16 / int(sizeof(T));
  typedef RowGroup<TPR, 1, 1> Group;
  extern __shared__ __align__(16) u32 slices[];
  __shared__ u64 bars[PIECES];
  __shared__ Sum2 buf[2][Group::kBuf];  // a slice's Sum2, then the row's
  const Group g;
  const u32 span = u32(p.span), rank = blockIdx.x % span;
  stagger_start(blockIdx.x / span, u32(p.stagger_ns));
  constexpr bool kRolledWalks = true;
  const SlicedRows<T, 1, PIECES, TPR, kRolledWalks> sweep(p.x, p.cols, p.rows, span, rank, slices, bars, REGS * TPR);
  const SliceRange& r = sweep.range;
  HeldVectors<T, REGS, TPR> held(sweep.kept, g.lane);
  held.fetch(sweep, 0);
  Sum2* sums = static_cast<Sum2*>(p.sums);
  if (threadIdx.x == 0) pdl_wait();  // the counters are zeroed
  for (u32 n = 0; sweep.rows.has(n); ++n) {
    const i64 row = sweep.rows.nth(n);
    const float shift = row_shift<T, KIND>(p, row);
    Sum2 acc = {0.f, 0.f};
    const auto add = [&](const Vec<T, V>& v, int) {
      accumulate<KIND>(acc, v, shift);
    };
    held.each(add);
    sweep.each(n, g.lane, add);
    const Sum2 slice_total = g.reduce(acc, SumOp(), buf[0]);
    if (threadIdx.x == 0) {
      sums[row * span + rank] = slice_total;
      atomic_add_acq_rel(p.counters + row, 1u);
      while (ld_acquire(p.counters + row) < span) __nanosleep(32);
    }
    __syncthreads();  // thread 0's acquire, and so the span's sums, ordered before every thread's reads
    Sum2 part = {0.f, 0.f};
    for (u32 q = g.lane; q < span; q += TPR) part = part + ld_relaxed(sums + row * span + q);
    float mean, scale;
    finish_stats<KIND>(g.reduce(part, SumOp(), buf[1]), shift, float(p.cols), p.eps, mean, scale);
    const i32 c0 = KIND == kGroup ? first_channel(p, row) : 0;
    T* y = static_cast<T*>(p.y) + row * p.cols;
    held.each_then_fetch(sweep, n, [&](const Vec<T, V>& v, int i) {
      const i64 e = (r.begin + i) * V;
      Affine<T, KIND, AFFINE, V>::store_normalised(p, c0, e, v, mean, scale, y + e);
    });
  }
}

template <class T, int KIND, int AFFINE, int V, int TPR, int CLUSTER>
__global__ void __launch_bounds__(TPR) norm_loop(const NormParams p) {
  typedef RowGroup<TPR, 1, CLUSTER> Group;
  constexpr int U = 4;  // vectors in flight per thread
  __shared__ Sum2 buf[Group::kBuf];
  __shared__ ClusterInbox<Sum2, CLUSTER> inbox;
  const Group g(inbox);
  const i64 row = g.row;  // the grid has exactly one row group per row
  const i64 nvec = p.cols / V;
  const i64 per_cta = (nvec + CLUSTER - 1) / CLUSTER;
  const i64 begin = i64(g.rank) * per_cta;
  const i64 end = begin + per_cta < nvec ? begin + per_cta : nvec;
  const float shift = row_shift<T, KIND>(p, row);
  const i64 base = row * p.cols;
  Sum2 acc = {0.f, 0.f};
  for (i64 i0 = begin + g.lane; i0 < end; i0 += i64(TPR) * U) {
    RowVec<T, KIND, V> in[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (i0 + u * TPR < end) in[u].issue(p, base + (i0 + u * TPR) * V);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (i0 + u * TPR >= end) continue;
      const Vec<T, V> v = in[u].value(p, base + (i0 + u * TPR) * V);
      accumulate<KIND>(acc, v, shift);
    }
  }
  float mean, scale;
  finish_stats<KIND>(g.reduce(acc, SumOp(), buf, inbox, 0), shift, float(p.cols), p.eps, mean, scale);
  const i32 c0 = KIND == kGroup ? first_channel(p, row) : 0;
  // The fused add reads back the sums it stored: same thread, same addresses.
  const T* src = static_cast<const T*>(KIND == kFusedAddRms ? p.residual : p.x) + base;
  for (i64 i0 = begin + g.lane; i0 < end; i0 += i64(TPR) * U) {
    Vec<T, V> v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const i64 vi = i0 + u * TPR;
      if (vi >= end) continue;
      if constexpr (KIND == kFusedAddRms)
        v[u] = load_rw<T, V>(src + vi * V);
      else
        v[u] = load_cached<T, V>(src + vi * V);  // read moments ago: likely in L2
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const i64 vi = i0 + u * TPR;
      if (vi >= end) continue;
      T* out = static_cast<T*>(p.y) + base + vi * V;
      Affine<T, KIND, AFFINE, V>::store_normalised(p, c0, vi * V, v[u], mean, scale, out);
    }
  }
  g.finish();
}

// A row's mean and 1 / sqrt(variance + eps), published by its last statistics item.
struct RowStats {
  float mean, scale;
};

// Work items, taken one at a time from a counter (p.counters[0]) by a grid of as many CTAs
// as the GPU holds: each row is cut into p.pieces pieces of kQueueVecs vectors (the last
// shorter), and each piece gives a statistics item (its Sum2) and a normalisation item.
// The statistics of rows 0 .. lag - 1 come first, then the statistics of row k + lag and
// the normalisation of row k for each k, then the normalisation of the last lag rows
// (QueueItem, queue_order.cuh): a piece is read the second time about lag rows of work
// after the first (lag is the rows' worth of items the grid works on at once, plus one),
// to find it still in L2, so that a row of a few MB is read from DRAM about once.
// L2 priorities make that happen: the first read marks a piece evict-last, the second
// read and the results evict-first. Without them half the second reads missed (GroupNorm
// VAE bf16: 198 MB read from DRAM for a 134 MB input; with them 138 MB;
// docs/perf/cuda-kernels-h200.md, seventh round). The last statistics
// item of a row to arrive combines the row's Sum2s in piece order (the result does not
// depend on arrival order) and raises the row's ready flag; a normalisation item spins on
// it. It can only wait for items taken before it, by CTAs that are running and never
// wait for it: no deadlock, whatever the grid. The counters are zeroed by zero_words,
// this kernel's programmatic predecessor. Built for four CTAs an SM (64 registers):
// ptxas gave fp32 without affine inputs 77 (three CTAs) and, once QueueItem divided by
// multiplication, bf16 with both 77 too.
constexpr int kQueueVecs = TILEOPS_CUDA_QUEUE_VECS;
constexpr int kQueueCtasPerSm = 4;

template <class T, int KIND, int AFFINE, int V, int TPR>
__global__ void __launch_bounds__(TPR, kQueueCtasPerSm) norm_queue(const NormParams p) {
  typedef RowGroup<TPR, 1, 1> Group;
  constexpr int U = kQueueVecs / TPR;  // vectors a thread, all in flight at once
  static_assert(kQueueVecs % TPR == 0, "whole vectors a thread");
  __shared__ Sum2 buf[Group::kBuf];
  __shared__ u32 item_of_cta, last_of_row;
  __shared__ RowStats row_stats;
  const Group g;
  const i64 nvec = p.cols / V;
  const i64 pieces = p.pieces.divisor;
  u32* arrived = p.counters + 1;
  u32* ready = p.counters + 1 + p.rows;
  Sum2* sums = static_cast<Sum2*>(p.sums);
  RowStats* stats = static_cast<RowStats*>(p.stats);
  const u64 keep = l2_evict_last(), drop = l2_evict_first();
  if (threadIdx.x == 0) {
    pdl_wait();  // the counters are zeroed
    item_of_cta = atomicAdd(p.counters, 1u);
  }
  __syncthreads();
  for (i64 item = item_of_cta; item < 2 * p.rows * pieces; item = item_of_cta) {
    __syncthreads();  // everyone has read item_of_cta
    // The next item's ticket, taken now so that its round trip overlaps this item.
    u32 next = 0;
    if (threadIdx.x == 0) next = atomicAdd(p.counters, 1u);
    const QueueItem it(u32(item), u32(p.rows), p.pieces, p.pairs, u32(p.lag));
    const bool statistics = it.statistics;
    const i64 row = it.row, piece = it.piece;
    const i64 begin = piece * kQueueVecs;
    const i64 base = row * p.cols;
    const T* x = static_cast<const T*>(p.x) + base;
    Vec<T, V> v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const i64 vi = begin + u * TPR + g.lane;
      if (vi < nvec) v[u] = load_l2<T, V>(x + vi * V, statistics ? keep : drop);
    }
    if (statistics) {
      const float shift = row_shift<T, KIND>(p, row);
      Sum2 acc = {0.f, 0.f};
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (begin + u * TPR + g.lane < nvec)
          accumulate<KIND>(acc, v[u], shift);
      const Sum2 total = g.reduce(acc, SumOp(), buf);
      if (threadIdx.x == 0) {
        sums[row * pieces + piece] = total;
        last_of_row = atomic_add_acq_rel(arrived + row, 1u) == u32(pieces - 1);
      }
      __syncthreads();
      // Uniform; the barrier orders thread 0's acquire before every thread's reads.
      if (last_of_row) {  // combine the row's pieces in order
        Sum2 part = {0.f, 0.f};
        for (i64 q = g.lane; q < pieces; q += TPR) part = part + ld_relaxed(sums + row * pieces + q);
        const Sum2 all = g.reduce(part, SumOp(), buf);
        if (threadIdx.x == 0) {
          RowStats r;
          finish_stats<KIND>(all, shift, float(p.cols), p.eps, r.mean, r.scale);
          stats[row] = r;
          st_release(ready + row, 1u);
        }
      }
    } else {
      if (threadIdx.x == 0) {
        while (ld_acquire(ready + row) == 0) __nanosleep(64);
        row_stats = ld_relaxed(stats + row);
      }
      __syncthreads();
      const RowStats r = row_stats;
      const i32 c0 = KIND == kGroup ? first_channel(p, row) : 0;
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const i64 vi = begin + u * TPR + g.lane;
        if (vi >= nvec) continue;
        Affine<T, KIND, AFFINE, V> affine;
        affine.load(p, c0, vi * V);
        store_l2<T, V>(static_cast<T*>(p.y) + base + vi * V, affine.values(p, v[u], r.mean, r.scale), drop);
      }
    }
    if (threadIdx.x == 0) item_of_cta = next;
    __syncthreads();
  }
}

}  // namespace tileops_cuda
