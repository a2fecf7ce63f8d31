// Sum, mean, amax and argmax of x viewed as [outer, len, inner] along len.
//
//   reduce_row      inner == 1: TPR threads per row, RPC rows per CTA, vector loads along
//                   the row; `splits` CTAs per row (grid.y) when rows are too few to fill
//                   the GPU, each writing a partial.
//   reduce_short    inner == 1, rows of at most 256 bytes: a thread per row; the CTA's
//                   rows, one contiguous run, are staged through shared memory with
//                   16-byte loads (the rows themselves are not aligned).
//   reduce_col      inner > 1: TX threads across inner (V columns each) by TY threads
//                   down len; on sm_90 the CTAs of a cluster split len and combine their
//                   totals through distributed shared memory in rank order
//                   (deterministic); before sm_90 `splits` CTAs down len (grid.y) write
//                   partials.
//   reduce_finalize combines the partials [n_out][splits] into the output, a warp or
//                   (many partials) a CTA each; it is launched as the programmatic
//                   dependent of the kernel that writes them, so its launch overlaps
//                   that kernel.
//   reduce_general  axes that do not coalesce into one run (e.g. dims 0 and 2 of three):
//                   a warp per output element walks the reduced index space.
// Floating inputs accumulate in fp32; integers (amax, argmax) exactly in their own type.
// amax propagates NaN; argmax returns the first index of the maximum, NaN counting as the
// maximum (torch), so its combine is order-independent and any split gives one answer.
#pragma once
#include "common.cuh"

namespace tileops_cuda {

// A value and its index along the reduced axis (below 2^31: the plan refuses longer).
template <class A>
struct ArgAcc {
  A v;
  i32 i;
};

__device__ __forceinline__ bool is_nan(float v) { return v != v; }
__device__ __forceinline__ bool is_nan(i32) { return false; }
__device__ __forceinline__ bool is_nan(i64) { return false; }
__device__ __forceinline__ float lowest(float) { return neg_inf(); }
__device__ __forceinline__ i32 lowest(i32) { return i32(0x80000000u); }
__device__ __forceinline__ i64 lowest(i64) { return i64(0x8000000000000000ull); }

template <class T, int RED>
struct Reducer {
  typedef typename Acc<T>::type Val;
  typedef Val A;
  static __device__ __forceinline__ A identity() { return RED == kAmax ? lowest(Val()) : Val(0); }
  static __device__ __forceinline__ A make(Val v, i64) { return v; }
  __device__ __forceinline__ A operator()(A a, A b) const {
    if constexpr (RED == kAmax) {
      if constexpr (IsFloat<T>::value)
        return max_nan(a, b);
      else
        return a > b ? a : b;
    } else {
      return a + b;
    }
  }
  static __device__ __forceinline__ void write(T* y, i64 o, A a, float scale) {
    if constexpr (IsFloat<T>::value)
      y[o] = from_float<T>(RED == kMean ? a * scale : a);
    else
      y[o] = T(a);
  }
};

template <class T>
struct Reducer<T, kArgmax> {
  typedef typename Acc<T>::type Val;
  typedef ArgAcc<Val> A;
  static __device__ __forceinline__ A identity() { return {lowest(Val()), 0x7fffffff}; }
  __device__ __forceinline__ A operator()(A a, A b) const {
    const bool a_nan = is_nan(a.v), b_nan = is_nan(b.v);
    bool take_b;
    if (b_nan)
      take_b = !a_nan || b.i < a.i;
    else
      take_b = !a_nan && (b.v > a.v || (b.v == a.v && b.i < a.i));
    return take_b ? b : a;
  }
  static __device__ __forceinline__ A make(Val v, i64 i) { return {v, i32(i)}; }
  static __device__ __forceinline__ void write(i64* y, i64 o, A a, float) { y[o] = i64(a.i); }
  static constexpr i32 kNone = 0x7fffffff;  // the index of the identity
  // True when b replaces a as the maximum seen so far, visiting indices in increasing
  // order: larger, or the first NaN.
  static __device__ __forceinline__ bool beats(Val b, Val a) {
    return is_nan(b) ? !is_nan(a) : (!is_nan(a) && b > a);
  }
  // Takes (v, i) when it beats acc, or when acc is still the identity (a row of lowest
  // values must still answer its first index); says whether it did.
  static __device__ __forceinline__ bool take(A& acc, Val v, i64 i) {
    if (acc.i != kNone && !beats(v, acc.v)) return false;
    acc = {v, i32(i)};
    return true;
  }
  // The start of a walk over indices in increasing order from `first` (kNone: an empty
  // walk): the lowest value at `first`, which is true unless a later take_beating
  // replaces it, so the walk needs no test for the identity (a column walk's hot loop).
  static __device__ __forceinline__ A walk_from(i64 first) { return {lowest(Val()), i32(first)}; }
  static __device__ __forceinline__ void take_beating(A& acc, Val v, i64 i) {
    if (beats(v, acc.v)) acc = {v, i32(i)};
  }
  static __device__ __forceinline__ Val vmax(Val a, Val b) {
    if constexpr (IsFloat<T>::value)
      return max_nan(a, b);
    else
      return a > b ? a : b;
  }
  // The largest of V elements, NaN if any is NaN. 16-bit floats compare two at a time.
  template <int V>
  static __device__ __forceinline__ Val vec_max(const Vec<T, V>& v) {
    if constexpr (sizeof(T) == 2 && V % 2 == 0) {
      u32 w = v.w[0];
#pragma unroll
      for (int j = 1; j < V / 2; ++j) {
        if constexpr (IsSame<T, bf16>::value)
          asm("max.NaN.bf16x2 %0, %1, %2;" : "=r"(w) : "r"(w), "r"(v.w[j]));
        else
          asm("max.NaN.f16x2 %0, %1, %2;" : "=r"(w) : "r"(w), "r"(v.w[j]));
      }
      Vec<T, 2> pair;
      pair.w[0] = w;
      return max_nan(pair.get_float(0), pair.get_float(1));
    } else {
      Val m = acc_of(v.get(0));
#pragma unroll
      for (int k = 1; k < V; ++k) m = vmax(m, acc_of(v.get(k)));
      return m;
    }
  }
  // The element index within a vector whose maximum is m: its first NaN if m is NaN,
  // else its first element equal to m.
  template <int V>
  static __device__ __forceinline__ int index_in(const Vec<T, V>& v, Val m) {
    int found = V - 1;
#pragma unroll
    for (int k = V - 1; k >= 0; --k) {
      const Val x = acc_of(v.get(k));
      if (is_nan(m) ? is_nan(x) : x == m) found = k;
    }
    return found;
  }
};

// Argmax over groups of W lanes in two cheap steps instead of W-1 combines of (value,
// index) pairs: the largest value (NaN if any), then the least index among the lanes that
// hold it, which is what the pairwise combine answers. A lane still at the identity holds
// kNone, above every real index.
template <int W, class T>
__device__ __forceinline__ ArgAcc<typename Acc<T>::type> warp_reduce(ArgAcc<typename Acc<T>::type> a,
                                                                    Reducer<T, kArgmax>) {
  typedef Reducer<T, kArgmax> R;
  typename R::Val m = a.v;
#pragma unroll
  for (int o = W / 2; o > 0; o /= 2) m = R::vmax(m, shfl_xor(m, o));
  i32 i = (is_nan(m) ? is_nan(a.v) : a.v == m) ? a.i : R::kNone;
  if constexpr (W == 32) {
    i = __reduce_min_sync(0xffffffffu, i);
  } else {
#pragma unroll
    for (int o = W / 2; o > 0; o /= 2) i = min(i, shfl_xor(i, o));
  }
  return {m, i};
}

template <class T, int RED>
struct OutType {
  typedef T type;
};
template <class T>
struct OutType<T, kArgmax> {
  typedef i64 type;
};

// Grid: x = ceil(outer / RPC), y = splits. Each row group reduces vectors
// [s * chunk, (s + 1) * chunk) of its row; with splits > 1 it writes a partial. U: the
// vectors a thread has in flight (row_unroll in src/ops/reduce_layout.hpp).
template <class T, int RED, int V, int TPR, int RPC, int U>
__global__ void __launch_bounds__(TPR* RPC) reduce_row(const ReduceParams p) {
  typedef Reducer<T, RED> R;
  typedef typename R::A A;
  typedef RowGroup<TPR, RPC, 1> Group;
  __shared__ A buf[Group::kBuf];
  pdl_launch_dependents();  // reduce_finalize, if any, waits for the partials
  const Group g;
  const R op;
  const bool active = g.row < p.outer;
  const i64 nvec = p.len / V;
  const i64 begin = i64(blockIdx.y) * p.chunk;
  const i64 end = active ? (begin + p.chunk < nvec ? begin + p.chunk : nvec) : 0;
  const T* x = static_cast<const T*>(p.x) + g.row * p.len;
  A acc = R::identity();
  [[maybe_unused]] Vec<T, V> best = {};  // argmax: the vector acc.i starts, kept for its element
  for (i64 base = begin + g.lane; base < end; base += i64(TPR) * U) {
    Vec<T, V> v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (base + u * TPR < end) v[u] = load<T, V, kStreamNoL1>(x + (base + u * TPR) * V);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (base + u * TPR >= end) continue;
      if constexpr (RED == kArgmax) {
        // The vector's maximum and where the vector starts; the element is found below.
        if (R::take(acc, R::vec_max(v[u]), (base + u * TPR) * V)) best = v[u];
      } else {
#pragma unroll
        for (int k = 0; k < V; ++k) acc = op(acc, acc_of(v[u].get(k)));
      }
    }
  }
  if constexpr (RED == kArgmax)
    if (acc.i != R::kNone) acc.i += R::index_in(best, acc.v);
  acc = g.reduce_to_lane0(acc, op, buf);
  if (!active || g.lane != 0) return;
  if (p.splits > 1)
    static_cast<A*>(p.partial)[g.row * p.splits + blockIdx.y] = acc;
  else
    R::write(static_cast<typename OutType<T, RED>::type*>(p.y), g.row, acc, p.scale);
}

// Grid: ceil(outer / ROWS) CTAs of ROWS threads, a thread per row; dynamic shared memory
// ROWS * len elements. ALIGNED: x is 16-byte aligned, so every CTA's run is (ROWS * len
// elements start at a multiple of 16 bytes) and moves in 16-byte pieces: 16-bit runs by
// asynchronous copies, all in flight at once, wider ones through registers, a few at a
// time. On the H200 (tileops bench, L2 dirtied by a write before each call) the copies
// took resnet50's average pool [256, 2048, 7, 7] from 19.3 to 18.5 us in fp16 but from
// 29.9 to 31.8 us in fp32, whose CTAs move twice the bytes, also with 4-8 copies in flight
// a thread (docs/perf/cuda-kernels-h200.md, twenty-seventh round).
//
// A thread walks its row in shared memory. Rows of a multiple of 16 bytes would put a
// warp's reads of a step in the same banks four ways or more (32 ways for a power of two
// words: [16M / 64, 64] fp32 sums took 80 us against 23 for rows of 63), so each thread
// starts those from its own element, (thread * rot) % len, round to it again: rotated,
// the rows' stride is len + rot elements, which rot makes an odd number of words (of
// 8-byte words for 8-byte elements), and a step's 32 reads fall in 32 banks. Other rows
// are walked in order: the rotated walk costs twice the instructions, more than a
// two-way conflict does (docs/perf/cuda-kernels-h200.md, twenty-seventh round). A rotated
// walk's order is not the index order, so argmax combines (value, index) pairs, which
// picks the first index of the maximum in any order.
template <class T, int RED, int ROWS, int ALIGNED>
__global__ void __launch_bounds__(ROWS) reduce_short(const ReduceParams p) {
  typedef Reducer<T, RED> R;
  typedef typename R::A A;
  extern __shared__ __align__(16) u32 stage_words[];
  T* stage = reinterpret_cast<T*>(stage_words);
  const i64 row0 = i64(blockIdx.x) * ROWS;
  const i64 rows = p.outer - row0 < ROWS ? p.outer - row0 : ROWS;
  const int len = int(p.len);
  const int n = int(rows) * len;
  const T* x = static_cast<const T*>(p.x) + row0 * p.len;
  constexpr bool kCopyAsync = ALIGNED && sizeof(T) < 4;  // the 16-bit runs (above)
  int tail = 0;  // the first element moved one at a time
  if constexpr (ALIGNED) {
    constexpr int VV = 16 / int(sizeof(T));
    for (int i = int(threadIdx.x); i < n / VV; i += ROWS) {
      if constexpr (kCopyAsync) {
        copy_async_16<kCopyReadOnce>(stage_words + 4 * i, x + i64(i) * VV);
      } else {
        const Vec<T, VV> v = load<T, VV, kStreamNoL1>(x + i64(i) * VV);
#pragma unroll
        for (int w = 0; w < 4; ++w) stage_words[4 * i + w] = v.w[w];
      }
    }
    tail = n / VV * VV;
  }
  for (int e = tail + int(threadIdx.x); e < n; e += ROWS) stage[e] = load<T, 1>(x + e).get(0);
  if constexpr (kCopyAsync) wait_async_copies();
  __syncthreads();
  if (i64(threadIdx.x) >= rows) return;
  const R op;
  A acc = R::identity();
  const T* row = stage + threadIdx.x * len;
  if (len == 0 || len * int(sizeof(T)) % 16 != 0) {
    for (int j = 0; j < len; ++j) acc = op(acc, R::make(acc_of(row[j]), j));
  } else {
    constexpr int kPerWord = sizeof(T) < 4 ? 4 / int(sizeof(T)) : 1;  // elements a word
    const int rot = (kPerWord - len) & (2 * kPerWord - 1);
    const int j0 = int(threadIdx.x) * rot % len;
    // Each step's element from the step count, not from the last step's: no chain of
    // dependent index updates, and the unrolled steps' reads issue together.
#pragma unroll 4
    for (int c = 0; c < len; ++c) {
      const int j = j0 + c < len ? j0 + c : j0 + c - len;
      acc = op(acc, R::make(acc_of(row[j]), j));
    }
  }
  R::write(static_cast<typename OutType<T, RED>::type*>(p.y), row0 + threadIdx.x, acc, p.scale);
}

// Grid: x = outer * ceil(inner / (TX * V)) column tiles times the cluster size (sm_90:
// the cluster's CTAs split len), y = splits of `chunk` rows (before sm_90; splits > 1
// writes partials).
template <class T, int RED, int V, int TX, int TY>
__global__ void __launch_bounds__(TX* TY) reduce_col(const ReduceParams p) {
  typedef Reducer<T, RED> R;
  typedef typename R::A A;
  constexpr int U = 8;  // rows in flight per thread
  __shared__ A part[TY][TX][V];
  pdl_launch_dependents();  // reduce_finalize, if any, waits for the partials
  const R op;
  const u32 ranks = cluster_size(), rank = cluster_rank();
  const i64 tile = blockIdx.x / ranks;
  const i64 tiles_per_outer = (p.inner / V + TX - 1) / TX;
  const i64 o = tile / tiles_per_outer;
  const i64 col = ((tile % tiles_per_outer) * TX + threadIdx.x) * V;
  const bool active = col < p.inner;
  const i64 per_cta = (p.chunk + ranks - 1) / ranks;  // chunk: the rows of a split
  const i64 split_end = i64(blockIdx.y) * p.chunk + p.chunk < p.len ? i64(blockIdx.y) * p.chunk + p.chunk : p.len;
  const i64 begin = i64(blockIdx.y) * p.chunk + i64(rank) * per_cta;
  const i64 end = begin + per_cta < split_end ? begin + per_cta : split_end;
  const T* x = static_cast<const T*>(p.x) + o * p.len * p.inner + col;
  A acc[V];
#pragma unroll
  for (int k = 0; k < V; ++k) {
    if constexpr (RED == kArgmax)
      acc[k] = R::walk_from(begin + threadIdx.y < end ? begin + threadIdx.y : i64(R::kNone));
    else
      acc[k] = R::identity();
  }
  if (active)
    for (i64 r0 = begin + threadIdx.y; r0 < end; r0 += i64(TY) * U) {
      Vec<T, V> v[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (r0 + u * TY < end) v[u] = load<T, V, kStreamNoL1>(x + (r0 + u * TY) * p.inner);
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (r0 + u * TY >= end) continue;
#pragma unroll
        for (int k = 0; k < V; ++k) {
          if constexpr (RED == kArgmax)
            R::take_beating(acc[k], acc_of(v[u].get(k)), r0 + u * TY);
          else
            acc[k] = op(acc[k], acc_of(v[u].get(k)));
        }
      }
    }
#pragma unroll
  for (int k = 0; k < V; ++k) part[threadIdx.y][threadIdx.x][k] = acc[k];
  __syncthreads();
  // Row 0 of the block folds the TY partials of its columns into part[0].
  if (threadIdx.y == 0)
#pragma unroll
    for (int k = 0; k < V; ++k) {
      A t = part[0][threadIdx.x][k];
      for (int j = 1; j < TY; ++j) t = op(t, part[j][threadIdx.x][k]);
      part[0][threadIdx.x][k] = t;
    }
  if (ranks > 1) cluster_sync();  // every CTA's totals are in its part[0]
  if (threadIdx.y == 0 && active && rank == 0)
#pragma unroll
    for (int k = 0; k < V; ++k) {
      A t = part[0][threadIdx.x][k];
      for (u32 r = 1; r < ranks; ++r) t = op(t, dsmem_load(&part[0][threadIdx.x][k], r));  // in rank order
      const i64 out = o * p.inner + col + k;
      if (p.splits > 1)
        static_cast<A*>(p.partial)[out * p.splits + blockIdx.y] = t;
      else
        R::write(static_cast<typename OutType<T, RED>::type*>(p.y), out, t, p.scale);
    }
  if (ranks > 1) cluster_sync();  // keeps the totals alive until rank 0 has read them
}

// TPR threads an output, 256 / TPR outputs a CTA; `outer` outputs, `splits` partials each.
// Launched as the programmatic dependent of the kernel that writes the partials. The
// thousands of partials of an all-axes reduction take a whole CTA (TPR 256), 2048 a round
// trip: a warp would read them in 8 times as many dependent rounds, each an L2 latency at
// the tail of the reduction.
template <class T, int RED, int TPR>
__global__ void __launch_bounds__(256) reduce_finalize(const ReduceParams p) {
  typedef Reducer<T, RED> R;
  typedef typename R::A A;
  typedef RowGroup<TPR, 256 / TPR, 1> Group;
  __shared__ A buf[Group::kBuf];
  pdl_wait();
  const Group g;
  const R op;
  if (g.row >= p.outer) return;  // CTA-uniform at TPR 256 (barriers follow); warp-uniform below (none do)
  const A* partial = static_cast<const A*>(p.partial) + g.row * p.splits;
  constexpr int U = 8;  // partials a thread in flight
  A acc = R::identity();
  for (i64 s = g.lane; s < p.splits; s += i64(TPR) * U) {
    A v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = s + TPR * u < p.splits ? partial[s + TPR * u] : R::identity();
#pragma unroll
    for (int u = 0; u < U; ++u) acc = op(acc, v[u]);
  }
  acc = g.reduce_to_lane0(acc, op, buf);
  if (g.lane == 0) R::write(static_cast<typename OutType<T, RED>::type*>(p.y), g.row, acc, p.scale);
}

// A warp per output element: output o sits at kept offsets (kept_shape, kept_stride),
// its reduced elements at red_shape/red_stride; `len` reduced elements in all.
template <class T, int RED>
__global__ void __launch_bounds__(128) reduce_general(const ReduceParams p) {
  typedef Reducer<T, RED> R;
  typedef typename R::A A;
  typedef RowGroup<32, 4, 1> Group;
  const Group g;
  const R op;
  if (g.row >= p.outer) return;  // warp-uniform: no CTA-wide barrier follows
  i64 base = 0;
  for (i64 rest = g.row, d = p.kept_ndim - 1; d >= 0; --d) {
    base += (rest % p.kept_shape[d]) * p.kept_stride[d];
    rest /= p.kept_shape[d];
  }
  const T* x = static_cast<const T*>(p.x) + base;
  A acc = R::identity();
  for (i64 r = g.lane; r < p.len; r += 32) {
    i64 off = 0;
    for (i64 rest = r, d = p.red_ndim - 1; d >= 0; --d) {
      off += (rest % p.red_shape[d]) * p.red_stride[d];
      rest /= p.red_shape[d];
    }
    acc = op(acc, R::make(acc_of(x[off]), r));
  }
  acc = g.reduce(acc, op, static_cast<A*>(nullptr));
  if (g.lane == 0) R::write(static_cast<typename OutType<T, RED>::type*>(p.y), g.row, acc, p.scale);
}

}  // namespace tileops_cuda
