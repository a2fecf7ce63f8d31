#include "reduce_layout.hpp"

#include <algorithm>

namespace tileops::cuda {
namespace {

// Loads in flight per thread in reduce_row (twice that for row_unroll's 16-bit rows) and
// in reduce_col.
constexpr int kRowUnroll = 4, kColUnroll = 8;
// The most CTAs along len (grid.y).
constexpr int64_t kMaxSplits = 65535;

void pick_row_threads(ReduceLayout& l) {
  l.tpr = int(clamp(pow2_ceil(ceil_div(l.len, 64)), 4, 256));
  l.rpc = l.tpr < 128 ? 128 / l.tpr : 1;
}

}  // namespace

std::string ReduceLayout::describe() const {
  switch (form) {
    case kRow: return "row t" + std::to_string(tpr) + " r" + std::to_string(rpc);
    case kShort: return "short t" + std::to_string(tpr) + " r" + std::to_string(rpc);
    case kCol: return "col";
    case kGeneral: return "general k" + std::to_string(n_kept) + " r" + std::to_string(n_red);
  }
  return "?";
}

ReduceLayout reduce_layout(std::span<const int64_t> shape, const std::vector<bool>& reduced) {
  // Runs of dims with the same flag (size-1 dims skipped), visited innermost first.
  const auto for_each_run = [&](auto&& visit) {
    int64_t stride = 1, run_size = 1, run_stride = 1;
    int flag = -1;  // the open run's: -1 none, else reduced
    for (size_t i = shape.size(); i-- > 0;) {
      if (shape[i] != 1) {
        if (flag == int(reduced[i])) {
          run_size *= shape[i];
        } else {
          if (flag >= 0) visit(run_size, run_stride, bool(flag));
          flag = int(reduced[i]), run_size = shape[i], run_stride = stride;
        }
      }
      stride *= shape[i];
    }
    if (flag >= 0) visit(run_size, run_stride, bool(flag));
  };
  ReduceLayout l;
  int reduced_runs = 0;
  for_each_run([&](int64_t, int64_t, bool r) { reduced_runs += r; });
  if (reduced_runs <= 1) {
    bool inside = true;  // innermost first: kept runs before the reduced one are inner
    for_each_run([&](int64_t size, int64_t, bool r) {
      if (r) {
        l.len = size;
        inside = false;
      } else {
        (inside && reduced_runs == 1 ? l.inner : l.outer) *= size;
      }
    });
    l.form = l.inner == 1 ? ReduceLayout::kRow : ReduceLayout::kCol;
    if (l.form == ReduceLayout::kRow) pick_row_threads(l);
    return l;
  }
  l.form = ReduceLayout::kGeneral;
  for_each_run([&](int64_t size, int64_t stride, bool r) {
    int& n = r ? l.n_red : l.n_kept;
    if (n < ReduceLayout::kMaxRuns) (r ? l.red : l.kept)[size_t(n)] = {size, stride};
    ++n;
    (r ? l.len : l.outer) *= size;
  });
  if (l.general_fits()) {  // outermost first
    std::reverse(l.kept.begin(), l.kept.begin() + l.n_kept);
    std::reverse(l.red.begin(), l.red.begin() + l.n_red);
  }
  return l;
}

int row_splits(const ReduceLayout& l, int vec, int sm_count, int vectors) {
  if (ceil_div(l.outer, l.rpc) >= 2 * int64_t(sm_count)) return 1;
  return int(clamp(ceil_div(l.len / vec, int64_t(kSplitRowThreads) * vectors), 1, kMaxSplits));
}

int col_splits(const ReduceLayout& l, int vec, ColThreads col, int sm_count) {
  const int64_t enough = 2 * int64_t(sm_count);
  const int64_t ctas = l.outer * ceil_div(l.inner / vec, col.tx);
  if (ctas == 0 || ctas >= enough) return 1;  // no columns: nothing to split
  const int64_t wanted = ceil_div(4 * enough, ctas);  // about 8 CTAs an SM: loads in flight hide latency
  const int64_t most = ceil_div(l.len, int64_t(col.ty) * kColUnroll * 4);  // each split has work to do
  return int(clamp(wanted < most ? wanted : most, 1, kMaxSplits));
}

int row_unroll(Elem e, int vec, bool split) {
  return !split && size_of(e) == 2 && vec == max_vec(e) ? 2 * kRowUnroll : kRowUnroll;
}

int col_cluster(const ReduceLayout& l, int vec, ColThreads col, int sm_count) {
  const int64_t tiles = l.outer * ceil_div(l.inner / vec, col.tx);
  int cluster = 1;
  while (cluster < TILEOPS_CUDA_MAX_CLUSTER && tiles * (2 * cluster) <= 2 * int64_t(sm_count)) cluster *= 2;
  return cluster;
}

ColThreads col_threads(const ReduceLayout& l, Elem e, int vec, int sm_count) {
  return size_of(e) == 2 && col_cluster(l, vec, kColWide, sm_count) >= 4 ? kColNarrow : kColWide;
}

std::vector<ReduceLayout> all_reduce_layouts() {
  std::vector<ReduceLayout> out;
  for (int tpr = 4; tpr <= 256; tpr *= 2) {
    ReduceLayout l;
    l.len = int64_t(tpr) * 64;
    pick_row_threads(l);
    out.push_back(l);
  }
  ReduceLayout split_rows;  // short splits
  split_rows.tpr = kSplitRowThreads;
  split_rows.rpc = 1;
  out.push_back(split_rows);
  ReduceLayout short_rows = out.front();
  short_rows.form = ReduceLayout::kShort;
  out.push_back(short_rows);
  ReduceLayout col;
  col.form = ReduceLayout::kCol;
  out.push_back(col);
  ReduceLayout general;
  general.form = ReduceLayout::kGeneral;
  out.push_back(general);
  return out;
}

}  // namespace tileops::cuda
