#include "rows.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>

namespace tileops::cuda {
namespace {

constexpr int kFloatsPerThread = 32;  // register budget for a thread's share of the row
constexpr int kMaxBlockThreads = 512;
// A cluster's CTAs stay small enough for several to share an SM, so one CTA's loads
// overlap another's reduction.
constexpr int kClusterThreads = 256;
constexpr int kMaxCluster = TILEOPS_CUDA_MAX_CLUSTER;
constexpr int kLoopThreads = 256;  // the loop form: several CTAs an SM
constexpr int kQueueThreads = 256;  // the queue form: TILEOPS_CUDA_QUEUE_VECS / 256 vectors a thread
constexpr int kGridThreads = 256;
constexpr int kGridMaxHeld = 4;  // the grid form's held vectors a thread: 79-91 registers, two CTAs an SM
constexpr int64_t kGridMinRowBytes = 4 << 20;  // shorter rows take the queue form
// kSmem: longer rows than a cluster of kSliceTarget slices holds take bigger slices, up
// to what one CTA may use less what the kernels declare statically.
constexpr int64_t kSliceTarget = 64 << 10;
constexpr int64_t kStaticSmemReserve = 1 << 10;
constexpr int64_t kH100SmemBudget = 227 << 10;  // the opt-in limit of sm_90 parts
constexpr int64_t kSm90SmemPerSm = 228 << 10;
constexpr int64_t kCtaSmemReserve = 1 << 10;  // what the driver sets aside a CTA (sm_80 and later)
constexpr int kMaxSmCtas = 2048 / kClusterThreads;  // CTAs of kClusterThreads an SM holds
constexpr int kSweepCtas = 4;  // kSmem sweeps holding vectors: the CTAs an SM (64 registers a thread)
constexpr int kOneWaveHeld = 2;  // kSmem, a cluster a row: the fewest vectors a thread holds

RowPlan loop_plan(int64_t nvec, int vec, const RowContext& c) {
  RowPlan p;
  p.form = RowPlan::kLoop;
  p.vec = vec;
  p.tpr = int(clamp(pow2_ceil(ceil_div(nvec, 8)), 32, kLoopThreads));
  // A cluster of CTAs per row keeps each CTA's share of a long row small enough for its
  // second pass to hit L2, and gives few long rows enough CTAs to fill the GPU.
  const bool long_row = nvec > int64_t(kLoopThreads) * 128;
  const bool few_rows = c.rows < 2 * int64_t(c.sm_count) && nvec > int64_t(kLoopThreads) * 8;
  p.cluster = c.arch >= 90 && (long_row || few_rows) ? kMaxCluster : 1;
  return p;
}

// The queue form numbers its work items (2 * pieces a row, and the tickets the grid
// takes past the last) with 32 bits.
bool queue_fits(int64_t nvec, int64_t rows) {
  return rows * 2 * ceil_div(nvec, TILEOPS_CUDA_QUEUE_VECS) < (int64_t(1) << 31);
}

RowPlan queue_plan(int vec) {
  RowPlan p;
  p.form = RowPlan::kQueue;
  p.vec = vec;
  p.tpr = kQueueThreads;
  return p;
}

// kSmem: slices of at most kSliceTarget bytes let three CTAs share an SM, so one CTA's
// bulk copy overlaps another's passes.
int cluster_for(int64_t nvec, int64_t slice_target) {
  return int(clamp(pow2_ceil(ceil_div(nvec * 16, slice_target)), 1, kMaxCluster));
}

// The bytes of slice each of `ctas` CTAs may take for all to share `sm_count` SMs at
// once, or 0 when more than kMaxSmCtas would share an SM.
int64_t one_wave_slice(int64_t ctas, int sm_count) {
  const int64_t per_sm = std::max<int64_t>(1, ceil_div(ctas, sm_count));  // no rows: plan as for one
  if (per_sm > kMaxSmCtas) return 0;
  return kSm90SmemPerSm / per_sm - kCtaSmemReserve - kStaticSmemReserve;
}

// The grid form for rows of `nvec` 16-byte vectors, if a span of at most one CTA an SM
// holds one: slices for two CTAs an SM where the span fits that, so that one CTA's
// copies overlap the other's wait for its row (on 8 MB rows one CTA an SM was 4-17%
// slower; docs/perf/session43.md), else for one. Each thread may hold up to
// kGridMaxHeld vectors in registers beside its slice, as many as take the rows in the
// fewest rounds of spans: GroupNorm VAE's 32 fp32 rows of 8 MB fill 3 spans from shared
// memory alone, 11 rounds with the last a third idle, and 4 holding 4 vectors, 8 rounds
// (on an H100 245 -> 232 µs, 0.75 -> 0.795 of copy; docs/perf/session45.md).
std::optional<RowPlan> grid_plan(int64_t nvec, int vec, const RowContext& c) {
  for (int64_t per_sm : {2, 1}) {
    const int64_t room = std::min(c.smem_budget - kStaticSmemReserve, one_wave_slice(per_sm * c.sm_count, c.sm_count));
    std::optional<RowPlan> best;
    int64_t best_rounds = 0;
    for (int held = 0; held <= kGridMaxHeld; ++held) {
      const int64_t in_registers = int64_t(held) * kGridThreads * 16;
      const int64_t span = ceil_div(nvec * 16, room + in_registers);
      if (span > c.sm_count || ceil_div(nvec, span) * 16 <= in_registers) continue;
      const int64_t rounds = ceil_div(std::max<int64_t>(c.rows, 1), per_sm * c.sm_count / span);
      if (best && rounds >= best_rounds) continue;
      RowPlan p;
      p.form = RowPlan::kGrid;
      p.vec = vec;
      p.tpr = kGridThreads;
      p.cluster = int(span);
      p.held = held;
      p.slice_bytes = int(ceil_div(nvec, span) * 16 - in_registers);
      p.pieces = 2;  // the first half refills with the span's next row while the second is written
      best = p;
      best_rounds = rounds;
    }
    if (best) return best;
  }
  return std::nullopt;
}

// The 16-byte vectors a thread keeps in registers, before its slice, so that `ctas` CTAs
// (those of the rows' clusters, or kSweepCtas an SM) fit the SMs at once: 0 when the
// slices fit, or when more than `cap` vectors would be needed. Rows of a cluster each
// whose slices make more than one wave though their clusters would fit at once with
// smaller slices (fp32 vocabulary rows: [64, 128256] is 33 MB, more than the H200's
// shared memory) shrink to one wave: on the H200, Softmax [64, 128256] fp32 26.3 -> 24.1
// µs (0.68 -> 0.745 of copy), LogSoftmax [64, 152064] fp32 29.5 -> 27.4 µs (0.70 ->
// 0.756) (docs/perf/cuda-kernels-h200.md, seventeenth round). Sweeping clusters of 64 KB
// slices go from three CTAs an SM to four: LogSoftmax [2048, 128256] 0.85 -> 0.88-0.895
// of copy, GroupNorm [8, 512, 128, 128] 0.85 -> 0.88 (twenty-eighth round).
int held_vectors(int64_t slice, int64_t ctas, int cap, const RowContext& c) {
  const int64_t fits = one_wave_slice(ctas, c.sm_count);
  if (fits == 0 || slice <= fits) return 0;
  const int64_t held = ceil_div(slice - fits, int64_t(kClusterThreads) * 16);
  return held <= cap ? int(held) : 0;
}

// The row in the shared memory of a cluster, or the loop form when it does not fit.
RowPlan smem_plan(int64_t nvec, int vec, const RowContext& c) {
  RowPlan p;
  p.form = RowPlan::kSmem;
  p.vec = vec;
  p.tpr = kClusterThreads;  // 512 measured 15-20% slower on the H200
  p.cluster = cluster_for(nvec, kSliceTarget);
  while (p.cluster < kMaxCluster && c.rows * p.cluster < 2 * int64_t(c.sm_count)) p.cluster *= 2;  // few rows
  const int64_t room = c.smem_budget - kStaticSmemReserve;
  const int64_t slice = ceil_div(nvec, p.cluster) * 16;
  if (slice > room) {
    if (!c.grid_forms) return loop_plan(nvec, vec, c);
    // The grid form reads a row from DRAM once, the queue form a piece twice, the second
    // time from L2 if it is still there: on an H100 the queue read GroupNorm VAE's 8 MB
    // fp32 groups 1.9 times and the grid form took it from 0.70 to 0.75 of copy
    // (docs/perf/session43.md). Its 4 MB 16-bit groups the queue read 1.36 times, and the
    // grid form passed it there only holding vectors and staggering its spans (0.80 ->
    // 0.835; 0.755 in spans of shared memory alone, started together; session45.md).
    if (nvec * 16 >= kGridMinRowBytes)
      if (auto grid = grid_plan(nvec, vec, c)) return *grid;
    return queue_fits(nvec, c.rows) ? queue_plan(vec) : loop_plan(nvec, vec, c);
  }
  // Waves of clusters: the clusters the GPU holds sweep the rows instead, each CTA
  // refilling its slice as soon as it has written a row, with no cluster launched in
  // between. On the H200, LogSoftmax [2048, 128256] went from 0.79 to 0.835 of copy
  // (fp32) and from 0.75-0.79 to 0.83-0.86 (16-bit: clusters of 4 with 64 KB slices,
  // against a sweep of clusters of 8 through two 32 KB slices a CTA), GroupNorm [8,
  // 512, 128, 128] from 0.757 to 0.78 (docs/perf/cuda-kernels-h200.md, sixteenth round).
  p.sweep = c.rows * p.cluster > 4 * int64_t(c.sm_count);
  // A sweeping CTA refills the first half of its slice with its next row while it
  // writes the second half of this one (SlicedRows::release): on the H200 LogSoftmax
  // [2048, 128256] fp32 0.84 -> 0.85 of copy, bf16 0.81 -> 0.84, GroupNorm [8, 512, 128,
  // 128] 0.76-0.77 -> 0.79-0.80. A cluster per row has nothing to refill, and there the
  // second piece cost more than its overlap with the first gave: [64, 128256] bf16
  // 15.1 -> 15.9 µs (docs/perf/cuda-kernels-h200.md, seventeenth round).
  p.pieces = p.sweep ? 2 : 1;
  // A cluster a row: all rows at once, in one wave, registers holding part of each slice
  // where the slices are too large for that, and at least kOneWaveHeld vectors a thread
  // (8 KB a CTA; slices here are 16 KB or more: rows of over 128 KB in clusters of at
  // most 8) where they are not: those load beside the bulk copy and each pass reads them
  // from registers. Three A/Bs on H100s: GroupNorm unet [2, 320, 128, 128] 22.7 -> 21.9
  // µs (1.033-1.040, 0.96 -> 0.99-1.0 of copy), Softmax [64, 128256] fp16 1.007-1.021,
  // LogSoftmax [64, 152064] bf16 1.006-1.017, no row of 52 norm and softmax rows slower
  // beyond the noise; 4 a thread gained no more and cost fp32 Softmax [64, 128256] 1.1%
  // (docs/perf/h100-session35.md). Sweeping clusters hold part of each slice in
  // registers where that lets kSweepCtas CTAs share an SM: one CTA's copies overlap more
  // of the others' passes, and more clusters share out the rows. Holding more than that
  // gave them nothing (3 or 5 a thread: LogSoftmax [2048, 128256] 0.995-0.999).
  p.held = p.sweep ? held_vectors(slice, kSweepCtas * int64_t(c.sm_count), c.max_held.sweep, c)
                   : std::max(held_vectors(slice, c.rows * p.cluster, c.max_held.one_row, c),
                              std::min(kOneWaveHeld, c.max_held.one_row));
  p.slice_bytes = int(slice - int64_t(p.held) * p.tpr * 16);
  return p;
}

}  // namespace

std::string RowPlan::kernel(const char* family) const {
  static const char* const kSuffix[] = {"_reg", "_smem", "_loop", "_queue", "_grid"};  // by Form
  return std::string(family) + kSuffix[form];
}

std::string RowPlan::template_args() const {
  switch (form) {
    case kReg:
      return std::to_string(vec) + ", " + std::to_string(items) + ", " + std::to_string(tpr) + ", " +
             std::to_string(rpc) + ", " + std::to_string(cluster);
    case kSmem:
      return std::to_string(tpr) + ", " + std::to_string(cluster) + ", " + std::to_string(pieces) + ", " +
             std::to_string(held);
    case kLoop: return std::to_string(vec) + ", " + std::to_string(tpr) + ", " + std::to_string(cluster);
    case kQueue: return std::to_string(vec) + ", " + std::to_string(tpr);
    case kGrid: return std::to_string(tpr) + ", " + std::to_string(pieces) + ", " + std::to_string(held);
  }
  return "";
}

std::string RowPlan::describe() const {
  // The slice size follows from the row length, which identities name separately.
  return kernel("").substr(1) + " v" + std::to_string(vec) + " i" + std::to_string(items) + " t" +
         std::to_string(tpr) + " r" + std::to_string(rpc) + " c" + std::to_string(cluster) +
         (sweep ? " sweep" : "") + (pieces > 1 ? " p" + std::to_string(pieces) : "") +
         (held > 0 ? " h" + std::to_string(held) : "");
}

LaunchShape RowPlan::shape(int64_t rows) const {
  LaunchShape s;
  if (form == kQueue) {  // persistent: the CTAs the GPU holds at once
    s.grid[0] = unsigned(resident > 0 ? resident : 1);
    s.block[0] = unsigned(tpr);
    return s;
  }
  if (form == kGrid) {  // a span of CTAs a row, as many spans as the GPU holds at once, each sweeping rows
    s.grid[0] = unsigned(std::min<int64_t>(rows, resident > 0 ? resident : 1) * cluster);
    s.block[0] = unsigned(tpr);
    s.smem = unsigned(slice_bytes);
    s.cooperative = true;
    return s;
  }
  int64_t groups = ceil_div(rows, rpc);
  if (sweep && resident > 0 && groups > resident) groups = resident;
  s.grid[0] = unsigned(groups * cluster);
  s.block[0] = unsigned(tpr * rpc);
  s.cluster = unsigned(cluster);
  s.smem = unsigned(slice_bytes);
  return s;
}

bool RowPlan::one_wave(int64_t rows, int sm_count) const {
  return form == kSmem && slice_bytes <= one_wave_slice(rows * cluster, sm_count);
}

void RowPlan::fit_to(CUfunction f, int sm_count) {
  if (form == kSmem && sweep) resident = resident_clusters(f, shape(1));
  if (form == kQueue) resident = occupancy(f, tpr) * sm_count;
  if (form == kGrid) resident = occupancy(f, tpr, size_t(slice_bytes)) * sm_count / cluster;
}

int RowPlan::stagger_ns(int64_t rows, int64_t row_bytes, int64_t dram_bytes_per_s) const {
  if (form != kGrid || dram_bytes_per_s <= 0) return 0;
  const int64_t spans = std::min<int64_t>(rows, std::max(resident, 1));
  constexpr double kMaxNs = 1e6;  // against a rate no real device has: a round is microseconds
  return int(std::min(double(spans) * double(row_bytes) * 1e9 / double(dram_bytes_per_s), kMaxNs));
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
  } else if (c.arch >= 90 && c.smem_budget > 0) {
    return smem_plan(nvec, vec, c);
  } else {
    return loop_plan(nvec, vec, c);
  }
  p.items = int(pow2_ceil(ceil_div(nvec, int64_t(p.tpr) * p.cluster)));
  return p;
}

RowPlan fallback_rows(int64_t cols, const RowContext& c) { return loop_plan(cols, 1, c); }

namespace {

// Every distinct plan for row lengths of 1 .. 2^20 vectors and of 2^22 (64 MB, past the
// GPU's shared memory: the queue form), of 1, 64, 128 or 2^20 rows. A plan is told apart
// by what describe() prints, without building the string for each of the 2^22 lengths
// (that took minutes in the sanitizer build); neighbouring lengths mostly share a plan,
// so only a change of plan is looked up.
std::vector<RowPlan> enumerate_row_plans(int vec, int arch, bool fallback, bool smem, bool grid_forms, HeldCaps max_held) {
  typedef std::tuple<int, int, int, int, int, int, bool, int, int> Key;
  const auto key = [](const RowPlan& p) {
    return Key{p.form, p.vec, p.items, p.tpr, p.rpc, p.cluster, p.sweep, p.pieces, p.held};
  };
  std::vector<RowPlan> out;
  std::set<Key> seen;
  // 64 and 128 rows: clusters of 8 and of 4 a row that hold vectors in registers.
  for (int64_t rows : {int64_t(1), int64_t(64), int64_t(128), int64_t(1) << 20}) {
    const RowContext c{arch, rows, 132, smem ? kH100SmemBudget : 0, grid_forms, max_held};
    Key previous{-1, 0, 0, 0, 0, 0, false, 0, 0};
    const auto consider = [&](int64_t nvec) {
      const RowPlan p = fallback ? fallback_rows(nvec, c) : plan_rows(nvec * vec, vec, c);
      const Key k = key(p);
      if (k == previous) return;
      previous = k;
      if (seen.insert(k).second) out.push_back(p);
    };
    for (int64_t nvec = 1; nvec <= (int64_t(1) << 20); ++nvec) consider(nvec);
    consider(int64_t(1) << 22);
  }
  return out;
}

}  // namespace

std::vector<RowPlan> all_row_plans(int vec, int arch, bool fallback, bool smem, bool grid_forms, HeldCaps max_held) {
  // The program lists ask again for each op and dtype: each distinct question is
  // enumerated once.
  static std::mutex mutex;
  static std::map<std::tuple<int, int, bool, bool, bool, HeldCaps>, std::vector<RowPlan>> answers;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto question = std::make_tuple(vec, arch, fallback, smem, grid_forms, max_held);
  auto it = answers.find(question);
  if (it == answers.end())
    it = answers.emplace(question, enumerate_row_plans(vec, arch, fallback, smem, grid_forms, max_held)).first;
  return it->second;
}

}  // namespace tileops::cuda
