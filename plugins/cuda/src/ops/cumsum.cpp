// The kernel type of CumsumFwdOp (kernels/cumsum.cuh): scans along rows (inner == 1),
// rows longer than a tile on chip when a cluster a row makes one wave, else in two passes
// when x fits in L2 and chained otherwise; a CTA per strip of columns when the strips
// fill the GPU, chained scans down columns otherwise.
#include "common.hpp"
#include "cumsum.hpp"
#include "ops.hpp"
#include "rows.hpp"

#include "../stream_buffer.hpp"

namespace tileops::cuda {
namespace {

constexpr Elem kCumsumTypes[] = {Elem::f32, Elem::f16, Elem::bf16, Elem::i64};

// cumsum_smem: the most vectors a thread holds in registers (RowPlan::held) within the
// 64 registers of four CTAs an SM (ptxas, sm_90a: 61-64 registers holding 2-4 vectors;
// int64 holding 5 spills 12 bytes). It never sweeps rows.
constexpr HeldCaps kCumsumMaxHeld{4, 0};
// The row layouts cumsum_smem is built for: a cluster a row in shared memory, no sweep.
bool smem_layout(const RowPlan& r) { return r.form == RowPlan::kSmem && !r.sweep; }

// cumsum_row: elements a thread scans per tile (in registers: 32 fp32, or 16 int64 as
// 32 words), and the most threads a tile has. A longer tile is a shorter chain of
// look-backs: int64 [8192, 8192] rows in one tile of 512 threads ran at 0.68 of copy, in
// two of 256 at 0.55. Other scans stay at 256: [64, 128256] fp32 ran no faster in tiles
// of 512 (0.61 against 0.62), and 1024 threads leave too few registers (spills).
int row_elements(Elem e) { return e == Elem::i64 ? 16 : 32; }
// The two-pass form (no chain to shorten) takes half-size tiles of 4-byte and 8-byte
// elements: fewer registers, more CTAs an SM, so that one CTA's loads overlap another's
// scan and stores (top-p fp32: 0.64 -> 0.657 of copy). 16-bit tiles stay whole: halved,
// they are 8 KB, and a [1, 16M] bf16 row of 4,096 of them ran at 0.55 against 0.60.
int two_pass_elements(Elem e) { return size_of(e) == 2 ? row_elements(e) : row_elements(e) / 2; }
int row_max_threads(Elem e, int v) { return e == Elem::i64 && v > 1 ? 512 : 256; }
// cumsum_row_staged (sm_90): rows of one tile each, staged through shared memory this
// many rows ahead, when there are at least kStagedRowsPerSm rows an SM to sweep. int64
// [8192, 8192] ran at 0.68 of copy a CTA a row, 0.88 staged two rows ahead, 0.90 three.
constexpr int kRowStages = 3;
constexpr int64_t kStagedRowsPerSm = 4;
// cumsum_col: a warp across (8 bytes a thread: 256-byte rows per warp, and registers for
// U rows), TY warps down, U rows a thread.
constexpr int kColTx = 32, kColTy = 8, kColRows = 8;
int col_vec(Elem e) { return int(8 / size_of(e)); }
constexpr int kStripThreads = 256;  // cumsum_strip (cumsum_strips below)
int strip_tx(Elem e, int v, int bytes) { return int(clamp(int64_t(bytes) / (v * int64_t(size_of(e))), 1, 32)); }
int64_t strip_count(int64_t outer, int64_t inner, Elem e, int v, int bytes) {
  return outer * ceil_div(inner, int64_t(strip_tx(e, v, bytes)) * v);
}
// Bytes of the status of `tiles` tiles of `lanes` accumulators (TileStatus in cumsum.cuh).
size_t scan_status_bytes(int64_t tiles, int lanes, Elem e) {
  return ((size_t(tiles) * 4 + 15) & ~size_t(15)) + 2 * size_t(tiles) * size_t(lanes) * acc_bytes(e);
}

struct CumsumPlan {
  Elem elem = Elem::f32;
  int arch = 0;
  int64_t dim = 0;
  bool rows = true;  // inner == 1
  CumsumStrips strip{0, 0};  // columns: cumsum_strip when strip.bytes, else the chained cumsum_col
  int vec = 1;       // elements per access of the primary kernel
  int tpr = 32;      // cumsum_row (vector scans; element scans take at most 256)
  bool staged = false;  // rows: cumsum_row_staged at the full vector (each row one tile)
  // Rows longer than the vector kernel's tile: the programs hold the look-back's
  // part-major kernels and the two-pass form's, which rows of one tile never launch.
  bool long_rows = false;
  // Long rows held on chip by cumsum_smem in this layout (a cluster a row, one wave; the
  // look-back for misaligned pointers).
  std::optional<RowPlan> on_chip;

  bool strips() const { return strip.bytes > 0; }
  bool rows_on_chip() const { return on_chip.has_value(); }
  int row_threads(int v) const { return std::min(tpr, row_max_threads(elem, v)); }
  // Tile order: the look-back's tiles start part-major (cumsum.cuh), rows of one tile
  // row-major, which at 16 bits takes 64 registers where part-major takes 67 (three
  // CTAs an SM instead of four: mem-8192x8192 16-bit rows 0.975-0.991 of row-major).
  std::string row_kernel(int v) const {
    const std::string t = cuda_type(elem), items = std::to_string(row_elements(elem) / v);
    if (staged && v == vec)
      return instance("cumsum_row_staged", {t, std::to_string(v), items, std::to_string(row_threads(v)),
                                            std::to_string(kRowStages)});
    const auto order = long_rows ? tileops_cuda::kPartMajor : tileops_cuda::kRowMajor;
    return instance("cumsum_row", {t, std::to_string(v), items, std::to_string(row_threads(v)),
                                   std::to_string(int(order))});
  }
  // The two-pass form's kernels (at the full vector): the tile totals, then the scan.
  std::vector<std::string> two_pass_kernels() const {
    const std::string t = cuda_type(elem), v = std::to_string(vec), threads = std::to_string(row_threads(vec));
    const std::string items = std::to_string(two_pass_elements(elem) / vec);
    return {instance("cumsum_tile_totals", {t, v, items, threads}),
            instance("cumsum_row", {t, v, items, threads, std::to_string(int(tileops_cuda::kRowMajor))})};
  }
  std::string smem_kernel() const {
    return instance("cumsum_smem", {cuda_type(elem), std::to_string(on_chip->tpr), std::to_string(on_chip->cluster),
                                    std::to_string(on_chip->held)});
  }
  std::string col_kernel(int v) const {
    return instance("cumsum_col", {cuda_type(elem), std::to_string(v), std::to_string(kColRows),
                                   std::to_string(kColTx), std::to_string(kColTy)});
  }
  std::string strip_kernel(int v) const {
    const int tx = strip_tx(elem, v, strip.bytes);
    return instance("cumsum_strip", {cuda_type(elem), std::to_string(v), std::to_string(strip.rows),
                                     std::to_string(tx), std::to_string(kStripThreads / tx)});
  }
  // The primary kernel (for long rows, with the two-pass form's kernels), its
  // element-by-element twin, and zero_words when the tiles chain.
  std::vector<ProgramSpec> programs() const {
    if (strips()) return {{"cumsum", {strip_kernel(vec)}}, {"cumsum", {strip_kernel(1)}}};
    if (rows_on_chip()) return {{"cumsum", {smem_kernel()}}, {"cumsum", {row_kernel(1)}}, zero_words_program()};
    if (long_rows) {
      const auto two_pass = two_pass_kernels();
      return {{"cumsum", {row_kernel(vec), two_pass[0], two_pass[1]}},
              {"cumsum", {row_kernel(1)}},
              zero_words_program()};
    }
    auto kernel = [&](int v) { return rows ? row_kernel(v) : col_kernel(v); };
    return {{"cumsum", {kernel(vec)}}, {"cumsum", {kernel(1)}}, zero_words_program()};
  }
  // The slice size of rows on chip follows from their length, which the identity names.
  std::string identity(const Call& call) const {
    const std::string form = rows_on_chip() ? "|rows on chip len " + std::to_string(axis_view(call.shape(0), dim).size) +
                                                  " " + on_chip->describe()
                             : rows ? "|rows t" + std::to_string(tpr) + (staged ? " staged" : long_rows ? " long" : "")
                             : strips() ? "|strips b" + std::to_string(strip.bytes) + " r" + std::to_string(strip.rows)
                                        : std::string("|columns");
    return std::string(call.op()) + "|sm" + std::to_string(arch) + "|" + name_of(elem) + "|dim " + std::to_string(dim) +
           form + " v" + std::to_string(vec);
  }
};

CumsumPlan plan(const Call& call) {
  CumsumPlan p;
  p.arch = call.arch();
  call.require_arch(80);
  p.elem = call.dtype(0, "x", kCumsumTypes);
  const auto shape = call.shape(0);
  p.dim = normalize_axis(call, "dim", call.params().get_int("dim"), int64_t(shape.size()));
  const Axis a = axis_view(shape, p.dim);
  p.rows = a.inner == 1;
  const int maxv = max_vec(p.elem);
  if (p.rows) {
    p.vec = a.size % maxv == 0 ? maxv : 1;
    // Enough threads for the row to be one tile, up to row_max_threads.
    p.tpr = int(clamp(pow2_ceil(ceil_div(a.size, row_elements(p.elem))), 32, row_max_threads(p.elem, maxv)));
    p.staged = cumsum_rows_staged(p.elem, p.arch, p.vec, a.size, a.outer, call.sm_count());
    p.long_rows = a.size > int64_t(p.row_threads(p.vec)) * row_elements(p.elem);
    p.on_chip = cumsum_rows_on_chip(p.elem, p.arch, p.vec, a.size, a.outer, call.sm_count(), call.smem_budget());
  } else if (p.strip = cumsum_strips(p.elem, a.outer, a.inner, call.sm_count()); p.strips()) {
    p.vec = a.inner % maxv == 0 ? maxv : 1;
  } else {
    p.vec = a.inner % col_vec(p.elem) == 0 ? col_vec(p.elem) : 1;
  }
  return p;
}

class CumsumKernel final : public CudaKernel {
 public:
  CumsumKernel(const DeviceInfo& device, const CumsumPlan& plan, const std::vector<const Module*>& modules)
      : CudaKernel(device, "{\"kernel\": \"" + plan.programs()[0].kernels[0] + "\"}"),
        plan_(plan),
        primary_(modules[0]->functions[0]),
        zero_(plan.strips() ? nullptr : modules[2]->functions[0]),
        totals_(two_pass_loaded(plan) ? modules[0]->functions[1] : nullptr),
        two_pass_scan_(two_pass_loaded(plan) ? modules[0]->functions[2] : nullptr),
        fallback_(modules[1]->functions[0]) {
    if (plan_.rows_on_chip()) allow_max_smem(primary_, device);
    if (plan_.staged) {
      allow_max_smem(primary_, device);
      const int threads = plan_.row_threads(plan_.vec);
      staged_ctas_ = occupancy(primary_, threads, staged_smem(threads * row_elements(plan_.elem))) * device.sm_count;
    }
  }

  void launch(const sdk::LaunchArgs& a) override {
    prepare();
    const tileops_tensor& x = *a.inputs[0];
    const Axis ax = axis_view(shape_of(x), plan_.dim);
    if (ax.outer * ax.size * ax.inner == 0) return;
    const size_t align = size_t(plan_.vec) * size_of(plan_.elem);
    const bool ok = aligned(x.data, align) && aligned(a.outputs[0]->data, align);
    const int v = ok ? plan_.vec : 1;
    tileops_cuda::ScanParams p{};
    p.x = x.data;
    p.y = a.outputs[0]->data;
    p.outer = ax.outer;
    p.len = ax.size;
    p.inner = ax.inner;
    LaunchShape s;
    int lanes = 1;          // accumulators per tile in the status
    bool two_pass = false;  // rows longer than a tile, x within L2 (else chained)
    if (plan_.rows_on_chip() && ok) {
      cuda::launch(primary_, plan_.on_chip->shape(ax.outer), a.stream, &p);
      return;
    }
    if (plan_.staged && ok) {  // a persistent grid sweeping the rows
      s.block[0] = unsigned(plan_.row_threads(v));
      s.smem = unsigned(staged_smem(ax.size));
      s.grid[0] = unsigned(std::min(ax.outer, staged_ctas_));
      cuda::launch(primary_, s, a.stream, &p);
      return;
    }
    if (plan_.rows) {
      const int64_t threads = plan_.row_threads(v);
      // totals_: the plan's rows are longer than the vector kernel's tile.
      two_pass = totals_ && ok && cumsum_rows_two_pass(plan_.elem, ax.outer * ax.size, device_.l2_bytes);
      p.chain = ceil_div(ax.size, threads * (two_pass ? two_pass_elements(plan_.elem) : row_elements(plan_.elem)));
      p.col_blocks = 1;
      s.block[0] = unsigned(threads);
    } else if (plan_.strips()) {
      p.chain = 1;
      p.col_blocks = ceil_div(ax.inner, int64_t(strip_tx(plan_.elem, v, plan_.strip.bytes)) * v);
      s.block[0] = kStripThreads;
    } else {
      lanes = kColTx * v;
      p.chain = ceil_div(ax.size, int64_t(kColTy) * kColRows);
      p.col_blocks = ceil_div(ax.inner, lanes);
      s.block[0] = kColTx;
      s.block[1] = kColTy;
    }
    p.tiles = ax.outer * p.chain * p.col_blocks;
    s.grid[0] = unsigned(p.tiles);
    if (two_pass) {
      StreamBuffer totals(size_t(p.tiles) * acc_bytes(plan_.elem), a.stream);
      p.totals = totals.get();
      cuda::launch(totals_, s, a.stream, &p);
      s.dependent = true;
      cuda::launch(two_pass_scan_, s, a.stream, &p);  // the same tiles
      return;
    }
    const CUfunction scan = ok ? primary_ : fallback_;
    if (p.chain == 1) {
      cuda::launch(scan, s, a.stream, &p);
      return;
    }
    StreamBuffer status(scan_status_bytes(p.tiles, lanes, plan_.elem), a.stream);
    p.status = status.get();
    zero_words(zero_, p.status, p.tiles, a.stream);  // the flags
    s.dependent = true;
    cuda::launch(scan, s, a.stream, &p);
  }

 private:
  static bool two_pass_loaded(const CumsumPlan& p) { return p.long_rows && !p.rows_on_chip(); }
  // Dynamic shared memory of cumsum_row_staged for rows of `len` elements.
  size_t staged_smem(int64_t len) const { return size_t(kRowStages) * size_t(len) * size_of(plan_.elem); }

  CumsumPlan plan_;
  CUfunction primary_, zero_, totals_, two_pass_scan_, fallback_;
  int64_t staged_ctas_ = 0;  // cumsum_row_staged: the CTAs the GPU holds at once
};

std::string cumsum_identity(const Call& call) { return plan(call).identity(call); }

std::vector<ProgramSpec> cumsum_programs(const Call& call) { return plan(call).programs(); }

std::unique_ptr<sdk::Kernel> build_cumsum(const Call& call) {
  const CumsumPlan p = plan(call);
  const DeviceInfo& device = device_info(call.device());
  return std::make_unique<CumsumKernel>(device, p, load_programs(device, p.programs()));
}

const KernelTypeDef kCumsum{"CumsumFwdOp", "cuda_cumsum", cumsum_identity, cumsum_programs, build_cumsum};

}  // namespace

bool cumsum_rows_staged(Elem e, int arch, int vec, int64_t len, int64_t rows, int sm_count) {
  // Only int64: its tiles fit one an SM. fp32 and 16-bit tiles share an SM three or four
  // ways already, and staged ran slower ([8192, 8192]: 0.83 against 0.97).
  return arch >= 90 && e == Elem::i64 && vec == max_vec(e) &&
         len <= int64_t(row_max_threads(e, vec)) * row_elements(e) && rows >= kStagedRowsPerSm * sm_count;
}

CumsumStrips cumsum_strips(Elem e, int64_t outer, int64_t inner, int sm_count) {
  // A strip walks down its columns a chunk of rows at a time, the next chunk's loads in
  // flight while this one is scanned. Wider strips keep DRAM pages open longer
  // ([8192, 8192] fp32: 0.92 of copy in 128-byte strips, 0.84 in 64): 128 bytes while
  // that gives 1.5 CTAs an SM, 4 rows a thread (8 take 172 registers at 16 bits: one CTA
  // an SM instead of two, 5-11% slower). When 128-byte strips make one wave of a CTA an
  // SM (16-bit [8192, 8192]: 128), registers no longer limit the CTAs an SM, so each
  // keeps 12 rows a thread in flight (229-241 registers at 16 bits, no spills; 16 rows
  // spill). bf16 / fp16 on the H200: 0.91 / 0.90 of copy; 4 rows 0.73, 6 0.80, 8 0.86;
  // 64-byte strips 0.87; 128 CTAs of 512 threads, 4 rows (an SM's registers each), 0.60.
  const int v = max_vec(e);
  const int64_t wide = strip_count(outer, inner, e, v, 128), sms = sm_count;
  if (2 * wide >= 3 * sms) return {128, 4};
  if (wide <= sms && 8 * wide >= 7 * sms) return {128, 12};
  if (strip_count(outer, inner, e, v, 64) >= sms) return {64, 4};
  return {0, 0};
}

std::optional<RowPlan> cumsum_rows_on_chip(Elem e, int arch, int vec, int64_t len, int64_t rows, int sm_count,
                                           int64_t smem_budget) {
  if (vec != max_vec(e)) return std::nullopt;
  const RowPlan r = plan_rows(len, vec, RowContext{arch, rows, sm_count, smem_budget, false, kCumsumMaxHeld});
  // Every SM takes a CTA, so that the rows are read at the whole GPU's rate: fewer rows
  // (or rows in waves) keep the two-pass form, whose tiles spread over every SM.
  if (!smem_layout(r) || rows * r.cluster < sm_count || !r.one_wave(rows, sm_count))
    return std::nullopt;
  return r;
}

bool cumsum_rows_two_pass(Elem e, int64_t elements, int64_t l2_bytes) {
  // x read twice: the second pass must find it in L2, beside what the first pass leaves
  // (totals) and the second writes (streamed through L2 to DRAM).
  return elements * int64_t(size_of(e)) * 4 <= l2_bytes * 3;
}

void list_cumsum_types(std::vector<const KernelTypeDef*>& out) { out.push_back(&kCumsum); }

void list_cumsum_programs(std::vector<ProgramSpec>& out) {
  for (Elem e : kCumsumTypes) {
    CumsumPlan p;
    p.elem = e;
    for (int tpr = 32; tpr <= row_max_threads(e, max_vec(e)); tpr *= 2) {
      p.tpr = tpr;
      p.vec = max_vec(e);
      for (bool staged : {false, true}) {
        if (staged && e != Elem::i64) continue;  // only int64 rows are staged
        p.staged = staged;
        for (auto& spec : p.programs()) out.push_back(std::move(spec));
      }
    }
    // Rows longer than a tile (at the most threads), in whole vectors or element by element.
    p.staged = false;
    p.long_rows = true;
    p.tpr = row_max_threads(e, max_vec(e));
    for (int v : {max_vec(e), 1}) {
      p.vec = v;
      for (auto& spec : p.programs()) out.push_back(std::move(spec));
    }
    p.vec = max_vec(e);
    for (const RowPlan& r : all_row_plans(p.vec, 90, false, true, false, kCumsumMaxHeld)) {
      if (!smem_layout(r)) continue;
      p.on_chip = r;
      out.push_back({"cumsum", {p.smem_kernel()}});
    }
    p.on_chip.reset();
    p.long_rows = false;
    p.rows = false;
    p.vec = col_vec(e);
    for (auto& spec : p.programs()) out.push_back(std::move(spec));
    p.vec = max_vec(e);
    for (CumsumStrips strip : {CumsumStrips{64, 4}, CumsumStrips{128, 4}, CumsumStrips{128, 12}}) {
      p.strip = strip;
      for (auto& spec : p.programs()) out.push_back(std::move(spec));
    }
  }
}

}  // namespace tileops::cuda
