// Kernel types of SoftmaxFwdOp and LogSoftmaxFwdOp (kernels/softmax.cuh).
#include "common.hpp"
#include "ops.hpp"
#include "rows.hpp"

#include <algorithm>

namespace tileops::cuda {
namespace {

// softmax_smem holding 5 vectors a thread takes 61 registers for sm_90a (ptxas, fp32),
// and 64 when it sweeps.
constexpr HeldCaps kSoftmaxMaxHeld{5, 5};

constexpr int kTx = 32, kTy = 8;  // softmax_col: threads across inner, down len

// softmax_strip: strips of 64-byte rows, 256 threads; a CTA's rows fill about this much
// shared memory (several CTAs an SM), less what the kernel declares statically.
constexpr int64_t kStripRowBytes = 64;
constexpr int kStripThreads = 256;
constexpr int64_t kStripSliceTarget = 64 << 10, kStripStaticReserve = 8 << 10;

struct SoftmaxPlan {
  int log = 0;
  Elem elem = Elem::f32;
  int arch = 0;
  int64_t dim = 0;
  bool rows = true;  // inner == 1: the row kernels; else softmax_strip or softmax_col
  RowPlan primary, fallback;
  int64_t strip_len = 0;     // softmax_strip for this len (0: softmax_col)
  int vec = 1, cluster = 1;  // softmax_col's vector; CTAs per cluster of both

  int strip_cols() const { return int(kStripRowBytes / int64_t(size_of(elem))); }
  unsigned strip_smem() const { return unsigned(ceil_div(strip_len, cluster) * kStripRowBytes); }

  ProgramSpec row_program(const RowPlan& r) const {
    return {"softmax",
            {instance(r.kernel("softmax").c_str(), {cuda_type(elem), std::to_string(log), r.template_args()})}};
  }
  ProgramSpec col_program(int v) const {
    return {"softmax", {instance("softmax_col", {cuda_type(elem), std::to_string(log), std::to_string(v),
                                                 std::to_string(kTx), std::to_string(kTy)})}};
  }
  ProgramSpec strip_program() const {
    return {"softmax",
            {instance("softmax_strip", {cuda_type(elem), std::to_string(log), std::to_string(kStripThreads)})}};
  }
  // The primary kernel, then its twin for misaligned pointers.
  std::vector<ProgramSpec> programs() const {
    if (rows) return {row_program(primary), row_program(fallback)};
    if (strip_len > 0) return {strip_program(), col_program(1)};
    return {col_program(vec), col_program(1)};
  }
  std::string identity(const Call& call, int64_t len) const {
    std::string id = std::string(call.op()) + "|sm" + std::to_string(arch) + "|" + name_of(elem) + "|dim " +
                     std::to_string(dim);
    if (rows) return id + "|len " + std::to_string(len) + "|" + primary.describe() + "|fallback " + fallback.describe();
    if (strip_len > 0) return id + "|strips len " + std::to_string(strip_len) + " c" + std::to_string(cluster);
    return id + "|columns v" + std::to_string(vec) + " c" + std::to_string(cluster);
  }
};

// sm_90: the cluster that holds strips of `a` in shared memory (slices of about
// kStripSliceTarget; more CTAs when the strips alone leave SMs idle), or 0 when a strip
// does not fit in 8 CTAs or the columns do not make whole strips.
int strip_cluster(const Axis& a, int cols, const Call& call) {
  if (call.arch() < 90 || a.inner % cols != 0) return 0;
  const int64_t strips = a.outer * (a.inner / cols);
  int cluster = int(clamp(pow2_ceil(ceil_div(a.size * kStripRowBytes, kStripSliceTarget)), 1, TILEOPS_CUDA_MAX_CLUSTER));
  while (cluster < TILEOPS_CUDA_MAX_CLUSTER && strips * cluster < 2 * int64_t(call.sm_count())) cluster *= 2;
  const int64_t slice = ceil_div(a.size, cluster) * kStripRowBytes;
  return slice <= call.smem_budget() - kStripStaticReserve ? cluster : 0;
}

SoftmaxPlan plan(const Call& call, int log) {
  SoftmaxPlan p;
  p.log = log;
  p.arch = call.arch();
  call.require_arch(80);
  p.elem = call.dtype(0, "x", kFloats);
  const auto shape = call.shape(0);
  p.dim = normalize_axis(call, "dim", call.params().get_int("dim"), int64_t(shape.size()));
  const Axis a = axis_view(shape, p.dim);
  const int maxv = max_vec(p.elem);
  p.rows = a.inner == 1;
  if (p.rows) {
    const RowContext context{p.arch, a.outer, call.sm_count(), call.smem_budget(), false, kSoftmaxMaxHeld};
    p.primary = plan_rows(a.size, a.size % maxv == 0 ? maxv : 1, context);
    p.fallback = fallback_rows(a.size, context);
    return p;
  }
  if (const int cluster = strip_cluster(a, p.strip_cols(), call)) {
    p.strip_len = a.size;
    p.cluster = cluster;
    return p;
  }
  // A warp reads 128 bytes of a row at a time: narrow vectors, many column tiles.
  const int narrow = std::max(1, maxv / 4);
  p.vec = a.inner % narrow == 0 ? narrow : 1;
  const int64_t tiles = std::max<int64_t>(1, a.outer * ceil_div(a.inner / p.vec, kTx));  // empty x: as for one
  // Split len over a cluster when the column tiles alone leave SMs idle.
  if (p.arch >= 90)
    p.cluster = int(clamp(pow2_ceil(ceil_div(2 * int64_t(call.sm_count()), tiles)), 1, TILEOPS_CUDA_MAX_CLUSTER));
  return p;
}

class SoftmaxKernel final : public CudaKernel {
 public:
  SoftmaxKernel(const DeviceInfo& device, const SoftmaxPlan& plan, const std::vector<const Module*>& modules)
      : CudaKernel(device, "{\"kernel\": \"" + plan.programs()[0].kernels[0] + "\"}"),
        plan_(plan),
        primary_(modules[0]->functions[0]),
        fallback_(modules[1]->functions[0]) {
    if ((plan.rows && plan.primary.form == RowPlan::kSmem) || plan.strip_len > 0)
      allow_max_smem(primary_, device);
    if (plan.rows) plan_.primary.fit_to(primary_, device.sm_count);
  }

  void launch(const sdk::LaunchArgs& a) override {
    prepare();
    const tileops_tensor& x = *a.inputs[0];
    const Axis ax = axis_view(shape_of(x), plan_.dim);
    tileops_cuda::SoftmaxParams p{x.data, a.outputs[0]->data, ax.outer, ax.size, ax.inner};
    if (ax.outer * ax.size * ax.inner == 0) return;
    const int vec = plan_.rows ? plan_.primary.vec : plan_.strip_len > 0 ? max_vec(plan_.elem) : plan_.vec;
    const size_t align = size_t(vec) * size_of(plan_.elem);
    const bool ok = aligned(p.x, align) && aligned(p.y, align);
    if (plan_.rows) {
      const RowPlan& rows = ok ? plan_.primary : plan_.fallback;
      cuda::launch(ok ? primary_ : fallback_, rows.shape(ax.outer), a.stream, &p);
      return;
    }
    LaunchShape s;
    s.cluster = unsigned(plan_.cluster);
    if (plan_.strip_len > 0 && ok) {
      s.grid[0] = unsigned(ax.outer * (ax.inner / plan_.strip_cols()) * plan_.cluster);
      s.block[0] = kStripThreads;
      s.smem = plan_.strip_smem();
      cuda::launch(primary_, s, a.stream, &p);
      return;
    }
    const int v = ok ? vec : 1;
    s.grid[0] = unsigned(ax.outer * ceil_div(ax.inner / v, kTx) * plan_.cluster);
    s.block[0] = kTx;
    s.block[1] = kTy;
    cuda::launch(ok ? primary_ : fallback_, s, a.stream, &p);
  }

 private:
  SoftmaxPlan plan_;
  CUfunction primary_, fallback_;
};

template <int LOG>
std::string softmax_identity(const Call& call) {
  const SoftmaxPlan p = plan(call, LOG);
  const auto shape = call.shape(0);
  return p.identity(call, axis_view(shape, p.dim).size);
}

template <int LOG>
std::vector<ProgramSpec> softmax_programs(const Call& call) {
  return plan(call, LOG).programs();
}

template <int LOG>
std::unique_ptr<sdk::Kernel> build_softmax(const Call& call) {
  const SoftmaxPlan p = plan(call, LOG);
  const DeviceInfo& device = device_info(call.device());
  return std::make_unique<SoftmaxKernel>(device, p, load_programs(device, p.programs()));
}

const KernelTypeDef kSoftmax{"SoftmaxFwdOp", "cuda_softmax", softmax_identity<0>, softmax_programs<0>, build_softmax<0>};
const KernelTypeDef kLogSoftmax{"LogSoftmaxFwdOp", "cuda_log_softmax", softmax_identity<1>, softmax_programs<1>,
                                build_softmax<1>};

}  // namespace

void list_softmax_types(std::vector<const KernelTypeDef*>& out) { out.insert(out.end(), {&kSoftmax, &kLogSoftmax}); }

void list_softmax_programs(std::vector<ProgramSpec>& out) {
  for (int log : {0, 1})
    for (Elem e : kFloats) {
      SoftmaxPlan p;
      p.log = log;
      p.elem = e;
      for (int vec : {max_vec(e), 1})
        for (const RowPlan& rows : all_row_plans(vec, 90, false, true, false, kSoftmaxMaxHeld))
          out.push_back(p.row_program(rows));
      for (const RowPlan& rows : all_row_plans(1, 90, true, true, false, kSoftmaxMaxHeld))
        out.push_back(p.row_program(rows));
      out.push_back(p.strip_program());
      for (int vec : {std::max(1, max_vec(e) / 4), 1}) out.push_back(p.col_program(vec));
    }
}

}  // namespace tileops::cuda
