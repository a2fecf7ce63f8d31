// Kernel types of the norm family: RMSNormFwdOp, FusedAddRMSNormFwdOp, LayerNormFwdOp,
// GroupNormFwdOp (kernels/norm.cuh).
#include "norm.hpp"

#include "common.hpp"
#include "ops.hpp"
#include "rows.hpp"

#include "../log.hpp"
#include "../stream_buffer.hpp"
#include "../strided_copy.hpp"

#include <cstdio>
#include <mutex>

namespace tileops::cuda {
namespace {

using tileops_cuda::NormKind, tileops_cuda::kRms, tileops_cuda::kFusedAddRms, tileops_cuda::kLayer, tileops_cuda::kGroup;
using tileops_cuda::kWeight, tileops_cuda::kBias;

// The input index of the weight; the bias, where the op has one, follows it.
size_t weight_input(NormKind kind) { return kind == kFusedAddRms ? 2 : 1; }
bool has_bias(NormKind kind) { return kind == kLayer || kind == kGroup; }

struct NormPlan {
  NormKind kind = kRms;
  Elem elem = Elem::f32;
  int affine = 0;  // the affine inputs present: kWeight, kBias (params.cuh)
  int arch = 0;
  int64_t cols = 0;
  double eps = 0;
  int64_t channel_size = 1, channels_per_group = 1, groups = 1;  // GroupNorm
  RowPlan primary, fallback;

  ProgramSpec program(const RowPlan& rows) const {
    return {"norm", {instance(rows.kernel("norm").c_str(), {cuda_type(elem), std::to_string(int(kind)),
                                                             std::to_string(affine), rows.template_args()})}};
  }
  // The primary form's program, the fallback's, and for the forms whose CTAs meet
  // through counters (queue, grid) zero_words, which zeroes them.
  bool meets() const { return primary.form == RowPlan::kQueue || primary.form == RowPlan::kGrid; }
  std::vector<ProgramSpec> programs() const {
    std::vector<ProgramSpec> out{program(primary), program(fallback)};
    if (meets()) out.push_back(zero_words_program());
    return out;
  }
  std::string identity(const Call& call) const {
    char eps_text[32];
    std::snprintf(eps_text, sizeof eps_text, "%.17g", eps);
    return std::string(call.op()) + "|sm" + std::to_string(arch) + "|" + name_of(elem) + "|cols " +
           std::to_string(cols) + "|affine " + std::to_string(affine) + "|eps " + eps_text + "|groups " +
           std::to_string(groups) + " of " + std::to_string(channels_per_group) + "x" + std::to_string(channel_size) +
           "|" + primary.describe() + "|fallback " + fallback.describe();
  }
};

// torch.finfo(dtype).eps, what rms_norm uses when eps is None.
double machine_epsilon(Elem e) {
  switch (e) {
    case Elem::f16: return 0x1p-10;
    case Elem::bf16: return 0x1p-7;
    default: return 0x1p-23;
  }
}

NormPlan plan(const Call& call, NormKind kind) {
  NormPlan p;
  p.kind = kind;
  p.arch = call.arch();
  call.require_arch(80);
  p.elem = call.dtype(0, "x", kFloats);
  if (call.tensor(weight_input(kind))) p.affine |= kWeight;
  if (has_bias(kind) && call.tensor(weight_input(kind) + 1)) p.affine |= kBias;
  const auto x = call.shape(0);
  int64_t run = 0;  // what a vector must not straddle: the row, or a GroupNorm channel
  if (kind == kGroup) {
    if (x.size() < 2) call.refuse("x must be [N, C, *S], got rank " + std::to_string(x.size()));
    p.groups = call.params().get_int("num_groups");
    if (p.groups <= 0 || x[1] % p.groups != 0)
      call.refuse("num_groups " + std::to_string(p.groups) + " does not divide C = " + std::to_string(x[1]));
    p.channels_per_group = x[1] / p.groups;
    p.channel_size = numel(std::span<const int64_t>(x).subspan(2));
    p.cols = p.channels_per_group * p.channel_size;
    p.eps = call.params().get_float("eps");
    if (p.cols >= (int64_t(1) << 31) || x[0] * p.groups >= (int64_t(1) << 31))
      call.refuse("groups of " + std::to_string(p.cols) + " elements, " + std::to_string(x[0] * p.groups) +
                  " of them; the kernel indexes both with 31 bits");
    run = p.channel_size;
  } else {
    const auto normalized = call.params().get_ints("normalized_shape");
    p.cols = numel(normalized);
    p.eps = kind == kRms ? call.params().get_optional_float("eps").value_or(machine_epsilon(p.elem))
                         : call.params().get_float("eps");
    run = p.cols;
  }
  const int vec = run > 0 && run % max_vec(p.elem) == 0 ? max_vec(p.elem) : 1;
  // The fused add also reads and writes the residual: never the shared-memory, grid or
  // queue form.
  const RowContext context{p.arch, p.cols ? numel(x) / p.cols : 0, call.sm_count(),
                           kind == kFusedAddRms ? 0 : call.smem_budget(), kind != kFusedAddRms, norm_held(kind, p.affine, vec)};
  p.primary = plan_rows(p.cols, vec, context);
  p.fallback = fallback_rows(p.cols, context);
  return p;
}

class NormKernel final : public CudaKernel {
 public:
  NormKernel(const DeviceInfo& device, const NormPlan& plan, const std::vector<const Module*>& modules)
      : CudaKernel(device, "{\"kernel\": \"" + plan.program(plan.primary).kernels[0] + "\", \"rows\": \"" +
                               plan.primary.describe() + "\"}"),
        plan_(plan),
        channel_size_(make_fast_div(uint32_t(plan.channel_size))),
        groups_(make_fast_div(uint32_t(plan.groups))),
        primary_(modules[0]->functions[0]),
        zero_(plan.meets() ? modules[2]->functions[0] : nullptr),
        fallback_(modules[1]->functions[0]) {
    if (plan.primary.form == RowPlan::kSmem || plan.primary.form == RowPlan::kGrid) allow_max_smem(primary_, device);
    plan_.primary.fit_to(primary_, device.sm_count);
    if (plan_.primary.form == RowPlan::kQueue) {
      // Fixed by the plan's row length and the grid: the statistics run ahead by the rows'
      // worth of items the grid works on at once, plus one.
      const int64_t pieces = ceil_div(plan_.cols / plan_.primary.vec, TILEOPS_CUDA_QUEUE_VECS);
      queue_pieces_ = make_fast_div(uint32_t(pieces));
      queue_pairs_ = make_fast_div(uint32_t(2 * pieces));
      queue_lag_ = ceil_div(plan_.primary.resident, 2 * pieces) + 1;
    }
  }

  void launch(const sdk::LaunchArgs& a) override {
    prepare();
    const tileops_tensor& x = *a.inputs[0];
    if (plan_.cols == 0) return;
    const int64_t rows = numel(shape_of(x)) / plan_.cols;
    if (rows == 0) return;
    tileops_cuda::NormParams p{};
    p.x = x.data;
    p.y = a.outputs[0]->data;
    p.rows = rows;
    p.cols = plan_.cols;
    p.eps = float(plan_.eps);
    // The kernel reads the inputs its plan found (the host's memo keys on which are present).
    const size_t w = weight_input(plan_.kind);
    if (plan_.affine & kWeight) p.weight = a.inputs[w]->data;
    if (plan_.affine & kBias) p.bias = a.inputs[w + 1]->data;
    if (plan_.kind == kGroup) {
      p.channel_size = channel_size_;
      p.channels_per_group = int(plan_.channels_per_group);
      p.groups = groups_;
    }
    if (plan_.kind != kFusedAddRms) return run(p, a.stream);
    // The residual is written in place and may arrive strided: then the kernel works on a
    // contiguous copy that is written back.
    const tileops_tensor& residual = *a.inputs[1];
    const auto shape = shape_of(residual);
    const std::span<const int64_t> strides(residual.strides, residual.strides ? shape.size() : 0);
    const size_t itemsize = size_of(plan_.elem);
    if (strides.empty() || is_contiguous(shape, strides)) {
      p.residual = residual.data;
      run(p, a.stream);
    } else {
      const std::vector<int64_t> packed = contiguous_strides(shape);
      StreamBuffer scratch(size_t(numel(shape)) * itemsize, a.stream);
      copy_views(device_, scratch.get(), packed, residual.data, strides, shape, itemsize, a.stream);
      p.residual = scratch.get();
      run(p, a.stream);
      copy_views(device_, residual.data, strides, scratch.get(), packed, shape, itemsize, a.stream);
    }
    // residual_out aliases residual; a host that hands a separate buffer gets a copy.
    const tileops_tensor& out = *a.outputs[1];
    if (out.data != residual.data) {
      const std::span<const int64_t> out_strides(out.strides, out.strides ? shape.size() : 0);
      const std::vector<int64_t> packed = contiguous_strides(shape);
      copy_views(device_, out.data, out_strides.empty() ? std::span<const int64_t>(packed) : out_strides,
                 residual.data, strides.empty() ? std::span<const int64_t>(packed) : strides, shape, itemsize,
                 a.stream);
    }
  }

 private:
  void run(const tileops_cuda::NormParams& p, void* stream) const {
    const size_t align = size_t(plan_.primary.vec) * size_of(plan_.elem);
    const bool ok = aligned(p.x, align) && aligned(p.y, align) && aligned(p.residual, align) &&
                    aligned(p.weight, align) && aligned(p.bias, align);
    const RowPlan& rows = ok ? plan_.primary : plan_.fallback;
    if (rows.form == RowPlan::kQueue || rows.form == RowPlan::kGrid) return run_meeting(p, stream);
    cuda::launch(ok ? primary_ : fallback_, rows.shape(p.rows), stream, &p);
  }

  // norm_queue and norm_grid: their counters, zeroed by zero_words, then the Sum2s of the
  // rows' parts (the queue's pieces, the grid's slices) and, for the queue, the rows'
  // statistics, in scratch memory.
  void run_meeting(tileops_cuda::NormParams p, void* stream) const {
    const bool queue = plan_.primary.form == RowPlan::kQueue;
    int64_t words, parts;
    if (queue) {
      p.pieces = queue_pieces_;
      p.pairs = queue_pairs_;
      p.lag = int(queue_lag_);
      words = 1 + 2 * p.rows;
      parts = queue_pieces_.divisor;
    } else {
      p.span = plan_.primary.cluster;
      p.stagger_ns = plan_.primary.stagger_ns(p.rows, p.cols * int64_t(size_of(plan_.elem)), device_.dram_bytes_per_s);
      words = p.rows;
      parts = p.span;
    }
    constexpr size_t kPair = 2 * sizeof(float);  // a Sum2 or a RowStats (norm.cuh)
    const size_t words_bytes = (size_t(words) * 4 + 15) & ~size_t(15);
    const size_t sums_bytes = size_t(p.rows * parts) * kPair;
    StreamBuffer scratch(words_bytes + sums_bytes + (queue ? size_t(p.rows) * kPair : 0), stream);
    char* base = static_cast<char*>(scratch.get());
    p.counters = reinterpret_cast<unsigned*>(base);
    p.sums = base + words_bytes;
    if (queue) p.stats = base + words_bytes + sums_bytes;
    zero_words(zero_, p.counters, words, stream);
    LaunchShape s = plan_.primary.shape(p.rows);
    s.dependent = true;
    const CUresult r = try_launch(primary_, s, stream, &p);
    if (r != CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE) return check(r, "launching a kernel");
    // The grid form's spans need all their CTAs resident at once, which the GPU may not
    // give while other work holds its SMs (another process under MPS, a green context):
    // the loop form then takes the rows, slower but whatever the GPU holds.
    static std::once_flag warned;
    std::call_once(warned, [&] {
      log(TILEOPS_LOG_WARN, "CUDA norm rows of " + std::to_string(p.cols) + " elements: the GPU does not hold the " +
                                std::to_string(s.grid[0]) + " CTAs of their grid form at once; they take the loop form");
    });
    cuda::launch(fallback_, plan_.fallback.shape(p.rows), stream, &p);
  }

  NormPlan plan_;
  tileops_cuda::FastDiv channel_size_, groups_;  // GroupNorm's divisors, fixed by the plan
  CUfunction primary_, zero_, fallback_;
  tileops_cuda::FastDiv queue_pieces_{}, queue_pairs_{};  // norm_queue: a row's items of each kind, of both
  int64_t queue_lag_ = 0;                                 // norm_queue: rows of lag
};

template <NormKind K>
std::string norm_identity(const Call& call) {
  return plan(call, K).identity(call);
}

template <NormKind K>
std::vector<ProgramSpec> norm_programs(const Call& call) {
  return plan(call, K).programs();
}

template <NormKind K>
std::unique_ptr<sdk::Kernel> build_norm(const Call& call) {
  const NormPlan p = plan(call, K);
  const DeviceInfo& device = device_info(call.device());
  const auto modules = load_programs(device, p.programs());
  if (K == kFusedAddRms) preload_copy_kernel(device, size_of(p.elem));
  return std::make_unique<NormKernel>(device, p, modules);
}

const KernelTypeDef kRmsNorm{"RMSNormFwdOp", "cuda_rms_norm", norm_identity<kRms>, norm_programs<kRms>, build_norm<kRms>};
const KernelTypeDef kFusedAddRmsNorm{"FusedAddRMSNormFwdOp", "cuda_fused_add_rms_norm", norm_identity<kFusedAddRms>,
                                     norm_programs<kFusedAddRms>, build_norm<kFusedAddRms>};
const KernelTypeDef kLayerNorm{"LayerNormFwdOp", "cuda_layer_norm", norm_identity<kLayer>, norm_programs<kLayer>,
                               build_norm<kLayer>};
const KernelTypeDef kGroupNorm{"GroupNormFwdOp", "cuda_group_norm", norm_identity<kGroup>, norm_programs<kGroup>,
                               build_norm<kGroup>};

}  // namespace

// norm_smem's held vectors within 64 registers (ptxas, sm_90a): 4 a thread in a CTA
// with one row (5 took LayerNorm fp32 to 76); in a sweeping CTA, whose held vectors also
// live through the slice's write pass, 3 of 16-bit rows and 2 of fp32 (RMSNorm fp32
// without a weight spilled 4 bytes with 3, every kind 24-32 bytes with 4). GroupNorm
// with weight and bias, whose write pass also finds each vector's channel, one fewer
// (16-bit: 4 bytes spilled with 4 in one row, with 3 sweeping).
HeldCaps norm_held(NormKind kind, int affine, int vec) {
  const int fewer = kind == kGroup && affine == (kWeight | kBias);
  return {4 - fewer, (vec == 8 ? 3 : 2) - fewer};
}

void list_norm_types(std::vector<const KernelTypeDef*>& out) {
  out.insert(out.end(), {&kRmsNorm, &kFusedAddRmsNorm, &kLayerNorm, &kGroupNorm});
}

void list_norm_programs(std::vector<ProgramSpec>& out) {
  for (NormKind kind : {kRms, kFusedAddRms, kLayer, kGroup})
    for (Elem e : kFloats)
      for (int affine = 0; affine <= (has_bias(kind) ? kWeight + kBias : kWeight); ++affine) {
        NormPlan p;
        p.kind = kind;
        p.elem = e;
        p.affine = affine;
        const bool row_forms = kind != kFusedAddRms;  // the shared-memory, grid and queue forms
        for (int vec : {max_vec(e), 1})
          for (const RowPlan& rows : all_row_plans(vec, 90, false, row_forms, row_forms, norm_held(kind, affine, vec)))
            out.push_back(p.program(rows));
        for (const RowPlan& rows : all_row_plans(1, 90, true, row_forms, row_forms, norm_held(kind, affine, 1)))
          out.push_back(p.program(rows));
      }
}

}  // namespace tileops::cuda
