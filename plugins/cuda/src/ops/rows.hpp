#pragma once
// How a row-wise kernel (norms, softmax along the last dim) lays rows out on threads.
#include "common.hpp"

#include <compare>

namespace tileops::cuda {

struct RowPlan {
  // kReg: the row lives in registers (norm_reg, softmax_reg); kSmem: in the shared
  // memory of a cluster, read once by the bulk copy engine (norm_smem, softmax_smem);
  // kLoop: a statistics pass, then a write pass (norm_loop, softmax_loop); kQueue: pieces
  // of rows handed out as work items to a persistent grid (norm_queue only); kGrid: in
  // the shared memory of a span of CTAs, up to one an SM, meeting through global memory
  // (norm_grid only).
  enum Form { kReg, kSmem, kLoop, kQueue, kGrid };
  Form form = kReg;
  int vec = 1;          // elements per access (kSmem: 16 bytes' worth)
  int items = 1;        // kReg: vectors per thread
  int tpr = 32;         // threads per row (per CTA of a cluster)
  int rpc = 1;          // rows per CTA
  int cluster = 1;      // CTAs per row (kGrid: a span launched as single CTAs)
  int slice_bytes = 0;  // kSmem, kGrid: a CTA's share of a row
  int pieces = 1;       // kSmem, kGrid: the slice lands, and refills, in this many pieces
  int held = 0;         // kSmem, kGrid: 16-byte vectors a thread keeps in registers, before the slice
  // kSmem: the rows make waves of clusters, so the grid is instead the clusters the GPU
  // holds at once, `resident` (set by fit_to once the kernel is loaded), each sweeping
  // rows. kQueue: the grid is `resident` CTAs. kGrid: the grid is at most `resident`
  // spans, which sweep the rows.
  bool sweep = false;
  int resident = 0;

  // "<family>_reg", "<family>_smem", "<family>_loop", "<family>_queue" or "<family>_grid".
  std::string kernel(const char* family) const;
  // The template arguments after <T, KIND-or-LOG, ...> of that kernel.
  std::string template_args() const;
  std::string describe() const;  // "reg v8 i4 t256 r1 c1"
  LaunchShape shape(int64_t rows) const;
  // kSmem: whether the CTAs of `rows` rows, a cluster each, fit `sm_count` SMs' shared
  // memory at once (else false).
  bool one_wave(int64_t rows, int sm_count) const;
  // Sets `resident` for the kernel `f` of this plan on a GPU of `sm_count` SMs (kSmem
  // that sweeps, kQueue, kGrid; else nothing).
  void fit_to(CUfunction f, int sm_count);
  // kGrid (else 0): how late the odd spans start, for `rows` rows of `row_bytes` on a
  // device whose memory's peak rate is `dram_bytes_per_s` (0: unknown, no stagger): half
  // a round, the time the spans' loads of one row each take at that rate. Started
  // together, the spans load, meet and write in step, and DRAM idles while they all meet;
  // in two groups half a round apart, one group's loads meet the other's stores, and the
  // last span ends half a round late. On an H100, GroupNorm VAE: 10 us; 1.1-2.5% faster
  // than the spans spread evenly over a round (span s of n s / n of 20 us late, itself
  // fp32 0.795 -> 0.849 of copy and 16-bit 0.80 -> 0.835 against none); 7.5 or 15 us
  // apart, or three groups, gained less (docs/perf/session48.md).
  int stagger_ns(int64_t rows, int64_t row_bytes, int64_t dram_bytes_per_s) const;
};

// kSmem: the most 16-byte vectors a thread of a family's kernel keeps in registers
// (RowPlan::held) within 64 registers, so that four CTAs of 256 threads share an SM: in a
// CTA with one row, and in one that sweeps rows (whose held vectors live longer).
struct HeldCaps {
  int one_row = 0;
  int sweep = 0;
  auto operator<=>(const HeldCaps&) const = default;
};

// What a row layout depends on besides the row: the device, how many rows there are,
// and the shared memory one CTA may use (0: never the kSmem form).
struct RowContext {
  int arch;
  int64_t rows;
  int sm_count;
  int64_t smem_budget;
  bool grid_forms = false;  // the family has the kGrid and kQueue kernels (the norms)
  HeldCaps max_held{};
};

// The layout for rows of `cols` elements accessed `vec` at a time (1, or 16 bytes'
// worth when the row length allows): in registers when a row fits (at most 32 elements
// a thread, 512 threads a CTA, and on sm_90 up to 8 CTAs of 256 threads in a cluster),
// else on sm_90 in the shared memory of a cluster of up to 8 CTAs, else (sm_90, with
// `grid_forms`) in the shared memory of a span of CTAs (rows of 4 MB or more) or else the
// queue form, else the loop form.
RowPlan plan_rows(int64_t cols, int vec, const RowContext& context);
// The form for rows whose pointers turn out misaligned at launch: the loop, one element
// an access.
RowPlan fallback_rows(int64_t cols, const RowContext& context);

// Every distinct kernel plan_rows (or, with `fallback`, fallback_rows) can return for
// rows accessed `vec` at a time on `arch`, over every row length up to 2^20 vectors and
// the row counts that make each form (a cluster a row, one that holds vectors in
// registers, clusters that sweep), with (`smem`) or without a shared-memory budget, with
// or without the grid and queue forms, holding at most `max_held` vectors in registers.
std::vector<RowPlan> all_row_plans(int vec, int arch, bool fallback, bool smem, bool grid_forms, HeldCaps max_held);

}  // namespace tileops::cuda
