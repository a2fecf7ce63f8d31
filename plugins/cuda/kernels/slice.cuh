// A CTA's share of a long row held in shared memory (sm_90): the row is read from
// device memory once, by the bulk copy engine, and every later pass over it (statistics,
// then the output) reads shared memory. CLUSTER CTAs split a row into contiguous slices
// of whole 16-byte vectors; with up to 8 CTAs of ~200 KB a row of up to ~1.6 MB stays on
// chip.
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

// Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from global `src` to
// shared `dst`, and returns once they have landed. Every thread of the CTA calls it;
// `bar` is a distinct __shared__ word, used once.
__device__ __forceinline__ void load_slice(void* dst, const void* src, u32 bytes, u64* bar) {
  constexpr u32 kPiece = 32768;  // bytes per bulk copy instruction
  const u32 b = smem_addr(bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
    // Makes the initialised barrier visible to the copy engine (the async proxy).
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (bytes == 0) return;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes) : "memory");
    for (u32 done = 0; done < bytes; done += kPiece) {
      const u32 n = bytes - done < kPiece ? bytes - done : kPiece;
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
              smem_addr(dst) + done),
          "l"(static_cast<const char*>(src) + done), "r"(n), "r"(b)
          : "memory");
    }
  }
  u32 landed = 0;
  while (!landed)
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(landed)
        : "r"(b)
        : "memory");
}

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
