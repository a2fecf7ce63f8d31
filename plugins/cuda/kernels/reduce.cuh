// Sum, mean, amax and argmax of x viewed as [outer, len, inner] along len.
//
//   reduce_row      inner == 1: TPR threads per row, RPC rows per CTA, vector loads along
//                   the row; `splits` CTAs per row (grid.y) when rows are too few to fill
//                   the GPU, each writing a partial.
//   reduce_col      inner > 1: TX threads across inner (V columns each) by TY threads
//                   down len; `splits` CTAs down len (grid.y), each writing partials.
//   reduce_finalize combines the partials [n_out][splits] into the output, a warp each.
//   reduce_general  axes that do not coalesce into one run (e.g. dims 0 and 2 of three):
//                   a warp per output element walks the reduced index space.
// Floating inputs accumulate in fp32; integers (amax, argmax) exactly in their own type.
// amax propagates NaN; argmax returns the first index of the maximum, NaN counting as the
// maximum (torch), so its combine is order-independent and any split gives one answer.
#pragma once
#include "common.cuh"

namespace tileops_cuda {

enum ReduceKind { kSum = 0, kMean = 1, kAmax = 2, kArgmax = 3 };

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
  static __device__ __forceinline__ void write(i64* y, i64 o, A a, float) { y[o] = i64(a.i); }
  // True when b replaces a as the maximum seen so far, visiting indices in increasing
  // order: larger, or the first NaN.
  static __device__ __forceinline__ bool beats(Val b, Val a) {
    return is_nan(b) ? !is_nan(a) : (!is_nan(a) && b > a);
  }
  static __device__ __forceinline__ Val vmax(Val a, Val b) {
    if constexpr (IsFloat<T>::value)
      return max_nan(a, b);
    else
      return a > b ? a : b;
  }
  // Folds V consecutive elements starting at index `first` into `acc`: the vector's max
  // first, its index searched only when it beats `acc` (rarely, after the start).
  template <int V>
  static __device__ __forceinline__ void fold(A& acc, const Vec<T, V>& v, i64 first) {
    Val m = acc_of(v.get(0));
#pragma unroll
    for (int k = 1; k < V; ++k) m = vmax(m, acc_of(v.get(k)));
    if (!beats(m, acc.v)) return;
    bool found = false;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const Val x = acc_of(v.get(k));
      if (!found && (is_nan(m) ? is_nan(x) : x == m)) {
        acc = {m, i32(first + k)};
        found = true;
      }
    }
  }
};

template <class T, int RED>
struct OutType {
  typedef T type;
};
template <class T>
struct OutType<T, kArgmax> {
  typedef i64 type;
};

// Grid: x = ceil(outer / RPC), y = splits. Each row group reduces vectors
// [s * chunk, (s + 1) * chunk) of its row.
template <class T, int RED, int V, int TPR, int RPC, int PARTIAL>
__global__ void __launch_bounds__(TPR* RPC) reduce_row(const ReduceParams p) {
  typedef Reducer<T, RED> R;
  typedef typename R::A A;
  typedef RowGroup<TPR, RPC, 1> Group;
  constexpr int U = 4;  // vectors in flight per thread
  __shared__ A buf[Group::kBuf];
  const Group g;
  const R op;
  const bool active = g.row < p.outer;
  const i64 nvec = p.len / V;
  const i64 begin = i64(blockIdx.y) * p.chunk;
  const i64 end = active ? (begin + p.chunk < nvec ? begin + p.chunk : nvec) : 0;
  const T* x = static_cast<const T*>(p.x) + g.row * p.len;
  A acc = R::identity();
  for (i64 base = begin + g.lane; base < end; base += i64(TPR) * U) {
    Vec<T, V> v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (base + u * TPR < end) v[u] = load<T, V>(x + (base + u * TPR) * V);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (base + u * TPR >= end) continue;
      if constexpr (RED == kArgmax) {
        R::fold(acc, v[u], (base + u * TPR) * V);
      } else {
#pragma unroll
        for (int k = 0; k < V; ++k) acc = op(acc, acc_of(v[u].get(k)));
      }
    }
  }
  acc = g.reduce(acc, op, buf);
  if (!active || g.lane != 0) return;
  if constexpr (PARTIAL)
    static_cast<A*>(p.partial)[g.row * p.splits + blockIdx.y] = acc;
  else
    R::write(static_cast<typename OutType<T, RED>::type*>(p.y), g.row, acc, p.scale);
}

// Grid: x = outer * ceil(inner / (TX * V)) column tiles, y = splits of `chunk` rows.
template <class T, int RED, int V, int TX, int TY, int PARTIAL>
__global__ void __launch_bounds__(TX* TY) reduce_col(const ReduceParams p) {
  typedef Reducer<T, RED> R;
  typedef typename R::A A;
  constexpr int U = 4;  // rows in flight per thread
  __shared__ A part[TY][TX][V];
  const R op;
  const i64 tiles_per_outer = (p.inner / V + TX - 1) / TX;
  const i64 o = blockIdx.x / tiles_per_outer;
  const i64 col = ((blockIdx.x % tiles_per_outer) * TX + threadIdx.x) * V;
  const bool active = col < p.inner;
  const i64 begin = i64(blockIdx.y) * p.chunk;
  const i64 end = begin + p.chunk < p.len ? begin + p.chunk : p.len;
  const T* x = static_cast<const T*>(p.x) + o * p.len * p.inner + col;
  A acc[V];
#pragma unroll
  for (int k = 0; k < V; ++k) acc[k] = R::identity();
  if (active)
    for (i64 r0 = begin + threadIdx.y; r0 < end; r0 += i64(TY) * U) {
      Vec<T, V> v[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (r0 + u * TY < end) v[u] = load<T, V>(x + (r0 + u * TY) * p.inner);
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (r0 + u * TY >= end) continue;
#pragma unroll
        for (int k = 0; k < V; ++k) {
          if constexpr (RED == kArgmax) {
            const auto x = acc_of(v[u].get(k));
            if (R::beats(x, acc[k].v)) acc[k] = {x, i32(r0 + u * TY)};
          } else {
            acc[k] = op(acc[k], acc_of(v[u].get(k)));
          }
        }
      }
    }
#pragma unroll
  for (int k = 0; k < V; ++k) part[threadIdx.y][threadIdx.x][k] = acc[k];
  __syncthreads();
  if (threadIdx.y != 0 || !active) return;
#pragma unroll
  for (int k = 0; k < V; ++k) {
    A t = part[0][threadIdx.x][k];
    for (int j = 1; j < TY; ++j) t = op(t, part[j][threadIdx.x][k]);
    const i64 out = o * p.inner + col + k;
    if constexpr (PARTIAL)
      static_cast<A*>(p.partial)[out * p.splits + blockIdx.y] = t;
    else
      R::write(static_cast<typename OutType<T, RED>::type*>(p.y), out, t, p.scale);
  }
}

// A warp per output element; `outer` outputs, `splits` partials each.
template <class T, int RED>
__global__ void __launch_bounds__(128) reduce_finalize(const ReduceParams p) {
  typedef Reducer<T, RED> R;
  typedef typename R::A A;
  typedef RowGroup<32, 4, 1> Group;
  const Group g;
  const R op;
  if (g.row >= p.outer) return;  // warp-uniform: no CTA-wide barrier follows
  const A* partial = static_cast<const A*>(p.partial) + g.row * p.splits;
  A acc = R::identity();
  for (i64 s = g.lane; s < p.splits; s += 32) acc = op(acc, partial[s]);
  acc = g.reduce(acc, op, static_cast<A*>(nullptr));
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
