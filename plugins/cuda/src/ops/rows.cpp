#include "rows.hpp"

#include <set>

namespace tileops::cuda {
namespace {

constexpr int kFloatsPerThread = 32;  // register budget for a thread's share of the row
constexpr int kMaxBlockThreads = 512;
// A cluster's CTAs stay small enough for several to share an SM, so one CTA's loads
// overlap another's reduction.
constexpr int kClusterThreads = 256;
constexpr int kMaxCluster = 8;  // the portable cluster size
constexpr int kLoopThreads = 256;  // the loop form: several CTAs an SM

RowPlan loop_plan(int64_t nvec, int vec, const RowContext& c) {
  RowPlan p;
  p.loop = true;
  p.vec = vec;
  p.tpr = int(clamp(pow2_ceil(ceil_div(nvec, 8)), 32, kLoopThreads));
  // A cluster of CTAs per row keeps each CTA's share of a long row small enough for its
  // second pass to hit L2, and gives few long rows enough CTAs to fill the GPU.
  const bool long_row = nvec > int64_t(kLoopThreads) * 128;
  const bool few_rows = c.rows < 2 * int64_t(c.sm_count) && nvec > int64_t(kLoopThreads) * 8;
  p.cluster = c.arch >= 90 && (long_row || few_rows) ? kMaxCluster : 1;
  return p;
}

}  // namespace

std::string RowPlan::template_args() const {
  if (loop) return std::to_string(vec) + ", " + std::to_string(tpr) + ", " + std::to_string(cluster);
  return std::to_string(vec) + ", " + std::to_string(items) + ", " + std::to_string(tpr) + ", " +
         std::to_string(rpc) + ", " + std::to_string(cluster);
}

std::string RowPlan::describe() const {
  return std::string(loop ? "loop" : "reg") + " v" + std::to_string(vec) + " i" + std::to_string(items) + " t" +
         std::to_string(tpr) + " r" + std::to_string(rpc) + " c" + std::to_string(cluster);
}

LaunchShape RowPlan::shape(int64_t rows) const {
  LaunchShape s;
  s.grid[0] = unsigned(ceil_div(rows, rpc) * cluster);
  s.block[0] = unsigned(tpr * rpc);
  s.cluster = unsigned(cluster);
  return s;
}

RowPlan plan_rows(int64_t cols, int vec, const RowContext& c) {
  const int64_t nvec = cols / vec;
  // Scalar accesses hold one element a register: fewer of them (fused add keeps x, the
  // residual and the sum of each).
  const int max_items = vec == 1 ? kFloatsPerThread / 2 : kFloatsPerThread / vec;
  if (vec == 1 && nvec > 32 * max_items) return loop_plan(nvec, vec, c);
  RowPlan p;
  p.vec = vec;
  if (nvec <= 32 * max_items) {  // a warp or less per row, several rows a CTA
    p.tpr = int(clamp(pow2_ceil(ceil_div(nvec, max_items)), 4, 32));
    p.rpc = 128 / p.tpr;
  } else if (nvec <= int64_t(kMaxBlockThreads) * max_items) {
    p.tpr = int(pow2_ceil(ceil_div(nvec, max_items)));
    p.rpc = p.tpr < 128 ? 128 / p.tpr : 1;
  } else if (c.arch >= 90 && nvec <= int64_t(kMaxCluster) * kClusterThreads * max_items) {
    p.tpr = kClusterThreads;
    p.cluster = int(pow2_ceil(ceil_div(nvec, int64_t(kClusterThreads) * max_items)));
  } else {
    return loop_plan(nvec, vec, c);
  }
  p.items = int(pow2_ceil(ceil_div(nvec, int64_t(p.tpr) * p.cluster)));
  return p;
}

RowPlan fallback_rows(int64_t cols, const RowContext& c) { return loop_plan(cols, 1, c); }

std::vector<RowPlan> all_row_plans(int vec, int arch, bool fallback) {
  std::vector<RowPlan> out;
  std::set<std::string> seen;
  for (int64_t rows : {int64_t(1), int64_t(1) << 20}) {
    const RowContext c{arch, rows, 132};
    for (int64_t nvec = 1; nvec <= (int64_t(1) << 20); ++nvec) {
      const RowPlan p = fallback ? fallback_rows(nvec, c) : plan_rows(nvec * vec, vec, c);
      if (seen.insert(p.describe()).second) out.push_back(p);
    }
  }
  return out;
}

}  // namespace tileops::cuda
