// Device helpers every kernel family shares: element types and conversions, vector
// memory access, fast division, reductions within a row group, CTA clusters, value-error
// reports. Compiled by NVRTC only; includes nothing from the toolkit, so a build needs
// no CUDA headers at run time and NVRTC parses little (the first-build budget is 150 ms).
#pragma once
#include "params.cuh"

namespace tileops_cuda {

typedef int i32;
typedef unsigned u32;
typedef long long i64;
typedef unsigned long long u64;

// ---- element types --------------------------------------------------------------------

// 16-bit floats as their bit patterns; converted with the hardware cvt instructions.
struct f16 {
  unsigned short bits;
};
struct bf16 {
  unsigned short bits;
};

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(f16 v) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v.bits));
  return f;
}
__device__ __forceinline__ float to_float(bf16 v) { return __uint_as_float(u32(v.bits) << 16); }

template <class T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ f16 from_float<f16>(float v) {
  f16 h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(v));
  return h;
}
template <>
__device__ __forceinline__ bf16 from_float<bf16>(float v) {
  bf16 h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h.bits) : "f"(v));
  return h;
}

template <class A, class B>
struct IsSame {
  enum { value = 0 };
};
template <class A>
struct IsSame<A, A> {
  enum { value = 1 };
};

template <class T>
struct IsFloat {
  enum { value = 1 };
};
template <>
struct IsFloat<i32> {
  enum { value = 0 };
};
template <>
struct IsFloat<i64> {
  enum { value = 0 };
};

// Float everywhere a floating type is involved (fp32 accumulation for fp16/bf16);
// integers stay exact in their own type.
template <class T>
struct Acc {
  typedef float type;
};
template <>
struct Acc<i32> {
  typedef i32 type;
};
template <>
struct Acc<i64> {
  typedef i64 type;
};

template <class T>
__device__ __forceinline__ typename Acc<T>::type acc_of(T v) {
  if constexpr (IsFloat<T>::value)
    return to_float(v);
  else
    return v;
}
template <class T>
__device__ __forceinline__ T value_of(typename Acc<T>::type a) {
  if constexpr (IsFloat<T>::value)
    return from_float<T>(a);
  else
    return T(a);
}

__device__ __forceinline__ float quiet_nan() { return __int_as_float(0x7fffffff); }
__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }
// max that returns NaN when either side is NaN (torch.amax propagates NaN).
__device__ __forceinline__ float max_nan(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

// ---- fast math -------------------------------------------------------------------------

constexpr float kLog2e = 1.4426950408889634f;

// 2^x on the special-function unit.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
// log2(x) on the special-function unit, absolute error about 2^-22.
__device__ __forceinline__ float fast_log2(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
// exp(x) as 2^(x log2 e): 2 instructions, relative error about 2^-21 (far inside fp32's
// 1e-5 budget), exp(-inf) = 0, exp(+inf) = inf.
__device__ __forceinline__ float fast_exp(float x) { return fast_exp2(x * kLog2e); }
// 1 / x to within an ulp; 1 / inf = 0.
__device__ __forceinline__ float fast_rcp(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// ---- vector memory access ---------------------------------------------------------------

// V consecutive elements of T packed in 32-bit words (one word for narrower vectors),
// loaded and stored as one access of sizeof(T) * V bytes when that is 2, 4, 8 or 16
// bytes (16-byte pieces beyond), so the pointer must be aligned to min(16,
// sizeof(T) * V) bytes. Elements are reached by shifts on the words, never by punning
// through memory, so everything stays in registers.
template <class T, int V>
struct Vec {
  enum : int { kBytes = int(sizeof(T)) * V, kWords = kBytes >= 4 ? kBytes / 4 : 1 };
  u32 w[kWords];

  __device__ __forceinline__ T get(int k) const {
    T t;
    if constexpr (sizeof(T) == 2) {
      t.bits = (unsigned short)(w[k / 2] >> (16 * (k % 2)));
    } else if constexpr (sizeof(T) == 4) {
      t = __builtin_bit_cast(T, w[k]);
    } else {
      t = T(u64(w[2 * k]) | u64(w[2 * k + 1]) << 32);
    }
    return t;
  }
  __device__ __forceinline__ void set(int k, T t) {
    if constexpr (sizeof(T) == 2) {
      const u32 shift = 16 * (k % 2);
      w[k / 2] = (w[k / 2] & ~(0xffffu << shift)) | (u32(t.bits) << shift);
    } else if constexpr (sizeof(T) == 4) {
      w[k] = __builtin_bit_cast(u32, t);
    } else {
      w[2 * k] = u32(u64(t));
      w[2 * k + 1] = u32(u64(t) >> 32);
    }
  }
  __device__ __forceinline__ float get_float(int k) const {
    if constexpr (IsSame<T, bf16>::value) {  // bf16: the high half of a float
      return __uint_as_float(k % 2 ? w[k / 2] & 0xffff0000u : w[k / 2] << 16);
    } else {
      return to_float(get(k));
    }
  }
};

// L2 eviction priorities: for data read once (kStreamNoL1 below, copy_async_16), and for
// a kernel that reads data twice and needs the second read to find it in L2 while a
// stream of other data passes through (norm_queue): the first read marks the lines
// evict-last, the second read and the results evict-first, so that neither the results
// nor data already read twice push out data still waiting for its second read. Policies
// are 64-bit values made by createpolicy (sm_80+).
__device__ __forceinline__ u64 l2_evict_last() {
  u64 policy;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ u64 l2_evict_first() {
  u64 policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// How a load may be served. Read-only data (nothing writes it during the kernel) takes
// the non-coherent path: kStream for data each thread reads once in whole 16-byte
// pieces, kCached for data read again (weights, a RoPE cache row, narrow strided
// accesses whose line neighbours read next). kStreamNoL1 is kStream with the line not
// allocated in L1, which is faster only where the kernel reads and hardly writes (row
// reductions: 3-14% on the H200) or keeps other data in L1 (RoPE's cache rows); where
// a kernel streams a result out as well (elementwise, norms, softmax) it costs 1-6%
// (docs/perf/cuda-kernels-h200.md, "Fourth round"). Its 16-byte loads also mark their
// lines evict-first in L2, so that a read-once stream replaces its own lines rather
// than push out dirty ones, whose write-backs would share DRAM with it (ResNet-50's
// average pool fp16 on an H100: 27.7 -> 24.6 us; docs/perf/session48.md).
// kCoherent is for memory the kernel also writes (the fused add's residual) and stays
// ordered with the stores.
// kCachedInOrder is kCached kept in program order with the stores around it, so the
// compiler cannot hoist a batch of such loads and hold all their results in registers
// (a norm's weights, loaded vector by vector as they are used).
enum LoadMode { kStream, kStreamNoL1, kCached, kCoherent, kCachedInOrder };

// A raw access of B bytes (1, 2, 4, 8, or a multiple of 16).
template <int B, int MODE>
__device__ __forceinline__ void load_words(const void* p, u32* w) {
  if constexpr (B % 16 == 0) {
#pragma unroll
    for (int k = 0; k < B / 16; ++k) {
      const char* q = reinterpret_cast<const char*>(p) + 16 * k;
      if constexpr (MODE == kCoherent)
        asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(w[4 * k]), "=r"(w[4 * k + 1]), "=r"(w[4 * k + 2]), "=r"(w[4 * k + 3])
                     : "l"(q)
                     : "memory");
      else if constexpr (MODE == kStreamNoL1)
        asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
            : "=r"(w[4 * k]), "=r"(w[4 * k + 1]), "=r"(w[4 * k + 2]), "=r"(w[4 * k + 3])
            : "l"(q), "l"(l2_evict_first()));
      else if constexpr (MODE == kCachedInOrder)
        asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(w[4 * k]), "=r"(w[4 * k + 1]), "=r"(w[4 * k + 2]), "=r"(w[4 * k + 3])
                     : "l"(q)
                     : "memory");
      else
        asm("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(w[4 * k]), "=r"(w[4 * k + 1]), "=r"(w[4 * k + 2]), "=r"(w[4 * k + 3])
            : "l"(q));
    }
  } else if constexpr (B == 8) {
    if constexpr (MODE == kCoherent)
      asm volatile("ld.global.v2.u32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "l"(p) : "memory");
    else if constexpr (MODE == kCachedInOrder)
      asm volatile("ld.global.nc.v2.u32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "l"(p) : "memory");
    else
      asm("ld.global.nc.v2.u32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "l"(p));
  } else if constexpr (B == 4) {
    if constexpr (MODE == kCoherent)
      asm volatile("ld.global.u32 %0, [%1];" : "=r"(w[0]) : "l"(p) : "memory");
    else if constexpr (MODE == kCachedInOrder)
      asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(w[0]) : "l"(p) : "memory");
    else
      asm("ld.global.nc.u32 %0, [%1];" : "=r"(w[0]) : "l"(p));
  } else if constexpr (B == 2) {
    unsigned short h;
    if constexpr (MODE == kCoherent)
      asm volatile("ld.global.u16 %0, [%1];" : "=h"(h) : "l"(p) : "memory");
    else if constexpr (MODE == kCachedInOrder)
      asm volatile("ld.global.nc.u16 %0, [%1];" : "=h"(h) : "l"(p) : "memory");
    else
      asm("ld.global.nc.u16 %0, [%1];" : "=h"(h) : "l"(p));
    w[0] = h;
  } else {
    static_assert(B == 1, "unsupported access width");
    w[0] = *reinterpret_cast<const volatile unsigned char*>(p);
  }
}

template <int B>
__device__ __forceinline__ void store_words(void* p, const u32* w) {
  if constexpr (B % 16 == 0) {
#pragma unroll
    for (int k = 0; k < B / 16; ++k)
      asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(reinterpret_cast<char*>(p) + 16 * k),
                   "r"(w[4 * k]), "r"(w[4 * k + 1]), "r"(w[4 * k + 2]), "r"(w[4 * k + 3])
                   : "memory");
  } else if constexpr (B == 8) {
    asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(p), "r"(w[0]), "r"(w[1]) : "memory");
  } else if constexpr (B == 4) {
    asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(w[0]) : "memory");
  } else if constexpr (B == 2) {
    asm volatile("st.global.u16 [%0], %1;" ::"l"(p), "h"((unsigned short)w[0]) : "memory");
  } else {
    static_assert(B == 1, "unsupported access width");
    *reinterpret_cast<volatile unsigned char*>(p) = (unsigned char)w[0];
  }
}

template <class T, int V, int MODE = kStream>
__device__ __forceinline__ Vec<T, V> load(const T* p) {
  Vec<T, V> v;
  load_words<Vec<T, V>::kBytes, MODE>(p, v.w);
  return v;
}
template <class T, int V>
__device__ __forceinline__ Vec<T, V> load_cached(const T* p) {
  return load<T, V, kCached>(p);
}
template <class T, int V>
__device__ __forceinline__ Vec<T, V> load_rw(const T* p) {
  return load<T, V, kCoherent>(p);
}

template <class T, int V>
__device__ __forceinline__ void store(T* p, const Vec<T, V>& v) {
  store_words<Vec<T, V>::kBytes>(p, v.w);
}

// A read-only 16-byte vector, and a 16-byte store, under an L2 policy.
template <class T, int V>
__device__ __forceinline__ Vec<T, V> load_l2(const T* p, u64 policy) {
  static_assert(Vec<T, V>::kBytes == 16, "16-byte vectors");
  Vec<T, V> v;
  asm("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
      : "=r"(v.w[0]), "=r"(v.w[1]), "=r"(v.w[2]), "=r"(v.w[3])
      : "l"(p), "l"(policy));
  return v;
}
template <class T, int V>
__device__ __forceinline__ void store_l2(T* p, const Vec<T, V>& v, u64 policy) {
  static_assert(Vec<T, V>::kBytes == 16, "16-byte vectors");
  asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(p), "r"(v.w[0]), "r"(v.w[1]),
               "r"(v.w[2]), "r"(v.w[3]), "l"(policy)
               : "memory");
}

template <class T, int V, int MODE = kStream>
__device__ __forceinline__ void load_float(const T* p, float (&out)[V]) {
  const Vec<T, V> v = load<T, V, MODE>(p);
#pragma unroll
  for (int k = 0; k < V; ++k) out[k] = v.get_float(k);
}

// The elementwise max of two words of two 16-bit values, NaN ignored as by fmaxf.
template <class T>
__device__ __forceinline__ u32 max2(u32 a, u32 b) {
  u32 r;
  if constexpr (IsSame<T, bf16>::value)
    asm("max.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  else
    asm("max.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

// A running elementwise maximum of floating vectors from -inf, NaN ignored as by fmaxf:
// 16-bit values two an instruction (packed, never unpacked), floats one.
template <class T, int V>
struct VecMax {
  static_assert(sizeof(T) == 2 || IsSame<T, float>::value, "floating vectors");
  Vec<T, V> m;
  __device__ __forceinline__ VecMax() {
    constexpr u32 kNegInf = sizeof(T) == 4 ? 0xff800000u : IsSame<T, bf16>::value ? 0xff80ff80u : 0xfc00fc00u;
#pragma unroll
    for (int i = 0; i < Vec<T, V>::kWords; ++i) m.w[i] = kNegInf;
  }
  __device__ __forceinline__ void take(const Vec<T, V>& v) {
#pragma unroll
    for (int i = 0; i < Vec<T, V>::kWords; ++i) {
      if constexpr (sizeof(T) == 2)
        m.w[i] = max2<T>(m.w[i], v.w[i]);
      else
        m.w[i] = __float_as_uint(fmaxf(__uint_as_float(m.w[i]), __uint_as_float(v.w[i])));
    }
  }
  // The maximum over the vector's lanes.
  __device__ __forceinline__ float fold() const {
    float r = m.get_float(0);
#pragma unroll
    for (int k = 1; k < V; ++k) r = fmaxf(r, m.get_float(k));
    return r;
  }
};

// Two floats to a word of two 16-bit floats in one instruction (`lo` in the low half).
template <class T>
__device__ __forceinline__ u32 pack2(float lo, float hi) {
  u32 w;
  if constexpr (IsSame<T, bf16>::value)
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
  return w;
}

template <class T, int V>
__device__ __forceinline__ Vec<T, V> to_vec(const float (&in)[V]) {
  Vec<T, V> v = {};
  if constexpr (sizeof(T) == 2 && V % 2 == 0) {
#pragma unroll
    for (int k = 0; k < V / 2; ++k) v.w[k] = pack2<T>(in[2 * k], in[2 * k + 1]);
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k) v.set(k, from_float<T>(in[k]));
  }
  return v;
}

template <class T, int V>
__device__ __forceinline__ void store_float(T* p, const float (&in)[V]) {
  store<T, V>(p, to_vec<T, V>(in));
}

// ---- warp and row-group reductions -------------------------------------------------------

// Shuffles any value of whole words word by word: `shuffle` maps one word.
template <class A, class Shuffle>
__device__ __forceinline__ A shuffle_words(const A& v, Shuffle shuffle) {
  static_assert(sizeof(A) % 4 == 0, "shuffled values are whole words");
  union {
    A a;
    u32 w[sizeof(A) / 4];
  } in, out;
  in.a = v;
#pragma unroll
  for (int k = 0; k < int(sizeof(A) / 4); ++k) out.w[k] = shuffle(in.w[k]);
  return out.a;
}

template <class A>
__device__ __forceinline__ A shfl_xor(const A& v, int offset) {
  return shuffle_words(v, [offset](u32 w) { return __shfl_xor_sync(0xffffffffu, w, offset); });
}
template <class A>
__device__ __forceinline__ A shfl_up(const A& v, int delta) {
  return shuffle_words(v, [delta](u32 w) { return __shfl_up_sync(0xffffffffu, w, delta); });
}
template <class A>
__device__ __forceinline__ A shfl_idx(const A& v, int src) {
  return shuffle_words(v, [src](u32 w) { return __shfl_sync(0xffffffffu, w, src); });
}

// The xor-shuffle tree over groups of W lanes (a power of two, at most 32): every lane
// ends with its group's total. Reductions with a cheaper warp form overload it for their
// op (argmax, reduce.cuh); RowGroup finds the overload by argument-dependent lookup.
template <int W, class A, class Op>
__device__ __forceinline__ A warp_reduce(A v, Op op) {
#pragma unroll
  for (int o = W / 2; o > 0; o /= 2) v = op(v, shfl_xor(v, o));
  return v;
}

struct SumOp {
  template <class A>
  __device__ __forceinline__ A operator()(A a, A b) const {
    return a + b;
  }
};
struct MaxOp {  // ignores NaN (fmaxf): softmax lets NaN through its sum instead
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// The shared-memory address of a generic pointer into shared memory.
__device__ __forceinline__ u32 smem_addr(const void* p) { return u32(__cvta_generic_to_shared(p)); }

// A 16-byte copy from global to shared memory that passes neither registers nor L1
// (cp.async.cg, sm_80+): a thread issues all of its copies back to back and waits once
// (wait_async_copies), where loads through registers would wait for each batch they
// hold. How the copy treats L2: kCopyReadOnce marks the line evict-first, as kStreamNoL1's
// loads are; kCopyLine128B brings the rest of the 128-byte line into L2 (.L2::128B), for
// a neighbouring CTA's copies to find.
enum CopyL2 { kCopyReadOnce, kCopyLine128B };
template <CopyL2 L2>
__device__ __forceinline__ void copy_async_16(void* smem, const void* g) {
  if constexpr (L2 == kCopyLine128B)
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(smem_addr(smem)), "l"(g) : "memory");
  else
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;"
                 ::"r"(smem_addr(smem)), "l"(g), "l"(l2_evict_first())
                 : "memory");
}
// Until this thread's copies have landed (other threads' need a barrier after it).
__device__ __forceinline__ void wait_async_copies() {
  asm volatile("cp.async.commit_group;\n\tcp.async.wait_all;" ::: "memory");
}

// ---- clusters (sm_90) --------------------------------------------------------------------
// Before sm_90 every CTA is a cluster of one: rank 0 of 1, and the barrier and remote
// reads are never reached (kernels branch on cluster_size() or a CLUSTER argument).

__device__ __forceinline__ u32 cluster_rank() {
  u32 r = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
  return r;
}
// CTAs in this CTA's cluster (1 when the launch has none).
__device__ __forceinline__ u32 cluster_size() {
  u32 n = 1;
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
#endif
  return n;
}
// The two halves of a barrier over every thread of every CTA of the cluster, for work
// between them: each thread arrives once, then waits once before it arrives again (and
// before it exits). The arrive releases nothing: the split barrier opens exchanges through
// mbarriers, whose inits mbarrier_init_fence orders. A release arrive is a MEMBAR.ALL.GPU,
// which at a kernel's start waits out the memory system's queues.
__device__ __forceinline__ void cluster_arrive_relaxed() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void cluster_wait() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}
// The whole barrier, whose release arrive orders shared-memory writes before it with
// distributed shared-memory reads after it.
__device__ __forceinline__ void cluster_sync() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#endif
  cluster_wait();
}
// Waits for this thread's loads and stores in flight to complete at gpu scope: what a
// cluster barrier's release does (MEMBAR.ALL.GPU), without the barrier.
__device__ __forceinline__ void drain_memory() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
#endif
}
// Reads `*p` (an address in this CTA's shared memory) from CTA `rank` of the cluster.
template <class A>
__device__ __forceinline__ A dsmem_load(const A* p, u32 rank) {
  union {
    A a;
    u32 w[sizeof(A) / 4];
  } out;
#if __CUDA_ARCH__ >= 900
  const u32 local = smem_addr(p);
  u32 remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
#pragma unroll
  for (int k = 0; k < int(sizeof(A) / 4); ++k)
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(out.w[k]) : "r"(remote + 4 * k));
#else
  out.a = *p;
#endif
  return out.a;
}

// *p from CTA `rank` of the cluster, or this CTA's own *p without a cluster.
template <class A>
__device__ __forceinline__ A dsmem_or_local(const A* p, u32 rank, int cluster) {
  return cluster > 1 ? dsmem_load(p, rank) : *p;
}

// ---- mbarriers (sm_90) ------------------------------------------------------------------
// A phase of an mbarrier completes when its `count` arrivals and the bytes they expect
// have all come: its n-th phase (from 0) is waited for with parity n & 1.

// One thread initialises, then calls mbarrier_init_fence once after its last init; the
// CTA (or cluster, for remote writers) must synchronise before anyone else uses them.
__device__ __forceinline__ void mbarrier_init(u64* bar, u32 count) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
#endif
}
// Makes the barriers this thread initialised visible to the copy engine and the cluster.
__device__ __forceinline__ void mbarrier_init_fence() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
// Arrives on this CTA's `bar`, which then also waits for `bytes` more to land.
__device__ __forceinline__ void mbarrier_expect_tx(u64* bar, u32 bytes) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
#endif
}
// Returns once the phase of this CTA's `bar` with this parity has completed.
__device__ __forceinline__ void mbarrier_wait(u64* bar, u32 parity) {
#if __CUDA_ARCH__ >= 900
  u32 done = 0;
  while (!done)
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
#endif
}
// Writes v (4 or 8 bytes, aligned to its size) to CTA `rank`'s copy of *p in shared
// memory, landing as sizeof(A) bytes on its copy of `bar`: no fence and no cluster
// barrier between writer and reader.
template <class A>
__device__ __forceinline__ void st_async(A* p, const A& v, u64* bar, u32 rank) {
  static_assert(sizeof(A) == 4 || sizeof(A) == 8, "one or two words");
#if __CUDA_ARCH__ >= 900
  struct Words {
    u32 w[sizeof(A) / 4];
  };
  const Words w = __builtin_bit_cast(Words, v);
  u32 dst, remote_bar;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dst) : "r"(smem_addr(p)), "r"(rank));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(smem_addr(bar)), "r"(rank));
  if constexpr (sizeof(A) == 4)
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(dst), "r"(w.w[0]),
                 "r"(remote_bar)
                 : "memory");
  else
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];" ::"r"(dst),
                 "r"(w.w[0]), "r"(w.w[1]), "r"(remote_bar)
                 : "memory");
#endif
}

// The totals of one reduction of a cluster's CTAs, exchanged without a cluster barrier
// and without remote reads: every CTA st.asyncs its total into every CTA's inbox and
// waits on its own `landed` for all of them (a scan's, into the later ranks' only, each
// waiting for the ranks before it: send_on). cluster_sync's release is a MEMBAR.ALL.GPU
// (plugins/cuda/README.md): in a sweep of rows it waited, every row, for the last row's
// stores still in flight and then for the slowest CTA (softmax's sweep keeps the first
// wait on purpose: drain_memory in softmax_smem). A CTA leaves once its own inbox
// is full, as no peer reads it. The n-th use of an inbox (from 0) combines with parity
// n & 1; a use may begin only after every CTA has combined the one before it, which
// kernels that sweep rows get from two inboxes alternating by row: a peer sends row n + 2
// only after this CTA's total of row n + 1, sent after it read row n.
template <class A, int CLUSTER>
struct ClusterInbox {
  alignas(8) A total[CLUSTER];  // by rank: st.async's pairs of words want 8-byte alignment
  u64 landed;

  // Thread 0, before the cluster barrier that opens the exchange (RowGroup's constructor).
  __device__ __forceinline__ void init() { mbarrier_init(&landed, 1); }

  // The CTA's total v, held by its first CLUSTER threads at least: thread r sends it to
  // rank r, and thread 0 arrives for the CTA, expecting every rank's.
  __device__ __forceinline__ void send(const A& v, u32 rank) {
    if (threadIdx.x == 0) mbarrier_expect_tx(&landed, u32(CLUSTER * sizeof(A)));
    if (threadIdx.x < CLUSTER) st_async(&total[rank], v, &landed, threadIdx.x);
  }

  // Every rank's total combined in rank order, so that all CTAs agree bit for bit.
  template <class Op>
  __device__ __forceinline__ A combine(Op op, u32 use) {
    mbarrier_wait(&landed, use & 1);
    A v = total[0];
#pragma unroll
    for (int r = 1; r < CLUSTER; ++r) v = op(v, total[r]);
    return v;
  }

  // The CTA's total v, held by its first CLUSTER threads at least, to the ranks after
  // `rank` only, for `before`: thread 0 arrives expecting the totals of the ranks before
  // it, so each CTA waits for those alone and rank 0 for none. Sent to every rank, each
  // waited for the cluster's slowest CTA: cumsum_smem's one-wave rows ran 3.4-4.7% slower
  // on an H100 (top-p [64, 128256] fp32 0.904 of copy against 0.935; docs/perf/session41.md).
  __device__ __forceinline__ void send_on(const A& v, u32 rank) {
    if (threadIdx.x == 0) mbarrier_expect_tx(&landed, u32(rank * sizeof(A)));
    if (threadIdx.x < CLUSTER && threadIdx.x > rank) st_async(&total[rank], v, &landed, threadIdx.x);
  }

  // The sum of the totals of the ranks before `rank` (a scan's exclusive prefix), added in
  // rank order.
  __device__ __forceinline__ A before(u32 rank, u32 use) {
    mbarrier_wait(&landed, use & 1);
    A v = A(0);
#pragma unroll
    for (int r = 0; r < CLUSTER - 1; ++r)
      if (u32(r) < rank) v += total[r];
    return v;
  }
};
template <class A>
struct ClusterInbox<A, 1> {  // a CTA alone: nothing to exchange
  __device__ __forceinline__ void init() {}
};

// The threads that work on one row: TPR threads (a power of two) per row, RPC rows per
// CTA, and CLUSTER CTAs per row (then RPC is 1). Reductions return the row's total to
// every thread of the group. Every thread of the CTA must call each reduction (no early
// return before one); `buf` is a distinct __shared__ array of kBuf values per call. A
// cluster's reductions also each take a ClusterInbox, every one of which is passed to
// the constructor, and the kernel ends with finish().
template <int TPR, int RPC, int CLUSTER>
struct RowGroup {
  static_assert(TPR >= 1 && (TPR & (TPR - 1)) == 0, "threads per row is a power of two");
  static_assert(CLUSTER == 1 || RPC == 1, "a cluster works on one row");
  // An inbox's next use waits for this CTA's threads to have read the last (ClusterInbox):
  // the CTA barrier in warp_totals orders them.
  static_assert(CLUSTER == 1 || TPR > 32, "a cluster's CTAs span several warps");
  enum : int {
    kThreads = TPR * RPC,
    kWarpsPerRow = TPR > 32 ? TPR / 32 : 1,
    kBuf = RPC * kWarpsPerRow,
    kWidth = TPR < 32 ? TPR : 32,  // lanes of a warp on one row
  };

  u32 lane;  // thread within the row group
  u32 slot;  // row group within the CTA
  u32 rank;  // CTA within the cluster
  i64 row;
  mutable bool opened;  // this thread has waited for the cluster barrier that opens the inboxes

  // Thread 0 initialises the inboxes; every thread arrives at the cluster barrier that
  // makes them ready, and waits for it only before its first send, so that the row's
  // loads start at once.
  template <class... Inboxes>
  __device__ __forceinline__ explicit RowGroup(Inboxes&... inboxes) {
    lane = threadIdx.x % TPR;
    slot = threadIdx.x / TPR;
    rank = CLUSTER > 1 ? cluster_rank() : 0;
    row = i64(blockIdx.x / CLUSTER) * RPC + slot;
    opened = CLUSTER == 1;
    if constexpr (CLUSTER > 1) {
      static_assert(sizeof...(Inboxes) > 0, "a cluster's reductions go through inboxes");
      if (threadIdx.x == 0) {
        (inboxes.init(), ...);
        mbarrier_init_fence();
      }
      cluster_arrive_relaxed();
    }
  }

  // The row's total within one CTA.
  template <class A, class Op>
  __device__ __forceinline__ A reduce(A v, Op op, A* buf) const {
    static_assert(CLUSTER == 1, "a cluster's rows reduce through an inbox");
    return cta_reduce(v, op, buf);
  }

  // The row's total over the cluster; `use` counts the inbox's uses from 0.
  template <class A, class Op>
  __device__ __forceinline__ A reduce(A v, Op op, A* buf, ClusterInbox<A, CLUSTER>& inbox, u32 use) const {
    v = cta_reduce(v, op, buf);
    if constexpr (CLUSTER > 1) {
      open();
      inbox.send(v, rank);
      v = inbox.combine(op, use);
    }
    return v;
  }

  // The sum of the totals of the CTAs ranked before this one in the cluster (0 for rank
  // 0, at once): `v` is this CTA's total, held by every thread, sent on to the CTAs
  // ranked after it (ClusterInbox::send_on).
  template <class A>
  __device__ __forceinline__ A ranks_before(A v, ClusterInbox<A, CLUSTER>& inbox, u32 use) const {
    if constexpr (CLUSTER > 1) {
      open();
      inbox.send_on(v, rank);
      return inbox.before(rank, use);
    } else {
      return A(0);
    }
  }

  // A thread that arrived at the opening barrier waits for it before it exits (a row
  // group without rows never sent).
  __device__ __forceinline__ void finish() const { open(); }

  template <class A, class Op>
  __device__ __forceinline__ A cta_reduce(A v, Op op, A* buf) const {
    v = warp_totals(v, op, buf);
    if constexpr (TPR > 32) {
      v = buf[slot * kWarpsPerRow];
#pragma unroll
      for (int w = 1; w < kWarpsPerRow; ++w) v = op(v, buf[slot * kWarpsPerRow + w]);
    }
    return v;
  }

  // The row's total in its lane 0 (other lanes hold parts of it), for callers that only
  // write the total: the warps' totals are combined by the row's first warp alone, as a
  // shuffle tree, instead of by every thread in turn (a short CTA of 16 warps spent more
  // issue slots there than on its loads).
  template <class A, class Op>
  __device__ __forceinline__ A reduce_to_lane0(A v, Op op, A* buf) const {
    static_assert(CLUSTER == 1, "a cluster's rows take reduce");
    v = warp_totals(v, op, buf);
    if constexpr (TPR > 32) {
      if (lane < 32)  // each lane group of the first warp holds every warp's total
        v = warp_reduce<kWarpsPerRow>(buf[slot * kWarpsPerRow + lane % kWarpsPerRow], op);
    }
    return v;
  }

  // The warp's total; for rows wider than a warp, also every warp's total in buf, read
  // after the barrier.
  template <class A, class Op>
  __device__ __forceinline__ A warp_totals(A v, Op op, A* buf) const {
    v = warp_reduce<kWidth>(v, op);
    if constexpr (TPR > 32) {
      if (lane % 32 == 0) buf[slot * kWarpsPerRow + lane / 32] = v;
      __syncthreads();
    }
    return v;
  }

 private:
  __device__ __forceinline__ void open() const {
    if (!opened) {
      cluster_wait();
      opened = true;
    }
  }
};

// ---- ordering between CTAs and between kernels ------------------------------------------

// Programmatic dependent launch (sm_90): a kernel launched with the programmatic
// serialization attribute may start while the kernel before it on the stream still runs;
// pdl_wait() blocks until that kernel has finished and its writes are visible (a no-op
// without the attribute or before sm_90). pdl_launch_dependents() lets the next kernel
// start early; it changes no result, only when the dependent's CTAs get scheduled.
__device__ __forceinline__ void pdl_wait() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_launch_dependents() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Flags that publish data between CTAs of one grid: the writer stores the data and sets
// the flag with release semantics, after a fence (__threadfence) where other threads
// stored part of the data (a release orders only its own thread's stores); the reader
// acquires the flag, then reads the data with ld_relaxed (gpu scope: never a stale L1
// line). The reader's CTA barrier after the acquire orders it before the other threads'
// reads too (the PTX model's causality order is transitive through bar.sync), as in a
// cooperative grid's sync: no fence in every thread.
__device__ __forceinline__ u32 ld_acquire(const u32* p) {
  u32 v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release(u32* p, u32 v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
// A count that publishes this thread's earlier stores (release) and, to the thread that
// sees the others' counts, theirs (acquire): no separate fence, which __threadfence
// makes sequentially consistent.
__device__ __forceinline__ u32 atomic_add_acq_rel(u32* p, u32 v) {
  u32 old;
  asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
template <class A>
__device__ __forceinline__ A ld_relaxed(const A* p) {
  static_assert(sizeof(A) == 4 || sizeof(A) == 8, "a word or a double word");
  if constexpr (sizeof(A) == 4) {
    u32 v;
    asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return __builtin_bit_cast(A, v);
  } else {
    u64 v;
    asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return __builtin_bit_cast(A, v);
  }
}

// ---- value errors --------------------------------------------------------------------------

// Reports a value error to the host without stopping the kernel: the first thread to
// claim the current epoch writes the details, then `raised`. The host reads the record
// at its next synchronize or launch on this device and bumps the epoch
// (src/value_errors.cpp). No host call is involved, so a captured graph reports too.
static __device__ __noinline__ void raise_value_error(ValueErrorSlot slot, int code, i64 index, i64 value,
                                               i64 bound) {
  const u32 epoch = *reinterpret_cast<volatile u32*>(&slot.host->epoch);
  if (atomicMax(slot.claim, epoch + 1) >= epoch + 1) return;
  slot.host->code = code;
  slot.host->index = index;
  slot.host->value = value;
  slot.host->bound = bound;
  __threadfence_system();
  *reinterpret_cast<volatile u32*>(&slot.host->raised) = epoch + 1;
}

}  // namespace tileops_cuda
