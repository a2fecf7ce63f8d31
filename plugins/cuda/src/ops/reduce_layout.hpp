#pragma once
// How a reduction over some axes of a contiguous tensor maps onto the reduce kernels:
// axes coalesced into x viewed as [outer, len, inner] (one run of reduced axes), or the
// general form (several runs), and when to split len over several CTAs.
#include "common.hpp"

#include <vector>

namespace tileops::cuda {

// reduce_col's CTA of 256 threads: tx across 16-byte vectors, 256 / tx rows down. 16-bit
// columns read runs of 128 bytes of a row (tx 8), wider elements runs of 256 (tx 16). On
// the H200, [8192, 8192] bf16 column sums ran at 0.62, 0.75, 0.80, 0.85 and 0.78 of copy
// at tx 64, 32, 16, 8 and 4; int32 column argmax was slower at tx 8 than at 16
// (docs/perf/cuda-kernels-h200.md, ninth round).
struct ColThreads {
  int tx, ty;
};
inline ColThreads col_threads(Elem e) { return size_of(e) == 2 ? ColThreads{8, 32} : ColThreads{16, 16}; }
// reduce_short: rows of at most this many bytes, a thread each, this many a CTA.
inline constexpr int kShortRowBytes = 256, kShortRows = 128;

struct ReduceLayout {
  // kShort is a kRow layout whose rows are short for their element type (the plan sets
  // it; reduce_layout never does).
  enum Form { kRow, kShort, kCol, kGeneral };
  Form form = kRow;
  int64_t outer = 1, len = 1, inner = 1;  // general: outer outputs of len reduced elements
  struct Dim {
    int64_t size, stride;
  };
  std::vector<Dim> kept, red;  // the general form's output and reduced dims
  int tpr = 32, rpc = 4;       // reduce_row: threads per row, rows per CTA

  std::string describe() const;  // "row t128 r1", "col", "general"
};

// `reduced` flags each dim of `shape`. Size-1 dims are dropped and neighbours with the
// same flag merged; no reduced run gives the row form with len 1.
ReduceLayout reduce_layout(std::span<const int64_t> shape, const std::vector<bool>& reduced);
// CTAs along len for the row or column form accessed `vec` elements at a time: more
// than 1 only when the rows or column tiles alone would leave the GPU idle.
int splits_for(const ReduceLayout& layout, int vec, ColThreads col, int sm_count);
// sm_90: the cluster of CTAs that splits len in the column form, so that the column
// tiles times the cluster give about two CTAs an SM (1, 2, 4 or 8).
int col_cluster(const ReduceLayout& layout, int vec, ColThreads col, int sm_count);
// One layout per distinct kernel configuration, for the compile test.
std::vector<ReduceLayout> all_reduce_layouts();

}  // namespace tileops::cuda
