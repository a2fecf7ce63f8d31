// The kernel type of CumsumFwdOp (kernels/cumsum.cuh): chained scans along rows
// (inner == 1) or down columns.
#include "common.hpp"
#include "ops.hpp"

#include "../stream_buffer.hpp"

namespace tileops::cuda {
namespace {

constexpr Elem kCumsumTypes[] = {Elem::f32, Elem::f16, Elem::bf16, Elem::i64};

// cumsum_row: elements a thread scans per tile (in registers: 32 fp32, or 16 int64 as
// 32 words), and the most threads a tile has.
int row_elements(Elem e) { return e == Elem::i64 ? 16 : 32; }
constexpr int kRowMaxThreads = 256;
// cumsum_col: a warp across (8 bytes a thread: 256-byte rows per warp, and registers for
// U rows), TY warps down, U rows a thread.
constexpr int kColTx = 32, kColTy = 8, kColRows = 8;
int col_vec(Elem e) { return int(8 / size_of(e)); }
constexpr int kInitThreads = 256;

// Bytes of the status of `tiles` tiles of `lanes` accumulators (TileStatus in cumsum.cuh).
size_t scan_status_bytes(int64_t tiles, int lanes, Elem e) {
  const size_t acc = e == Elem::i64 ? 8 : 4;
  return ((size_t(tiles) * 4 + 15) & ~size_t(15)) + 2 * size_t(tiles) * size_t(lanes) * acc;
}

struct CumsumPlan {
  Elem elem = Elem::f32;
  int arch = 0;
  int64_t dim = 0;
  bool rows = true;  // inner == 1
  int vec = 1;       // elements per access of the primary kernel
  int tpr = 32;      // cumsum_row

  std::string row_kernel(int v) const {
    return instance("cumsum_row", {cuda_type(elem), std::to_string(v), std::to_string(row_elements(elem) / v),
                                   std::to_string(tpr)});
  }
  std::string col_kernel(int v) const {
    return instance("cumsum_col", {cuda_type(elem), std::to_string(v), std::to_string(kColRows),
                                   std::to_string(kColTx), std::to_string(kColTy)});
  }
  // The primary kernel with scan_init (one program), then the element-by-element twin.
  std::vector<ProgramSpec> programs() const {
    auto kernel = [&](int v) { return rows ? row_kernel(v) : col_kernel(v); };
    return {{"cumsum", {kernel(vec), "tileops_cuda::scan_init"}}, {"cumsum", {kernel(1)}}};
  }
  std::string identity(const Call& call) const {
    return std::string(call.op()) + "|sm" + std::to_string(arch) + "|" + name_of(elem) + "|dim " + std::to_string(dim) +
           (rows ? "|rows t" + std::to_string(tpr) : std::string("|columns")) + " v" + std::to_string(vec);
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
  if (p.rows) {
    const int maxv = max_vec(p.elem);
    p.vec = a.size % maxv == 0 ? maxv : 1;
    // Enough threads for the row to be one tile, up to kRowMaxThreads.
    p.tpr = int(clamp(pow2_ceil(ceil_div(a.size, row_elements(p.elem))), 32, kRowMaxThreads));
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
        init_(modules[0]->functions[1]),
        fallback_(modules[1]->functions[0]) {}

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
    int lanes = 1;  // accumulators per tile in the status
    if (plan_.rows) {
      p.chain = ceil_div(ax.size, int64_t(plan_.tpr) * row_elements(plan_.elem));
      p.col_blocks = 1;
      s.block[0] = unsigned(plan_.tpr);
    } else {
      lanes = kColTx * v;
      p.chain = ceil_div(ax.size, int64_t(kColTy) * kColRows);
      p.col_blocks = ceil_div(ax.inner, lanes);
      s.block[0] = kColTx;
      s.block[1] = kColTy;
    }
    p.tiles = ax.outer * p.chain * p.col_blocks;
    s.grid[0] = unsigned(p.tiles);
    const CUfunction scan = ok ? primary_ : fallback_;
    if (p.chain == 1) {
      cuda::launch(scan, s, a.stream, &p);
      return;
    }
    StreamBuffer status(scan_status_bytes(p.tiles, lanes, plan_.elem), a.stream);
    p.status = status.get();
    LaunchShape init;
    init.grid[0] = unsigned(ceil_div(p.tiles, kInitThreads));
    init.block[0] = kInitThreads;
    cuda::launch(init_, init, a.stream, &p);
    s.dependent = true;  // overlaps scan_init; waits for it before touching the status
    cuda::launch(scan, s, a.stream, &p);
  }

 private:
  CumsumPlan plan_;
  CUfunction primary_, init_, fallback_;
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
    for (int tpr = 32; tpr <= kRowMaxThreads; tpr *= 2) {
      p.tpr = tpr;
      p.vec = max_vec(e);
      for (auto& spec : p.programs()) out.push_back(std::move(spec));
    }
    p.rows = false;
    p.vec = col_vec(e);
    for (auto& spec : p.programs()) out.push_back(std::move(spec));
  }
}

}  // namespace tileops::cuda
