#include "reduce_layout.hpp"

#include <algorithm>

namespace tileops::cuda {
namespace {

constexpr int kRowUnroll = 4, kColUnroll = 8;  // loads in flight per thread in reduce_row, reduce_col

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
    case kGeneral: return "general";
  }
  return "?";
}

ReduceLayout reduce_layout(std::span<const int64_t> shape, const std::vector<bool>& reduced) {
  struct Run {
    int64_t size, stride;
    bool reduced;
  };
  std::vector<Run> runs;  // outermost first
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    const int64_t size = shape[i];
    if (size != 1) {
      if (!runs.empty() && runs.back().reduced == reduced[i])
        runs.back().size *= size;
      else
        runs.push_back({size, stride, reduced[i]});
    }
    stride *= size;
  }
  std::reverse(runs.begin(), runs.end());
  ReduceLayout l;
  size_t n_reduced = 0;
  for (const Run& r : runs) n_reduced += r.reduced;
  if (n_reduced <= 1) {
    bool after = false;
    for (const Run& r : runs) {
      if (r.reduced) {
        l.len = r.size;
        after = true;
      } else {
        (after ? l.inner : l.outer) *= r.size;
      }
    }
    l.form = l.inner == 1 ? ReduceLayout::kRow : ReduceLayout::kCol;
    if (l.form == ReduceLayout::kRow) pick_row_threads(l);
    return l;
  }
  l.form = ReduceLayout::kGeneral;
  l.outer = 1;
  for (const Run& r : runs) {
    (r.reduced ? l.red : l.kept).push_back({r.size, r.stride});
    (r.reduced ? l.len : l.outer) *= r.size;
  }
  return l;
}

int splits_for(const ReduceLayout& l, int vec, ColThreads col, int sm_count) {
  const int64_t enough = 2 * int64_t(sm_count);
  int64_t ctas, most;
  if (l.form == ReduceLayout::kRow) {
    ctas = ceil_div(l.outer, l.rpc);
    most = ceil_div(l.len / vec, int64_t(l.tpr) * kRowUnroll * 4);  // each split has work to do
  } else if (l.form == ReduceLayout::kCol) {
    ctas = l.outer * ceil_div(l.inner / vec, col.tx);
    most = ceil_div(l.len, int64_t(col.ty) * kColUnroll * 4);
  } else {
    return 1;
  }
  if (ctas >= enough) return 1;
  const int64_t wanted = ceil_div(4 * enough, ctas);  // about 8 CTAs an SM: loads in flight hide latency
  return int(clamp(wanted < most ? wanted : most, 1, 65535));
}

int col_cluster(const ReduceLayout& l, int vec, ColThreads col, int sm_count) {
  const int64_t tiles = l.outer * ceil_div(l.inner / vec, col.tx);
  int cluster = 1;
  while (cluster < 8 && tiles * (2 * cluster) <= 2 * int64_t(sm_count)) cluster *= 2;
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
