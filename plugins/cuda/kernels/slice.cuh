// A CTA's share of a long row held in shared memory (sm_90): the row is read from
// device memory once, by the bulk copy engine, and every later pass over it (statistics,
// then the output) reads shared memory. CLUSTER CTAs split a row into contiguous slices
// of whole 16-byte vectors; with up to 8 CTAs of ~200 KB a row of up to ~1.6 MB stays on
// chip. When there are more rows than resident clusters, each cluster may sweep several
// rows: with one stage (softmax, the norms) each piece of a slice refills with the next
// row once the CTA has read the last of it in this one; with more (cumsum's staged rows)
// the next rows load while this one is worked on. Rows that a cluster each could hold
// in one wave but for their slices' size, and sweeps whose slices would let only three
// CTAs share an SM, keep the first vectors of each CTA's share in registers
// (HeldVectors).
#pragma once
#include "common.cuh"

namespace tileops_cuda {

// The vectors [begin, begin + count) of a row of `nvec` 16-byte vectors that CTA `rank`
// of the `parts` CTAs sharing the row holds.
struct SliceRange {
  i64 begin;
  int count;
  __device__ __forceinline__ SliceRange(i64 nvec, u32 parts, u32 rank) {
    const i64 per_cta = (nvec + parts - 1) / parts;
    begin = i64(rank) * per_cta;
    const i64 left = nvec - begin;
    count = int(left < 0 ? 0 : left < per_cta ? left : per_cta);
  }
};

// STAGES buffers of a CTA's slice each (`count` 16-byte vectors) in its dynamic shared
// memory, filled from global memory by the bulk copy engine. Each buffer is PIECES
// contiguous pieces, each signalled on its own mbarrier, so a CTA can start on the first
// piece of a row while the rest lands, and refill a piece with the next row as soon as
// it has written this row's. With more than one stage a CTA that works through several
// rows has its next rows' slices streaming in while it works on this one.
// Stage s serves the CTA's rows s, s + STAGES, ...: its n-th use waits for parity n & 1.
template <int STAGES, int PIECES>
struct SliceStages {
  // Four pieces measured slower than one or two on the H200 (sixteenth session).
  static_assert(PIECES == 1 || PIECES == 2, "a piece is released on named barrier 1 + piece (piece_barrier)");
  u32* base;
  u32 vecs;        // a stage's vectors
  u32 piece_vecs;  // a piece's (the last pieces may hold fewer, or none)
  u64* bars;       // STAGES * PIECES distinct __shared__ words: piece q of stage s at s * PIECES + q

  // Every thread of the CTA constructs it (the barriers are ready when it returns).
  // Pieces start at multiples of `align` vectors.
  __device__ __forceinline__ SliceStages(u32* smem, int count, u64* barriers, u32 align)
      : base(smem),
        vecs(u32(count)),
        piece_vecs(round_up((u32(count) + PIECES - 1) / PIECES, align)),
        bars(barriers) {
    if (threadIdx.x == 0) {
#pragma unroll
      for (int b = 0; b < STAGES * PIECES; ++b) mbarrier_init(bars + b, 1);
      mbarrier_init_fence();
    }
    __syncthreads();
  }

  static __device__ __forceinline__ u32 round_up(u32 n, u32 m) { return (n + m - 1) / m * m; }
  __device__ __forceinline__ u32* at(int stage) const { return base + u32(stage) * vecs * 4; }
  // The first vector of piece q (q == PIECES: the stage's end).
  __device__ __forceinline__ int piece_begin(int q) const {
    const u32 b = u32(q) * piece_vecs;
    return int(b < vecs ? b : vecs);
  }

  // Thread 0 only: starts filling piece q of `stage` from `src` (the stage's row,
  // 16-byte aligned), its lines marked L2 evict-first where `evict_first` (a one-wave
  // kernel's first fills, SlicedRows). The CTA must be done reading the piece. Two
  // copy forms, not one taking a policy: the refills carry no hint, and an explicit
  // L2::evict_normal policy there made GroupNorm VAE 2-3.5% slower (session 52's A/B).
  __device__ __forceinline__ void fill(int stage, int q, const void* src, bool evict_first) const {
    constexpr u32 kCopy = 32768;  // bytes per bulk copy instruction
    const u32 lo = u32(piece_begin(q)) * 16, hi = u32(piece_begin(q + 1)) * 16;
    if (lo == hi) return;
    u64* const bar = bars + stage * PIECES + q;
    const u32 b = smem_addr(bar), dst = smem_addr(at(stage));
    // Orders this CTA's earlier reads of the piece before the copy engine's writes.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    mbarrier_expect_tx(bar, hi - lo);
    for (u32 done = lo; done < hi; done += kCopy) {
      const u32 n = hi - done < kCopy ? hi - done : kCopy;
      const char* from = static_cast<const char*>(src) + done;
      if (evict_first)
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;"
            ::"r"(dst + done), "l"(from), "r"(n), "r"(b), "l"(l2_evict_first())
            : "memory");
      else
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     ::"r"(dst + done), "l"(from), "r"(n), "r"(b)
                     : "memory");
    }
  }
  __device__ __forceinline__ void fill(int stage, const void* src, bool evict_first) const {
#pragma unroll
    for (int q = 0; q < PIECES; ++q) fill(stage, q, src, evict_first);
  }

  // Returns once piece q of `stage`, filled for its `use`-th row (counting from 0), has
  // landed.
  __device__ __forceinline__ void wait(int stage, int q, u32 use) const {
    if (piece_begin(q) == piece_begin(q + 1)) return;  // an empty piece is never filled
    mbarrier_wait(bars + stage * PIECES + q, use & 1);
  }
};

// The rows of a row kernel whose CTAs (or clusters) each work through several rows:
// the group's first row, and the step to its next.
struct RowSweep {
  i64 first, step, rows;
  __device__ __forceinline__ i64 nth(u32 n) const { return first + i64(n) * step; }
  __device__ __forceinline__ bool has(u32 n) const { return nth(n) < rows; }
};

// Waits at (`sync`) or arrives at the named barrier of piece q (< 2) with the CTA's
// blockDim.x threads: barrier 1 + q, as an immediate. A barrier number in a register
// makes ptxas reserve all 16 of the CTA's barriers ("used 16 barriers"), which seems to
// let fewer CTAs share an SM: softmax [64, 128256] bf16 in two pieces took 17.0 µs that
// way, 15.9 with immediates, on the H200.
__device__ __forceinline__ void piece_barrier(int q, bool sync) {
  const u32 threads = blockDim.x;
  if (q == 0) {
    if (sync) asm volatile("bar.sync 1, %0;" ::"r"(threads) : "memory");
    else asm volatile("bar.arrive 1, %0;" ::"r"(threads) : "memory");
  } else {
    if (sync) asm volatile("bar.sync 2, %0;" ::"r"(threads) : "memory");
    else asm volatile("bar.arrive 2, %0;" ::"r"(threads) : "memory");
  }
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

// The sweep over rows of `len` elements of T, each row held on chip by `parts` CTAs (a
// cluster, or norm_grid's span of CTAs, numbered from 0 in the grid): this CTA's range of
// every row, the rows its CTAs take, and STAGES slices of PIECES pieces
// filled ahead (the first STAGES rows from construction on). The first `kept` vectors of
// the range the kernel loads into registers itself (rows that shared memory alone could
// not hold in one wave); the slice holds the rest, vector i of the slice being vector
// kept + i of the range. Every thread of the CTA constructs it. For each row n in turn,
// every thread either calls slice(n) and, after its last read, done(n); or walks the
// slice with each(n, ...) on its first pass, each_again(n, ...) on any pass between, and
// each_then_release(n, ...) on its last (at least two passes: only the first waits).
// The walks give thread `lane` of TPR the slice's vectors lane, lane + TPR, ...: the
// pieces start at multiples of TPR, so a thread takes the same vectors in a walk piece
// by piece as in one loop over the slice. ROLLED_WALKS keeps the walks' loops rolled:
// norm_smem's first NVRTC build takes a quarter less (GroupNorm bf16 196 -> 145 ms on
// the CI VM) for kernels within 0.5% of the unrolled ones, GroupNorm unet's 1-1.6%
// slower; softmax's one-wave rows would lose 0.6-1.4%, so softmax keeps them unrolled
// (an H100; docs/perf/cuda-kernels-h200.md, thirty-fourth and thirty-fifth rounds).
template <class T, int STAGES, int PIECES = 1, int TPR = 1, bool ROLLED_WALKS = false>
struct SlicedRows {
  static constexpr int kV = 16 / int(sizeof(T));
  static constexpr int kPieces = PIECES;
  SliceRange range;
  int kept;
  RowSweep rows;
  SliceStages<STAGES, PIECES> stages;
  const T* src;  // this CTA's slice of row 0
  i64 len;

  __device__ __forceinline__ SlicedRows(const void* x, i64 row_len, i64 row_count, u32 parts, u32 rank, u32* smem,
                                        u64* bars, int in_registers = 0)
      : range(row_len * i64(sizeof(T)) / 16, parts, rank),
        kept(range.count < in_registers ? range.count : in_registers),
        rows{blockIdx.x / parts, gridDim.x / parts, row_count},
        stages(smem, range.count - kept, bars, TPR),
        src(static_cast<const T*>(x) + (range.begin + kept) * kV),
        len(row_len) {
    // One wave (each CTA or cluster has one row, so all of the kernel's reads come before
    // its writes): the slices' copies mark their lines L2 evict-first, so that the reads
    // replace their own lines, and the writes those, instead of pushing out dirty lines
    // whose write-backs would share DRAM with the kernel. On an H100: Softmax [64, 128256]
    // 16-bit 0.879-0.886 -> 0.919-0.927 of copy, GroupNorm unet 5.1-5.7% faster; sweeps,
    // which stream more than L2 holds, lost 1.1-2.8% with it (LogSoftmax [2048, 128256],
    // GroupNorm [8, 512, 128, 128]), so they keep plain copies (docs/perf/session48.md).
    // Only these first fills can be a one-wave kernel's: a refill means a sweep.
    const bool evict_first = rows.rows <= rows.step;
    if (threadIdx.x == 0)
#pragma unroll
      for (int s = 0; s < STAGES; ++s)
        if (rows.has(s)) stages.fill(s, src + rows.nth(s) * len, evict_first);
  }

  // This CTA's range of row n: its `kept` vectors, then its slice's.
  __device__ __forceinline__ const T* range_of(u32 n) const { return src - kept * kV + rows.nth(n) * len; }
  // Row n's slice, whether or not it has landed.
  __device__ __forceinline__ const u32* at(u32 n) const { return stages.at(int(n % STAGES)); }
  // The vectors [piece_begin(q), piece_begin(q + 1)) of the slice are piece q.
  __device__ __forceinline__ int piece_begin(int q) const { return stages.piece_begin(q); }
  __device__ __forceinline__ void wait(u32 n, int q) const { stages.wait(int(n % STAGES), q, n / STAGES); }

  // This CTA's slice of row n, once all of it has landed.
  __device__ __forceinline__ const u32* slice(u32 n) const {
#pragma unroll
    for (int q = 0; q < PIECES; ++q) wait(n, q);
    return at(n);
  }

  // f(vector, its index in the CTA's range) for each vector of row n's slice that thread
  // `lane` takes. Every pass gives a thread the same vectors (softmax relies on it: a
  // thread's sum is taken against its own maximum). The row's first pass, each, waits
  // for each piece as it lands; later passes, each_again, read the landed slice in one
  // loop; the last, each_then_release, refills each piece with the cluster's next row
  // once every thread has read it (release). On the H200, where a thread takes 8-16
  // vectors a row, waiting again on landed pieces cost up to 3% (Softmax [64, 128256]
  // fp32), and a sum pass in two piece loops instead of one 2-4.5% (LogSoftmax [2048,
  // 128256]) (docs/perf/cuda-kernels-h200.md, eighteenth and nineteenth rounds).
  template <class F>
  __device__ __forceinline__ void each(u32 n, u32 lane, F f) const {
#pragma unroll 1
    for (int q = 0; q < PIECES; ++q) {
      wait(n, q);
      walk(n, piece_begin(q), piece_begin(q + 1), lane, f);
    }
  }
  template <class F>
  __device__ __forceinline__ void each_again(u32 n, u32 lane, F f) const {
    walk(n, 0, piece_begin(PIECES), lane, f);
  }
  template <class F>
  __device__ __forceinline__ void each_then_release(u32 n, u32 lane, F f) const {
#pragma unroll  // release takes its barrier number as an immediate
    for (int q = 0; q < PIECES; ++q) {
      walk(n, piece_begin(q), piece_begin(q + 1), lane, f);
      release(n, q);
    }
  }

  // After the CTA's last read of row n's slice: its stage starts filling with row
  // n + STAGES.
  __device__ __forceinline__ void done(u32 n) const {
    if (rows.has(n + STAGES)) {
      __syncthreads();  // the stage is free once every thread has read it
      if (threadIdx.x == 0) stages.fill(int(n % STAGES), src + rows.nth(n + STAGES) * len, /*evict_first=*/false);
    }
  }

  // After this thread's last read of piece q of row n: once every warp of the CTA has
  // read it, the piece starts filling with row n + STAGES. Warp 0 waits for the others
  // (named barrier 1 + q over the CTA's blockDim.x threads); they go on without waiting.
  __device__ __forceinline__ void release(u32 n, int q) const {
    if (!rows.has(n + STAGES)) return;
    if (threadIdx.x < 32) {
      piece_barrier(q, true);
      if (threadIdx.x == 0) stages.fill(int(n % STAGES), q, src + rows.nth(n + STAGES) * len, /*evict_first=*/false);
    } else {
      piece_barrier(q, false);
    }
  }

 private:
  // The vectors [begin, end) of row n's slice that thread `lane` takes (begin: a
  // multiple of TPR).
  template <class F>
  __device__ __forceinline__ void walk(u32 n, int begin, int end, u32 lane, F f) const {
    const u32* slice = at(n);
    // Two loops, not one `#pragma unroll(ROLLED_WALKS ? 1 : N)`: no N gives the unrolling
    // the compiler picks itself (N = 2, 4 or 8 changed 102-104 of the 104 softmax_smem
    // kernels' code), which softmax was measured with.
    if constexpr (ROLLED_WALKS) {
#pragma unroll 1
      for (int i = begin + int(lane); i < end; i += TPR) f(slice_vec<T, kV>(slice, i), kept + i);
    } else {
      for (int i = begin + int(lane); i < end; i += TPR) f(slice_vec<T, kV>(slice, i), kept + i);
    }
  }
};

// The CTAs an SM a kernel that holds REGS vectors a thread in registers is built for
// (its __launch_bounds__ minimum): the host holds vectors so that four CTAs of 256
// threads share an SM, or 2 a thread in any one-wave row (rows.cpp), and ptxas must
// keep to 64 registers a thread. Without held vectors 0, no minimum, as if none were
// given: a minimum of 1 let ptxas take 48-56 registers for softmax_smem where it takes
// 32, and the one-wave 16-bit vocabulary rows, holding nothing then, lost a CTA an SM
// (Softmax [64, 128256] fp16 15.2 -> 16.2 µs on the H200). Holding 2 (48-56 registers,
// four or five CTAs an SM) they are 0-2% faster on an H100; not yet timed on an H200.
template <int REGS>
constexpr int kHeldCtasPerSm = REGS > 0 ? 4 : 0;

// The first vectors of a CTA's range of a row that SlicedRows leaves to registers
// (`kept`, at most REGS * TPR): vector j * TPR + lane of the range is v[j] of thread
// `lane`. A kernel fetches row 0's before it waits for the first slice, so both are in
// flight together, and each next row's in its last pass over this one (each_then_fetch).
template <class T, int REGS, int TPR>
struct HeldVectors {
  static constexpr int V = 16 / int(sizeof(T));
  Vec<T, V> v[REGS > 0 ? REGS : 1];
  int kept;
  u32 lane;

  __device__ __forceinline__ HeldVectors(int kept_vectors, u32 thread) : kept(kept_vectors), lane(thread) {}
  __device__ __forceinline__ int index(int j) const { return j * TPR + int(lane); }
  // Starts loading row n's of `sweep` (a SlicedRows), if it has a row n.
  template <class Sweep>
  __device__ __forceinline__ void fetch(const Sweep& sweep, u32 n) {
    if (REGS == 0 || !sweep.rows.has(n)) return;
    const T* range = sweep.range_of(n);
#pragma unroll
    for (int j = 0; j < REGS; ++j)
      if (index(j) < kept) v[j] = load<T, V>(range + i64(index(j)) * V);
  }
  // f(vector, its index in the range) for each vector this thread holds.
  template <class F>
  __device__ __forceinline__ void each(F f) const {
#pragma unroll
    for (int j = 0; j < REGS; ++j)
      if (index(j) < kept) f(v[j], index(j));
  }
  // Row n's last pass: f over the held vectors, then over the slice of `sweep`
  // (each_then_release), fetching row n + 1's held vectors in between where the slice is
  // in pieces that refill with the next row (a sweep), after otherwise: a CTA with one
  // row never fetches, and held vectors live through the slice's pass cost registers
  // (LayerNorm fp32 with both affine inputs, 4 held: 64 registers, 16 bytes spilled).
  template <class Sweep, class F>
  __device__ __forceinline__ void each_then_fetch(const Sweep& sweep, u32 n, F f) {
    each(f);
    if constexpr (Sweep::kPieces > 1) fetch(sweep, n + 1);
    sweep.each_then_release(n, lane, f);
    if constexpr (Sweep::kPieces == 1) fetch(sweep, n + 1);
  }
};


}  // namespace tileops_cuda
