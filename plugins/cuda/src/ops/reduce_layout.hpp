#pragma once
// How a reduction over some axes of a contiguous tensor maps onto the reduce kernels:
// axes coalesced into x viewed as [outer, len, inner] (one run of reduced axes), or the
// general form (several runs), and when to split len over several CTAs.
#include "common.hpp"

#include <array>
#include <vector>

namespace tileops::cuda {

using tileops_cuda::ReduceKind, tileops_cuda::kSum, tileops_cuda::kMean, tileops_cuda::kAmax, tileops_cuda::kArgmax;

// reduce_col's CTA of 256 threads: tx across 16-byte vectors, 256 / tx rows down.
struct ColThreads {
  int tx, ty;
  bool operator==(const ColThreads&) const = default;
};
// Runs of 256 bytes of a row (tx 16), or of 128 (tx 8) for 16-bit columns that would
// take clusters of 4 or more at 256: the narrower tiles are twice as many, in clusters
// half the size. On the H200, [8192, 8192] bf16 column sums (clusters of 4 at tx 16) ran
// at 0.80 of copy at tx 16 and 0.84-0.85 at tx 8 (0.75 at 32, 0.78 at 4); the
// [8, 4096, 4096] sums along dim 1 (no cluster at tx 16) lost 1% at tx 8, and int32
// column argmax lost 3% (docs/perf/cuda-kernels-h200.md, ninth round).
inline constexpr ColThreads kColWide{16, 16}, kColNarrow{8, 32};
// reduce_short: rows of at most this many bytes, a thread each, this many a CTA.
inline constexpr int kShortRowBytes = 256, kShortRows = 128;

struct ReduceLayout {
  // kShort is a kRow layout whose rows are short for their element type (the plan sets
  // it; reduce_layout never does).
  enum Form { kRow, kShort, kCol, kGeneral };
  Form form = kRow;
  int64_t outer = 1, len = 1, inner = 1;  // general: outer outputs of len reduced elements
  // The general form's output (kept) and reduced runs of dims, outermost first, as many
  // as reduce_general takes; n_kept and n_red count them all, so a shape with more
  // (which the plan refuses) is told apart. Fixed arrays: the launch recomputes the
  // layout on every call, and allocates nothing.
  struct Dim {
    int64_t size, stride;
  };
  static constexpr int kMaxRuns = TILEOPS_CUDA_MAX_DIMS;
  std::array<Dim, kMaxRuns> kept{}, red{};
  int n_kept = 0, n_red = 0;
  int tpr = 32, rpc = 4;  // reduce_row: threads per row, rows per CTA

  bool general_fits() const { return n_kept <= kMaxRuns && n_red <= kMaxRuns; }

  // "row t128 r1", "col", "general k2 r3": what tells kernels apart (a call whose shape
  // gives the same description shares the kernel of an earlier one)
  std::string describe() const;
};

// `reduced` flags each dim of `shape`. Size-1 dims are dropped and neighbours with the
// same flag merged; no reduced run gives the row form with len 1.
ReduceLayout reduce_layout(std::span<const int64_t> shape, const std::vector<bool>& reduced);
// CTAs along len (at most 65535), more than 1 only when the rows alone would leave the
// GPU idle: rows split into short CTAs of kSplitRowThreads threads with `vectors`
// vectors of `vec` elements each, as many as that makes, which SMs take up as they free
// up, so that no SM is left with a long share at the end. On the H200, a sum over all
// axes of [8192, 8192] ran at 0.89 (fp32) and 0.86 (16-bit) of copy as one wave of about
// 8 CTAs an SM, each a long share; at 0.92-0.94 and 0.92 in short CTAs of 256 threads,
// and at 0.96-0.98 and 0.93-0.94 at 512 (docs/perf/cuda-kernels-h200.md, fourteenth
// round). The reduction picks `vectors` (split_row_vectors).
inline constexpr int kSplitRowThreads = 512;
int row_splits(const ReduceLayout& rows, int vec, int sm_count, int vectors);
// reduce_row's vectors a thread in a short split. Argmax's CTA ends with a dearer
// combine than a sum's (a value and its index), which more vectors a thread pay for: on
// the H200, flat argmax [8192, 8192] bf16 ran at 0.60 of copy at 2, 0.91 at 4 and 0.87
// at 8; sums over all axes at 0.94 at 2, 0.92-0.93 at 4 (fifteenth round).
inline int split_row_vectors(ReduceKind red) { return red == kArgmax ? 4 : 2; }
// CTAs along len for column tiles too few to fill the GPU (before sm_90; sm_90 splits
// len over a cluster instead): about 8 CTAs an SM, each at least 4 rounds of loads.
int col_splits(const ReduceLayout& cols, int vec, ColThreads col, int sm_count);
// reduce_row's vectors in flight a thread. The row's threads are sized for about 64
// elements each (pick_row_threads): for 16-bit elements in 16-byte vectors that is 8
// vectors, all in flight at once with 8. On the H200 (A/B), [8192, 8192] 16-bit rows went
// from 0.91 to 0.945 of copy (sum, mean, amax) and from 0.91 to 0.94 (argmax). Split rows
// keep 4, all of a short split's 2 or 4 vectors a thread in one round. So do fp32 rows
// (16 vectors a thread in two rounds instead of four: 0.93-0.95 -> 0.88-0.89, fewer CTAs
// an SM) and scalar accesses.
int row_unroll(Elem e, int vec, bool split);
// sm_90: the cluster of CTAs that splits len in the column form, so that the column
// tiles times the cluster give about two CTAs an SM (1, 2, 4 or 8).
int col_cluster(const ReduceLayout& layout, int vec, ColThreads col, int sm_count);
ColThreads col_threads(const ReduceLayout& layout, Elem e, int vec, int sm_count);
// One layout per distinct kernel configuration, for the compile test.
std::vector<ReduceLayout> all_reduce_layouts();

}  // namespace tileops::cuda
