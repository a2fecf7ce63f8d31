// The kernel type of CumsumFwdOp (kernels/cumsum.cuh; the split column form also runs
// reduce_col of kernels/reduce.cuh for the splits' totals).
#include "common.hpp"
#include "ops.hpp"
#include "reduce_layout.hpp"

#include "../stream_buffer.hpp"

#include <algorithm>

namespace tileops::cuda {
namespace {

constexpr Elem kCumsumTypes[] = {Elem::f32, Elem::f16, Elem::bf16, Elem::i64};
constexpr int kColThreads = 64;  // cumsum_col's CTA
constexpr int kTotalsThreads = 256;  // reduce_row's CTA for the totals of split rows

// cumsum_row: contiguous elements a thread scans per chunk (32 fp32 or 16 int64 registers).
int per_thread(Elem e) { return e == Elem::i64 ? 16 : 32; }

struct Axis {
  int64_t outer = 1, len = 1, inner = 1;
};
Axis split_at(std::span<const int64_t> shape, int64_t dim) {
  Axis a;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (int64_t(i) < dim) a.outer *= shape[i];
    if (int64_t(i) == dim) a.len = shape[i];
    if (int64_t(i) > dim) a.inner *= shape[i];
  }
  return a;
}

// Enough threads for a row of up to 8192 elements to be one chunk.
int row_threads(int64_t len, Elem e) { return int(clamp(pow2_ceil(ceil_div(len, per_thread(e))), 32, 512)); }

// Splits of each row: only when the rows alone leave the GPU idle; each split is at
// least two chunks.
int row_splits(const Axis& a, int tpr, Elem e, int sm_count) {
  const int64_t enough = 2 * int64_t(sm_count);
  if (a.outer >= enough) return 1;
  const int64_t most = ceil_div(a.len, 2 * int64_t(tpr) * per_thread(e));
  return int(clamp(std::min(ceil_div(2 * enough, a.outer), most), 1, 65535));
}

// Splits of len for the column form: only when the columns alone leave the GPU idle.
int col_splits(const Axis& a, int vec, int sm_count) {
  const int64_t ctas = a.outer * ceil_div(a.inner / vec, kColThreads);
  const int64_t enough = 8 * int64_t(sm_count);
  if (ctas >= enough) return 1;
  return int(clamp(ceil_div(enough, ctas), 1, clamp(ceil_div(a.len, 64), 1, 65535)));
}

struct CumsumPlan {
  Elem elem = Elem::f32;
  int arch = 0;
  int64_t dim = 0;
  bool rows = true;  // inner == 1
  int vec = 1;
  int tpr = 32;  // cumsum_row
  bool split = false;

  ProgramSpec row_program(int v) const {
    return {"cumsum", {instance("cumsum_row", {cuda_type(elem), std::to_string(v), std::to_string(per_thread(elem) / v),
                                               std::to_string(tpr)})}};
  }
  ProgramSpec row_totals_program(int v) const {  // reduce_row<T, kSum, v, ..., PARTIAL>
    return {"reduce", {instance("reduce_row", {cuda_type(elem), "0", std::to_string(v), std::to_string(kTotalsThreads),
                                               "1", "1"})}};
  }
  ProgramSpec col_program(int v) const {
    return {"cumsum", {instance("cumsum_col", {cuda_type(elem), std::to_string(v), std::to_string(kColThreads)})}};
  }
  ProgramSpec totals_program(int v) const {  // reduce_col<T, kSum, v, ..., PARTIAL>
    return {"reduce", {instance("reduce_col", {cuda_type(elem), "0", std::to_string(v), std::to_string(kReduceTx),
                                               std::to_string(kReduceTy), "1"})}};
  }
  std::vector<ProgramSpec> programs() const {
    std::vector<ProgramSpec> out;
    if (rows)
      out = {row_program(vec), row_program(1)};
    else
      out = {col_program(vec), col_program(1)};
    if (split) {
      out.push_back(rows ? row_totals_program(vec) : totals_program(vec));
      out.push_back(rows ? row_totals_program(1) : totals_program(1));
    }
    return out;
  }
  std::string identity(const Call& call) const {
    return std::string(call.op()) + "|sm" + std::to_string(arch) + "|" + name_of(elem) + "|dim " + std::to_string(dim) +
           (rows ? "|rows t" + std::to_string(tpr) : std::string("|columns")) + (split ? " split" : "") + " v" +
           std::to_string(vec);
  }
};

CumsumPlan plan(const Call& call) {
  CumsumPlan p;
  p.arch = call.arch();
  if (p.arch < 80) call.refuse("needs compute capability 8.0 or newer, the device has arch " + std::to_string(p.arch));
  p.elem = call.dtype(0, "x", kCumsumTypes);
  const auto shape = call.shape(0);
  p.dim = normalize_axis(call, "dim", call.params().get_int("dim"), int64_t(shape.size()));
  const Axis a = split_at(shape, p.dim);
  const int maxv = max_vec(p.elem);
  p.rows = a.inner == 1;
  if (p.rows) {
    p.vec = a.len % maxv == 0 ? maxv : 1;
    p.tpr = row_threads(a.len, p.elem);
    p.split = row_splits(a, p.tpr, p.elem, call.sm_count()) > 1;
  } else {
    p.vec = a.inner % maxv == 0 ? maxv : 1;
    p.split = col_splits(a, p.vec, call.sm_count()) > 1;
  }
  return p;
}

class CumsumKernel final : public CudaKernel {
 public:
  CumsumKernel(const DeviceInfo& device, const CumsumPlan& plan, const std::vector<const Module*>& modules)
      : CudaKernel(device, "{\"kernel\": \"" + plan.programs()[0].kernels[0] + "\"}"), plan_(plan) {
    for (const Module* m : modules) functions_.push_back(m->functions[0]);
  }

  void launch(const sdk::LaunchArgs& a) override {
    prepare();
    const tileops_tensor& x = *a.inputs[0];
    const Axis ax = split_at(shape_of(x), plan_.dim);
    if (ax.outer * ax.len * ax.inner == 0) return;
    const size_t align = size_t(plan_.vec) * size_of(plan_.elem);
    const bool ok = aligned(x.data, align) && aligned(a.outputs[0]->data, align);
    const int v = ok ? plan_.vec : 1;
    tileops_cuda::ScanParams p{};
    p.x = x.data;
    p.y = a.outputs[0]->data;
    p.outer = ax.outer;
    p.len = ax.len;
    p.inner = ax.inner;
    LaunchShape s;
    if (plan_.rows) {
      const int splits = plan_.split ? row_splits(ax, plan_.tpr, plan_.elem, device_.sm_count) : 1;
      p.splits = splits;
      p.chunk = ceil_div(ax.len / v, splits);  // vectors
      s.grid[0] = unsigned(ax.outer);
      s.grid[1] = unsigned(splits);
      s.block[0] = unsigned(plan_.tpr);
      if (splits == 1) {
        cuda::launch(functions_[ok ? 0 : 1], s, a.stream, &p);
        return;
      }
      StreamBuffer totals(size_t(ax.outer) * size_t(splits) * (plan_.elem == Elem::i64 ? 8 : 4), a.stream);
      tileops_cuda::ReduceParams r{};
      r.x = x.data;
      r.partial = totals.get();
      r.outer = ax.outer;
      r.len = ax.len;
      r.inner = 1;
      r.chunk = p.chunk;
      r.splits = splits;
      r.scale = 1.f;
      LaunchShape rs;
      rs.grid[0] = unsigned(ax.outer);
      rs.grid[1] = unsigned(splits);
      rs.block[0] = kTotalsThreads;
      cuda::launch(functions_[ok ? 2 : 3], rs, a.stream, &r);
      p.partial = totals.get();
      cuda::launch(functions_[ok ? 0 : 1], s, a.stream, &p);
      return;
    }
    const int splits = plan_.split ? col_splits(ax, v, device_.sm_count) : 1;
    p.splits = splits;
    p.chunk = ceil_div(ax.len, splits);
    s.grid[0] = unsigned(ax.outer * ceil_div(ax.inner / v, kColThreads));
    s.grid[1] = unsigned(splits);
    s.block[0] = kColThreads;
    if (splits == 1) {
      cuda::launch(functions_[ok ? 0 : 1], s, a.stream, &p);
      return;
    }
    // The totals of each split (reduce_col writes them as [outer * inner][splits]), then
    // the scans, each starting from the sum of the totals before it.
    StreamBuffer totals(size_t(ax.outer * ax.inner) * size_t(splits) * (plan_.elem == Elem::i64 ? 8 : 4), a.stream);
    tileops_cuda::ReduceParams r{};
    r.x = x.data;
    r.partial = totals.get();
    r.outer = ax.outer;
    r.len = ax.len;
    r.inner = ax.inner;
    r.chunk = p.chunk;
    r.splits = splits;
    r.scale = 1.f;
    LaunchShape rs;
    rs.grid[0] = unsigned(ax.outer * ceil_div(ax.inner / v, kReduceTx));
    rs.grid[1] = unsigned(splits);
    rs.block[0] = kReduceTx;
    rs.block[1] = kReduceTy;
    cuda::launch(functions_[ok ? 2 : 3], rs, a.stream, &r);
    p.partial = totals.get();
    cuda::launch(functions_[ok ? 0 : 1], s, a.stream, &p);
  }

 private:
  CumsumPlan plan_;
  std::vector<CUfunction> functions_;  // scan, its fallback, then (split) totals and theirs
};

std::string cumsum_identity(const Call& call) { return plan(call).identity(call); }

std::unique_ptr<sdk::Kernel> build_cumsum(const Call& call) {
  const CumsumPlan p = plan(call);
  const DeviceInfo& device = device_info(call.device());
  return std::make_unique<CumsumKernel>(device, p, load_programs(device, p.programs()));
}

const KernelTypeDef kCumsum{"CumsumFwdOp", "cuda_cumsum", cumsum_identity, build_cumsum};

}  // namespace

void register_cumsum_ops(sdk::Registrar& reg) { register_kernel_type(reg, kCumsum); }

void list_cumsum_programs(std::vector<ProgramSpec>& out) {
  for (Elem e : kCumsumTypes) {
    CumsumPlan p;
    p.elem = e;
    for (int tpr = 32; tpr <= 512; tpr *= 2)
      for (int vec : {max_vec(e), 1}) {
        p.tpr = tpr;
        out.push_back(p.row_program(vec));
      }
    for (int vec : {max_vec(e), 1}) {
      out.push_back(p.col_program(vec));
      out.push_back(p.totals_program(vec));
      out.push_back(p.row_totals_program(vec));
    }
  }
}

}  // namespace tileops::cuda
