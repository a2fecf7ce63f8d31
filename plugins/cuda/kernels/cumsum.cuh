// Inclusive cumulative sum of x viewed as [outer, len, inner] along len. Floating types
// accumulate in fp32, int64 exactly. One pass over x (read once, written once):
//
//   cumsum_row  inner == 1: a CTA per tile of TPR * ITEMS * V elements of a row. Each
//               warp owns a contiguous span and loads it coalesced (item i of lane l is
//               the vector at (i * 32 + l) * V), scans every vector in registers, then
//               the vector totals with warp shuffles, item after item; the CTA adds the
//               warp totals before each warp.
//   cumsum_row_staged  the same scan for rows of one tile, many of them (int64, sm_90): a
//               persistent CTA sweeps rows, each loaded into shared memory by the bulk
//               copy engine while the rows before it are scanned.
//   cumsum_smem rows too long for a tile's registers, few enough that a cluster a row
//               makes one wave (sm_90): the cluster holds the row on chip, read once and
//               written once in one launch (below).
//   cumsum_col  inner > 1: a CTA per tile of TX * V columns by TY * U rows; a thread
//               scans U consecutive rows of its V columns, the CTA the TY thread totals.
//   cumsum_strip inner > 1 with enough strips of columns to fill the GPU: a CTA per
//               strip walks down the whole column, chunk by chunk, carrying the running
//               totals in registers. No chain (the column form's look-back serialises
//               down thousands of rows), so no status and the same result on every run.
//
//   cumsum_tile_totals  the totals of cumsum_row's tiles, a CTA each: the first pass of
//               the two-pass form of rows longer than a tile (below).
//
// A row longer than one tile is a chain of tiles (consecutive CTAs). When x is small
// enough to stay in L2 between two passes, cumsum_tile_totals sums every tile first and
// cumsum_row, its programmatic dependent, starts each tile from the totals of the tiles
// before it (both with half the items a thread of 4- and 8-byte elements: there is no
// chain to shorten). No tile waits for another, and the result is the same on every run.
// The first pass reads x from DRAM and the second mostly from L2. Otherwise the tiles are
// joined by a decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan
// with Decoupled Look-back", 2016): a tile publishes its aggregate as soon as it is
// known, then walks back over its predecessors, adding aggregates until it meets one that
// has published its inclusive prefix, and publishes its own. Tiles are taken in blockIdx
// order, which is the order CTAs start in (as CUB relies on), part-major (TileOrder), so
// a tile only waits on tiles that have started. `zero_words` zeroes the flags; the scan
// kernel is launched as its programmatic dependent and waits for it only before touching
// the status. Floating results depend on how far each look-back went, so they can differ
// between runs in the last bits (integers are exact).
#pragma once
#include "common.cuh"
#include "slice.cuh"

namespace tileops_cuda {

// The CTA as one row group, for CTA-wide sums.
template <int TPR>
using CtaGroup = RowGroup<TPR, 1, 1>;

enum TileFlag : u32 { kTileEmpty = 0, kTileAggregate = 1, kTilePrefix = 2 };

// The status of `tiles` tiles of L lanes (columns; 1 for rows) each: flags, then the
// aggregates, then the inclusive prefixes. The host sizes it the same way (scan_status_bytes
// in src/ops/cumsum.cpp).
template <class A, int L>
struct TileStatus {
  u32* flags;
  A* agg;
  A* inc;
  __device__ __forceinline__ TileStatus(void* base, i64 tiles) {
    flags = static_cast<u32*>(base);
    agg = reinterpret_cast<A*>(static_cast<char*>(base) + ((tiles * 4 + 15) & ~i64(15)));
    inc = agg + tiles * L;
  }
  // Writes this lane's V values of tile `id` (lanes l * V ... of L; lanes past L write
  // nothing) to `dst` (agg or inc), then, once every lane of the warp has written and
  // fenced, lane 0 sets the flag.
  template <int V>
  __device__ __forceinline__ void publish(A* dst, i64 id, const A (&v)[V], u32 flag) const {
    const u32 lane = threadIdx.x % 32;
    if (lane * V < L)
#pragma unroll
      for (int k = 0; k < V; ++k) dst[id * L + lane * V + k] = v[k];
    __threadfence();
    __syncwarp();
    if (lane == 0) st_release(flags + id, flag);
  }
};

// The total of the tiles before tile `id` (the `part`-th of its chain; predecessors are
// id - 1, id - 2, ...), looking back over 32 predecessors at a time. Publishes the
// tile's aggregate `agg` first and its inclusive prefix last. Called by one whole warp;
// every lane gets the total.
template <class A>
__device__ A row_chain_prefix(const TileStatus<A, 1>& s, i64 id, i64 part, A agg) {
  const u32 lane = threadIdx.x % 32;
  const A mine[1] = {agg};
  if (part == 0) {
    s.publish(s.inc, id, mine, kTilePrefix);
    return A(0);
  }
  s.publish(s.agg, id, mine, kTileAggregate);
  A before = A(0);
  for (i64 newest = part - 1;; newest -= 32) {
    const i64 q = newest - i64(lane);  // this lane's predecessor, by place in the chain
    const i64 pred = id - (part - q);
    u32 f = kTilePrefix;
    if (q >= 0)
      while ((f = ld_acquire(s.flags + pred)) == kTileEmpty) {
      }
    // The nearest predecessor with a prefix ends the look-back; lanes past it add nothing.
    const u32 prefixed = __ballot_sync(0xffffffffu, q >= 0 && f == kTilePrefix);
    const int stop = prefixed ? __ffs(prefixed) - 1 : 32;
    A v = A(0);
    if (q >= 0 && int(lane) <= stop) v = ld_relaxed(f == kTilePrefix ? s.inc + pred : s.agg + pred);
#pragma unroll
    for (int o = 16; o > 0; o /= 2) v += shfl_xor(v, o);
    before += v;
    if (prefixed) break;
  }
  const A inclusive[1] = {before + agg};
  s.publish(s.inc, id, inclusive, kTilePrefix);
  return before;
}

// The column form's look-back: lane l of the calling warp owns columns l * V ... of the
// tile, and walks back (predecessor id - stride, then id - 2 * stride, ...) one tile at a
// time. Writes the total before the tile to `before`.
template <class A, int L, int V>
__device__ void col_chain_prefix(const TileStatus<A, L>& s, i64 id, i64 part, i64 stride, const A (&agg)[V],
                                 A (&before)[V]) {
  const u32 lane = threadIdx.x % 32;
#pragma unroll
  for (int k = 0; k < V; ++k) before[k] = A(0);
  if (part == 0) {
    s.publish(s.inc, id, agg, kTilePrefix);
    return;
  }
  // When the predecessor's prefix is already out (the common case), the aggregate would
  // never be read: skip writing it. One decision for the warp: its lanes publish together.
  if (__any_sync(0xffffffffu, ld_acquire(s.flags + id - stride) != kTilePrefix))
    s.publish(s.agg, id, agg, kTileAggregate);
  for (i64 pred = id - stride;; pred -= stride) {
    u32 f;
    while ((f = ld_acquire(s.flags + pred)) == kTileEmpty) {
    }
    const A* src = (f == kTilePrefix ? s.inc : s.agg) + pred * L + lane * V;
#pragma unroll
    for (int k = 0; k < V; ++k) before[k] += ld_relaxed(src + k);
    if (f == kTilePrefix) break;
  }
  A inclusive[V];
#pragma unroll
  for (int k = 0; k < V; ++k) inclusive[k] = before[k] + agg[k];
  s.publish(s.inc, id, inclusive, kTilePrefix);
}

// Inclusive scan of v, in lane order, over the lanes of the warp that share this lane's
// remainder mod `stride` (1: the whole warp; TX: the thread rows of a strip's warp).
template <class A>
__device__ __forceinline__ A warp_scan(A v, int stride) {
  const u32 lane = threadIdx.x % 32;
#pragma unroll
  for (int d = stride; d < 32; d *= 2) {
    const A n = shfl_up(v, d);
    if (lane >= u32(d)) v += n;
  }
  return v;
}

// Of the N group totals at totals[0], totals[stride], ...: the sum of those before group
// `g`, and the sum of all, each added in group order.
template <class A, int N>
__device__ __forceinline__ void before_and_total(const A* totals, int stride, int g, A& before, A& total) {
  before = total = A(0);
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const A t = totals[j * stride];
    if (j < g) before += t;
    total += t;
  }
}

// A warp's share of a row tile in registers: `in[i]` is the vector at element
// first + (i * 32 + lane) * V (past len: none). Writes the inclusive scan of each vector
// to v and what comes before each vector within the warp to base; returns the warp's
// total.
template <class T, class A, int V, int ITEMS>
__device__ __forceinline__ A scan_warp_span(const Vec<T, V> (&in)[ITEMS], i64 first, i64 len, A (&v)[ITEMS][V],
                                            A (&base)[ITEMS]) {
  const u32 lane = threadIdx.x % 32;
  A carry = A(0);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const bool ok = first + i64(i * 32 + int(lane)) * V < len;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      v[i][k] = ok ? acc_of(in[i].get(k)) : A(0);
      if (k > 0) v[i][k] += v[i][k - 1];
    }
    const A s = warp_scan(v[i][V - 1], 1);
    const A exclusive = shfl_up(s, 1);
    base[i] = carry + (lane > 0 ? exclusive : A(0));
    carry += shfl_idx(s, 31);
  }
  return carry;
}

// The L2 priority of a two-pass row's accesses. x plus y is more than L2 holds: the
// first pass marks x evict-last (kL2Keep); the second pass's reads and its results go
// evict-first (kL2Drop), so that y streaming through L2 does not push out x still
// waiting for its second read (top-p [64, 128256] fp32 0.655 -> 0.725 of copy, a [1, 16M]
// bf16 row 0.60 -> 0.70). Only for 16-byte vectors of 2- and 4-byte elements: int64's
// 64-thread tile spilled with the policy's register.
enum L2Priority { kL2Default, kL2Keep, kL2Drop };

template <class T, int V>
constexpr bool kHasL2Priority = Vec<T, V>::kBytes == 16 && sizeof(T) <= 4;

template <class T, int V>
__device__ __forceinline__ u64 l2_policy(L2Priority priority) {
  if constexpr (kHasL2Priority<T, V>)
    return priority == kL2Keep ? l2_evict_last() : l2_evict_first();
  else
    return 0;
}

// A vector stored under `priority` (its `policy`, from l2_policy) where the vectors take
// one, plainly otherwise.
template <class T, int V>
__device__ __forceinline__ void store_with(T* p, const Vec<T, V>& v, L2Priority priority, u64 policy) {
  if constexpr (kHasL2Priority<T, V>)
    if (priority != kL2Default) return store_l2<T, V>(p, v, policy);
  store<T, V>(p, v);
}

// Stores the warp's share scanned by scan_warp_span, offset by `before` (everything
// before the warp's span in the row), under an L2 priority where the vectors take one.
template <class T, class A, int V, int ITEMS>
__device__ __forceinline__ void store_warp_span(T* y, i64 first, i64 len, A before, const A (&v)[ITEMS][V],
                                                const A (&base)[ITEMS], L2Priority priority) {
  const u32 lane = threadIdx.x % 32;
  const u64 policy = priority == kL2Default ? 0 : l2_policy<T, V>(priority);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const i64 e = first + i64(i * 32 + int(lane)) * V;
    if (e >= len) continue;
    const A offset = before + base[i];
    Vec<T, V> out = {};
#pragma unroll
    for (int k = 0; k < V; ++k) out.set(k, value_of<T>(offset + v[i][k]));
    store_with<T, V>(y + e, out, priority, policy);
  }
}

// This thread's share of the total of the tiles before the `part`-th of its row (tile
// `id`), from the totals of cumsum_tile_totals: those at q = threadIdx.x, + TPR, ...,
// added in that order. The whole CTA reads them, TPR at a time: the last tiles of a long
// row have thousands before them (a fp32 row of 32 MB has 2,048 tiles), which one warp
// read 32 at a time, a round of L2 latency each (such a row: 0.63 of copy, 0.64 by the
// CTA; 8 MB: 0.68, 0.72). The first read stands outside the loop, so that a row of at
// most TPR tiles waits for it only where the share is used.
template <class A, int TPR>
__device__ __forceinline__ A tiles_before_share(const A* totals, i64 id, i64 part) {
  const A* first = totals + (id - part);
  A v = i64(threadIdx.x) < part ? first[threadIdx.x] : A(0);
#pragma unroll 1
  for (i64 q = i64(threadIdx.x) + TPR; q < part; q += TPR) v += first[q];
  return v;
}

// This warp's share of tile blockIdx.x of cumsum_row's tiling (the `part`-th tile of
// `row`), loaded as scan_warp_span reads it: `in[i]` is the vector at element
// first + (i * 32 + lane) * V, when that is within the row (has). ORDER (TileOrder): the
// look-back's tiles start part-major (every row's first tile, then every row's second,
// ...), so that a tile's predecessors started `outer` CTAs before it and have mostly
// published when it looks back (top-p [64, 128256] fp32 chained: 29.9 -> 25.7 µs); the
// two-pass form's start row-major (part-major: 2% slower). Status slots and totals are
// indexed row-major (`id`) in both.
template <class T, int V, int ITEMS, int TPR, int ORDER>
struct RowTileSpan {
  static constexpr i64 SPAN = 32 * ITEMS * V, TILE = TPR * ITEMS * V;
  i64 id, row, part, first;
  Vec<T, V> in[ITEMS];
  __device__ __forceinline__ RowTileSpan(const ScanParams& p, L2Priority priority) {
    if constexpr (ORDER == kRowMajor) {
      id = blockIdx.x;
      row = id / p.chain;
      part = id % p.chain;
    } else {
      const u32 rows = u32(p.outer);  // a CTA for each tile: the grid's count fits
      row = blockIdx.x % rows;
      part = blockIdx.x / rows;
      id = row * p.chain + part;
    }
    first = part * TILE + i64(threadIdx.x / 32) * SPAN;
    const T* x = static_cast<const T*>(p.x) + row * p.len;
    const auto at = [&](int i) { return x + first + i64(i * 32 + int(threadIdx.x % 32)) * V; };
    // The priority is tested once, outside the unrolled loads (the form measured).
    if constexpr (kHasL2Priority<T, V>) {
      if (priority != kL2Default) {
        const u64 policy = l2_policy<T, V>(priority);
        load_all(p.len, [&](int i) { return load_l2<T, V>(at(i), policy); });
        return;
      }
    }
    load_all(p.len, [&](int i) { return load<T, V>(at(i)); });
  }
  template <class Load>
  __device__ __forceinline__ void load_all(i64 len, Load load_item) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
      if (has(i, len)) in[i] = load_item(i);
  }
  __device__ __forceinline__ bool has(int i, i64 len) const {
    return first + i64(i * 32 + int(threadIdx.x % 32)) * V < len;
  }
};

// The first pass of the two-pass rows: tile `id` of cumsum_row's tiling (the same
// elements) summed into totals[id].
template <class T, int V, int ITEMS, int TPR>
__global__ void __launch_bounds__(TPR) cumsum_tile_totals(const ScanParams p) {
  typedef typename Acc<T>::type A;
  __shared__ A buf[CtaGroup<TPR>::kBuf];
  pdl_launch_dependents();  // cumsum_row loads its tiles meanwhile, and waits before reading the totals
  const RowTileSpan<T, V, ITEMS, TPR, kRowMajor> span(p, kL2Keep);
  A t = A(0);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i)
    if (span.has(i, p.len))
#pragma unroll
      for (int k = 0; k < V; ++k) t += acc_of(span.in[i].get(k));
  t = CtaGroup<TPR>().reduce_to_lane0(t, SumOp(), buf);
  if (threadIdx.x == 0) static_cast<A*>(p.totals)[span.id] = t;
}

template <class T, int V, int ITEMS, int TPR, int ORDER>
__global__ void __launch_bounds__(TPR) cumsum_row(const ScanParams p) {
  typedef typename Acc<T>::type A;
  static_assert(TPR % 32 == 0, "whole warps");
  constexpr int WARPS = TPR / 32;
  __shared__ A warp_total[WARPS], warp_tiles_before[WARPS];
  __shared__ A tile_before;
  const u32 lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const L2Priority priority = p.totals ? kL2Drop : kL2Default;  // the two-pass form's second pass
  const RowTileSpan<T, V, ITEMS, TPR, ORDER> span(p, priority);
  const i64 id = span.id, row = span.row, part = span.part, first = span.first;
  // The two-pass form reads the totals of the tiles before this one while the tile's own
  // loads are in flight, and combines them at the barrier that combines the warps' spans:
  // the tile waits once for L2 and once for the CTA, not once more of each after its scan.
  const bool from_totals = p.chain > 1 && p.totals;  // uniform over the grid
  A share = A(0);
  if (from_totals) {
    pdl_wait();  // the totals are written by cumsum_tile_totals
    share = tiles_before_share<A, TPR>(static_cast<const A*>(p.totals), id, part);
  }
  A v[ITEMS][V], base[ITEMS];
  const A carry = scan_warp_span<T, A, V, ITEMS>(span.in, first, p.len, v, base);
  if (from_totals) share = warp_reduce<32>(share, SumOp());
  if (lane == 0) {
    warp_total[warp] = carry;
    warp_tiles_before[warp] = share;
  }
  __syncthreads();
  A before_warp, total;
  before_and_total<A, WARPS>(warp_total, 1, int(warp), before_warp, total);
  if (from_totals) {
    A tiles = A(0);
#pragma unroll
    for (int w = 0; w < WARPS; ++w) tiles += warp_tiles_before[w];
    before_warp = tiles + before_warp;
  } else if (p.chain > 1) {
    if (warp == 0) {
      pdl_wait();  // the status is zeroed by zero_words
      const A b = row_chain_prefix(TileStatus<A, 1>(p.status, p.tiles), id, part, total);
      if (lane == 0) tile_before = b;
    }
    __syncthreads();
    before_warp = tile_before + before_warp;
  }
  store_warp_span<T, A, V, ITEMS>(static_cast<T*>(p.y) + row * p.len, first, p.len, before_warp, v, base, priority);
}

// Rows of one tile each, many more of them than the GPU holds CTAs (sm_90): a persistent
// CTA sweeps rows blockIdx.x, + gridDim.x, ..., each row staged whole in shared memory by
// the bulk copy engine STAGES rows ahead (slice.cuh), so that an SM's next rows load
// while it scans and stores this one. cumsum_row, a CTA a row, loads, scans and stores
// in turn: int64 rows, whose 512-thread tiles fit one an SM, ran at 0.68 of copy.
template <class T, int V, int ITEMS, int TPR, int STAGES>
__global__ void __launch_bounds__(TPR) cumsum_row_staged(const ScanParams p) {
  typedef typename Acc<T>::type A;
  static_assert(TPR % 32 == 0 && Vec<T, V>::kBytes == 16, "whole warps, 16-byte vectors");
  constexpr int WARPS = TPR / 32, SPAN = 32 * ITEMS * V;
  extern __shared__ __align__(16) u32 slices[];
  __shared__ u64 bars[STAGES];
  // By row parity: a row's totals are written only after every thread has passed the
  // barrier of the row between, so no thread still reads them.
  __shared__ A warp_total[2][WARPS];
  const u32 lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const SlicedRows<T, STAGES> sweep(p.x, p.len, p.outer, 1, 0, slices, bars);
  const i64 first = i64(warp) * SPAN;
  for (u32 n = 0; sweep.rows.has(n); ++n) {
    const u32* slice = sweep.slice(n);
    Vec<T, V> in[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const i64 e = first + i64(i * 32 + int(lane)) * V;
      if (e < p.len) in[i] = slice_vec<T, V>(slice, int(e / V));
    }
    sweep.done(n);  // the stage refills with row n + STAGES while this row is scanned
    A v[ITEMS][V], base[ITEMS];
    const A carry = scan_warp_span<T, A, V, ITEMS>(in, first, p.len, v, base);
    if (lane == 0) warp_total[n & 1][warp] = carry;
    __syncthreads();
    A before_warp, total;
    before_and_total<A, WARPS>(warp_total[n & 1], 1, int(warp), before_warp, total);
    store_warp_span<T, A, V, ITEMS>(static_cast<T*>(p.y) + sweep.rows.nth(n) * p.len, first, p.len, before_warp, v,
                                    base, kL2Default);
  }
}

// The sum of the elements of a vector.
template <class T, class A, int V>
__device__ __forceinline__ A vec_sum(const Vec<T, V>& v) {
  A t = acc_of(v.get(0));
#pragma unroll
  for (int k = 1; k < V; ++k) t += acc_of(v.get(k));
  return t;
}

// Scans one 32-vector chunk of a warp's share (lane l's vector in[0], element first + l *
// V of `out`; none at or past `end`) and stores it from `before`, everything before the
// chunk. Returns the chunk's total.
template <class T, class A, int V>
__device__ __forceinline__ A scan_chunk(const Vec<T, V> (&in)[1], i64 first, i64 end, A before, T* out) {
  A v[1][V], base[1];
  const A total = scan_warp_span<T, A, V, 1>(in, first, end, v, base);
  store_warp_span<T, A, V, 1>(out, first, end, before, v, base, kL2Default);
  return total;
}

// A cluster a row, the rows one wave (the host's choice of grid and held vectors). CTA
// `rank` holds its range of the row: the first REGS * TPR vectors in registers
// (HeldVectors), in chunks of 32 (chunk (j, w), vectors j * TPR + 32 w ..., is warp w's),
// and the rest in its slice of shared memory (SlicedRows), a contiguous span a warp. The
// first pass sums each chunk and span as they land; the CTA's total goes on to the CTAs
// ranked after it (ClusterInbox::send_on), each adding those of the ranks before it, so
// rank 0 goes straight on and no CTA waits for a later one. The second pass
// scans chunk by chunk, each from everything before it, and stores as it goes: the row is
// read once, from DRAM, where the two-pass form reads it twice (the second time mostly
// from L2) in two launches.
template <class T, int TPR, int CLUSTER, int REGS>
__global__ void __launch_bounds__(TPR, kHeldCtasPerSm<REGS>) cumsum_smem(const ScanParams p) {
  typedef typename Acc<T>::type A;
  static_assert(TPR % 32 == 0, "whole warps");
  constexpr int V = 16 / int(sizeof(T)), WARPS = TPR / 32, HELD = REGS > 0 ? REGS : 1;
  extern __shared__ __align__(16) u32 slices[];
  __shared__ u64 bars[1];
  __shared__ A chunk_total[HELD][WARPS], span_total[WARPS];
  __shared__ ClusterInbox<A, CLUSTER> inbox;
  const RowGroup<TPR, 1, CLUSTER> g(inbox);
  const SlicedRows<T, 1, 1, TPR> sweep(p.x, p.len, p.outer, CLUSTER, g.rank, slices, bars, REGS * TPR);
  HeldVectors<T, REGS, TPR> held(sweep.kept, g.lane);
  held.fetch(sweep, 0);
  const u32 lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int kept = sweep.kept, slice_vecs = sweep.range.count - kept;
  const int span = (slice_vecs + 32 * WARPS - 1) / (32 * WARPS) * 32;  // whole chunks
  const int span_begin = min(int(warp) * span, slice_vecs), span_end = min(span_begin + span, slice_vecs);
#pragma unroll
  for (int j = 0; j < REGS; ++j) {
    const A t = warp_reduce<32>(held.index(j) < kept ? vec_sum<T, A, V>(held.v[j]) : A(0), SumOp());
    if (lane == 0) chunk_total[j][warp] = t;
  }
  const u32* slice = sweep.slice(0);
  A t = A(0);
  for (int i = span_begin + int(lane); i < span_end; i += 32) t += vec_sum<T, A, V>(slice_vec<T, V>(slice, i));
  t = warp_reduce<32>(t, SumOp());
  if (lane == 0) span_total[warp] = t;
  __syncthreads();
  // What comes before each of this warp's chunks and its span within the CTA's range, in
  // the range's order; the CTA's total last.
  A before_chunk[HELD], before_span = A(0), run = A(0);
#pragma unroll
  for (int j = 0; j < REGS; ++j)
#pragma unroll
    for (int w = 0; w < WARPS; ++w) {
      if (w == int(warp)) before_chunk[j] = run;
      run += chunk_total[j][w];
    }
#pragma unroll
  for (int w = 0; w < WARPS; ++w) {
    if (w == int(warp)) before_span = run;
    run += span_total[w];
  }
  const A ranks = g.ranks_before(run, inbox, 0);
  T* y = static_cast<T*>(p.y) + sweep.rows.nth(0) * p.len + sweep.range.begin * V;  // the CTA's range
#pragma unroll
  for (int j = 0; j < REGS; ++j) {
    const Vec<T, V> in[1] = {held.v[j]};
    scan_chunk<T, A, V>(in, i64(held.index(j) - int(lane)) * V, i64(kept) * V, ranks + before_chunk[j], y);
  }
  A carry = ranks + before_span;
  for (int c = span_begin; c < span_end; c += 32) {
    Vec<T, V> in[1];
    if (c + int(lane) < span_end) in[0] = slice_vec<T, V>(slice, c + int(lane));
    carry += scan_chunk<T, A, V>(in, i64(kept + c) * V, i64(kept + span_end) * V, carry, y);
  }
  g.finish();
}

// Block: TX (a warp) by TY threads. Tile id = (o * chain + c) * col_blocks + b: columns
// [b * TX * V, (b + 1) * TX * V) of rows [c * TY * U, (c + 1) * TY * U) of x[o]; its
// predecessor in the chain is id - col_blocks.
template <class T, int V, int U, int TX, int TY>
__global__ void __launch_bounds__(TX* TY) cumsum_col(const ScanParams p) {
  typedef typename Acc<T>::type A;
  static_assert(TX == 32, "row 0 of the block is warp 0, which does the look-back");
  constexpr int L = TX * V;
  __shared__ A part_total[TY][L];
  __shared__ A tile_before[L];
  const u32 tx = threadIdx.x, ty = threadIdx.y;
  const i64 id = blockIdx.x;
  const i64 block = id % p.col_blocks, q = id / p.col_blocks;
  const i64 c = q % p.chain, o = q / p.chain;
  const i64 col = block * L + i64(tx) * V;
  const bool active = col < p.inner;
  const i64 r0 = c * (TY * U) + i64(ty) * U;
  const T* x = static_cast<const T*>(p.x) + o * p.len * p.inner + col;
  Vec<T, V> in[U];
#pragma unroll
  for (int u = 0; u < U; ++u)
    if (active && r0 + u < p.len) in[u] = load<T, V>(x + (r0 + u) * p.inner);
  A v[U][V];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const bool ok = active && r0 + u < p.len;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      v[u][k] = ok ? acc_of(in[u].get(k)) : A(0);
      if (u > 0) v[u][k] += v[u - 1][k];
    }
  }
#pragma unroll
  for (int k = 0; k < V; ++k) part_total[ty][tx * V + k] = v[U - 1][k];
  __syncthreads();
  A before[V], total[V];
#pragma unroll
  for (int k = 0; k < V; ++k) before_and_total<A, TY>(&part_total[0][tx * V + k], L, int(ty), before[k], total[k]);
  if (p.chain > 1) {  // uniform over the grid
    if (ty == 0) {
      pdl_wait();  // the status is zeroed by zero_words
      A b[V];
      col_chain_prefix(TileStatus<A, L>(p.status, p.tiles), id, c, p.col_blocks, total, b);
#pragma unroll
      for (int k = 0; k < V; ++k) tile_before[tx * V + k] = b[k];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < V; ++k) before[k] = tile_before[tx * V + k] + before[k];
  }
  T* y = static_cast<T*>(p.y) + o * p.len * p.inner + col;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    if (!active || r0 + u >= p.len) continue;
    Vec<T, V> out = {};
#pragma unroll
    for (int k = 0; k < V; ++k) out.set(k, value_of<T>(before[k] + v[u][k]));
    store<T, V>(y + (r0 + u) * p.inner, out);
  }
}

// Block: TX threads across a strip of TX * V columns of x[o] (o = blockIdx.x /
// col_blocks), TY thread rows down. A chunk is TY * U rows, a thread's U of them
// consecutive. The thread rows of a warp combine with shuffles, the warps through
// shared memory (double-buffered by chunk parity: one barrier a chunk). The next chunk's
// loads are issued before the current one is scanned, so a CTA keeps two chunks of
// reads in flight.
template <class T, int V, int U, int TX, int TY>
__global__ void __launch_bounds__(TX* TY) cumsum_strip(const ScanParams p) {
  typedef typename Acc<T>::type A;
  static_assert(32 % TX == 0 && TX * TY % 32 == 0, "a warp holds whole thread rows");
  constexpr int WARPS = TX * TY / 32, L = TX * V, ROWS = TY * U;
  __shared__ A warp_total[2][WARPS][L];
  const u32 lane = threadIdx.x % 32, warp = threadIdx.x / 32, tx = threadIdx.x % TX, ty = threadIdx.x / TX;
  const i64 o = blockIdx.x / p.col_blocks;
  const i64 col = (blockIdx.x % p.col_blocks) * L + i64(tx) * V;
  const bool active = col < p.inner;  // V divides inner: the whole vector is in
  const T* x = static_cast<const T*>(p.x) + o * p.len * p.inner + col;
  T* y = static_cast<T*>(p.y) + o * p.len * p.inner + col;
  Vec<T, V> next[U];
  auto fetch = [&](i64 r0) {
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (active && r0 + u < p.len) next[u] = load<T, V>(x + (r0 + u) * p.inner);
  };
  A carry[V];
#pragma unroll
  for (int k = 0; k < V; ++k) carry[k] = A(0);
  fetch(i64(ty) * U);
  int parity = 0;
  for (i64 chunk = 0; chunk < p.len; chunk += ROWS, parity ^= 1) {
    const i64 r0 = chunk + i64(ty) * U;
    Vec<T, V> in[U];
#pragma unroll
    for (int u = 0; u < U; ++u) in[u] = next[u];
    if (chunk + ROWS < p.len) fetch(r0 + ROWS);
    // v: this thread's rows, then the warp's thread rows up to this one (inclusive).
    A v[V];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      v[k] = A(0);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (r0 + u < p.len) v[k] += acc_of(in[u].get(k));
      v[k] = warp_scan(v[k], TX);
      if (lane >= u32(32 - TX)) warp_total[parity][warp][tx * V + k] = v[k];
    }
    __syncthreads();
    A run[V];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const A exclusive = shfl_up(v[k], TX);
      A before, total;
      before_and_total<A, WARPS>(&warp_total[parity][0][tx * V + k], L, int(warp), before, total);
      run[k] = carry[k] + before + (lane >= u32(TX) ? exclusive : A(0));
      carry[k] += total;
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (!active || r0 + u >= p.len) continue;
      Vec<T, V> out = {};
#pragma unroll
      for (int k = 0; k < V; ++k) {
        run[k] += acc_of(in[u].get(k));
        out.set(k, value_of<T>(run[k]));
      }
      store<T, V>(y + (r0 + u) * p.inner, out);
    }
  }
}

}  // namespace tileops_cuda
