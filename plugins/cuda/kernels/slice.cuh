// A CTA's share of a long row held in shared memory (sm_90): the row is read from
// device memory once, by the bulk copy engine, and every later pass over it (statistics,
// then the output) reads shared memory. CLUSTER CTAs split a row into contiguous slices
// of whole 16-byte vectors; with up to 8 CTAs of ~200 KB a row of up to ~1.6 MB stays on
// chip. When there are more rows than resident clusters, each cluster may sweep several
// rows: with one stage (softmax, the norms) a slice refills with the next row once the
// CTA has read the last of this one; with more (cumsum's staged rows) the next rows load
// while this one is worked on.
#pragma once
#include "common.cuh"

namespace tileops_cuda {

__device__ __forceinline__ u32 smem_addr(const void* p) { return u32(__cvta_generic_to_shared(p)); }

// The vectors [begin, begin + count) of a row of `nvec` 16-byte vectors that CTA `rank`
// of CLUSTER holds.
template <int CLUSTER>
struct SliceRange {
  i64 begin;
  int count;
  __device__ __forceinline__ SliceRange(i64 nvec, u32 rank) {
    const i64 per_cta = (nvec + CLUSTER - 1) / CLUSTER;
    begin = i64(rank) * per_cta;
    const i64 left = nvec - begin;
    count = int(left < 0 ? 0 : left < per_cta ? left : per_cta);
  }
};

// STAGES buffers of `bytes` each (a multiple of 16) in a CTA's dynamic shared memory,
// each filled from global memory by the bulk copy engine and signalled on its own
// mbarrier. With more than one stage a CTA that works through several rows has its next
// rows' slices streaming in while it works on this one.
// Stage s serves the CTA's rows s, s + STAGES, ...: its n-th use waits for parity n & 1.
template <int STAGES>
struct SliceStages {
  u32* base;
  u32 bytes;
  u64* bars;  // STAGES distinct __shared__ words

  // Every thread of the CTA constructs it (the barriers are ready when it returns).
  __device__ __forceinline__ SliceStages(u32* smem, u32 slice_bytes, u64* barriers)
      : base(smem), bytes(slice_bytes), bars(barriers) {
    if (threadIdx.x == 0) {
#pragma unroll
      for (int s = 0; s < STAGES; ++s)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(bars + s)) : "memory");
      // Makes the initialised barriers visible to the copy engine (the async proxy).
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
  }

  __device__ __forceinline__ u32* at(int stage) const { return base + u32(stage) * (bytes / 4); }

  // Thread 0 only: starts filling `stage` from `src` (16-byte aligned). The CTA must be
  // done reading the stage (a __syncthreads after its last read).
  __device__ __forceinline__ void fill(int stage, const void* src) const {
    constexpr u32 kPiece = 32768;  // bytes per bulk copy instruction
    const u32 b = smem_addr(bars + stage), dst = smem_addr(at(stage));
    // Orders this CTA's earlier reads of the stage before the copy engine's writes.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes) : "memory");
    for (u32 done = 0; done < bytes; done += kPiece) {
      const u32 n = bytes - done < kPiece ? bytes - done : kPiece;
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst + done),
          "l"(static_cast<const char*>(src) + done), "r"(n), "r"(b)
          : "memory");
    }
  }

  // Returns once the fill of `stage` for its `use`-th row (counting from 0) has landed.
  __device__ __forceinline__ void wait(int stage, u32 use) const {
    const u32 b = smem_addr(bars + stage), parity = use & 1;
    u32 landed = 0;
    while (!landed)
      asm volatile(
          "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
          : "=r"(landed)
          : "r"(b), "r"(parity)
          : "memory");
  }
};

// The rows of a row kernel whose CTAs (or clusters) each work through several rows:
// the group's first row, and the step to its next.
struct RowSweep {
  i64 first, step, rows;
  __device__ __forceinline__ i64 nth(u32 n) const { return first + i64(n) * step; }
  __device__ __forceinline__ bool has(u32 n) const { return nth(n) < rows; }
};

// A cluster's sweep over rows of `len` elements of T, each row held in shared memory:
// this CTA's range of every row, the rows its cluster takes, and STAGES slices filled
// ahead (the first STAGES rows from construction on). Every thread of the CTA
// constructs it and calls slice(n) then done(n) for each row n in turn.
template <class T, int CLUSTER, int STAGES>
struct SlicedRows {
  SliceRange<CLUSTER> range;
  RowSweep rows;
  SliceStages<STAGES> stages;
  const T* src;  // this CTA's range of row 0
  i64 len;

  __device__ __forceinline__ SlicedRows(const void* x, i64 row_len, i64 row_count, u32 rank, u32* smem, u64* bars)
      : range(row_len * i64(sizeof(T)) / 16, rank),
        rows{blockIdx.x / CLUSTER, gridDim.x / CLUSTER, row_count},
        stages(smem, u32(range.count) * 16, bars),
        src(static_cast<const T*>(x) + range.begin * (16 / i64(sizeof(T)))),
        len(row_len) {
    if (threadIdx.x == 0 && range.count > 0)
#pragma unroll
      for (int s = 0; s < STAGES; ++s)
        if (rows.has(s)) stages.fill(s, src + rows.nth(s) * len);
  }

  // This CTA's slice of row n, once it has landed.
  __device__ __forceinline__ const u32* slice(u32 n) const {
    const int stage = int(n % STAGES);
    if (range.count > 0) stages.wait(stage, n / STAGES);
    return stages.at(stage);
  }

  // After the CTA's last read of row n's slice: its stage starts filling with row
  // n + STAGES.
  __device__ __forceinline__ void done(u32 n) const {
    if (rows.has(n + STAGES)) {
      __syncthreads();  // the stage is free once every thread has read it
      if (threadIdx.x == 0 && range.count > 0) stages.fill(int(n % STAGES), src + rows.nth(n + STAGES) * len);
    }
  }
};

// Vector i of a slice in shared memory.
template <class T, int V>
__device__ __forceinline__ Vec<T, V> slice_vec(const u32* slice, int i) {
  static_assert(Vec<T, V>::kBytes == 16, "slices hold 16-byte vectors");
  Vec<T, V> v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.w[0]), "=r"(v.w[1]), "=r"(v.w[2]), "=r"(v.w[3])
               : "r"(smem_addr(slice + 4 * i)));
  return v;
}

}  // namespace tileops_cuda
