// Kernel types of SumFwdOp, MeanFwdOp, AmaxFwdOp and ArgmaxFwdOp (kernels/reduce.cuh).
#include "common.hpp"
#include "ops.hpp"
#include "reduce_layout.hpp"

#include "../stream_buffer.hpp"

namespace tileops::cuda {
namespace {

// reduce_finalize's threads an output: a warp, or a CTA for outputs of more partials than
// a warp reads in one round (its U = 8 a thread).
constexpr int kFinalizeWarp = 32, kFinalizeCta = 256;
int finalize_threads(int splits) { return splits > kFinalizeWarp * 8 ? kFinalizeCta : kFinalizeWarp; }

// Bytes of one partial: the accumulator, or for argmax an ArgAcc (the accumulator and
// an i32 index, padded to the accumulator's alignment).
size_t partial_bytes(ReduceKind red, Elem e) { return red == kArgmax ? 2 * acc_bytes(e) : acc_bytes(e); }

struct ReducePlan {
  ReduceKind red = kSum;
  Elem elem = Elem::f32;
  int arch = 0;
  std::vector<bool> reduced;  // per input dim
  ReduceLayout layout;        // of the planned shape: what the programs were chosen for
  int vec = 1;
  bool split = false;  // partials and reduce_finalize (rows; columns before sm_90)
  int cluster = 1;     // the column form on sm_90
  ColThreads col = kColWide;  // the column form's CTA

  // CTAs along len for `l` (this plan's form) accessed `v` elements at a time.
  int splits(const ReduceLayout& l, int v, int sm_count) const {
    return l.form == ReduceLayout::kRow ? row_splits(l, v, sm_count, split_row_vectors(red))
                                        : col_splits(l, v, col, sm_count);
  }
  // Split or not, in a cluster or not: one kernel (they read splits and the cluster size).
  std::string kernel(int v) const {
    const std::string t = cuda_type(elem), r = std::to_string(int(red));
    if (layout.form == ReduceLayout::kCol)
      return instance("reduce_col", {t, r, std::to_string(v), std::to_string(col.tx), std::to_string(col.ty)});
    return instance("reduce_row", {t, r, std::to_string(v), std::to_string(layout.tpr), std::to_string(layout.rpc),
                                   std::to_string(row_unroll(elem, v, split))});
  }
  std::vector<ProgramSpec> programs() const {
    const std::string t = cuda_type(elem), r = std::to_string(int(red));
    switch (layout.form) {
      case ReduceLayout::kGeneral: return {{"reduce", {instance("reduce_general", {t, r})}}};
      case ReduceLayout::kShort:  // staged in 16-byte vectors, or element by element when x is misaligned
        return {{"reduce", {instance("reduce_short", {t, r, std::to_string(kShortRows), "1"})}},
                {"reduce", {instance("reduce_short", {t, r, std::to_string(kShortRows), "0"})}}};
      default: break;
    }
    std::vector<ProgramSpec> out = {{"reduce", {kernel(vec)}}, {"reduce", {kernel(1)}}};
    if (split)
      for (int tpr : {kFinalizeWarp, kFinalizeCta})
        out.push_back({"reduce", {instance("reduce_finalize", {t, r, std::to_string(tpr)})}});
    return out;
  }
  std::string identity(const Call& call) const {
    std::string axes;
    for (bool r : reduced) axes += r ? 'r' : 'k';
    return std::string(call.op()) + "|sm" + std::to_string(arch) + "|" + name_of(elem) + "|axes " + axes + "|" +
           layout.describe() + " v" + std::to_string(vec) + (split ? " split" : "") + " c" + std::to_string(cluster) +
           " tx" + std::to_string(col.tx);
  }
};

ReducePlan plan(const Call& call, ReduceKind red) {
  ReducePlan p;
  p.red = red;
  p.arch = call.arch();
  call.require_arch(80);
  p.elem = call.dtype(0, "x", red == kSum || red == kMean ? std::span<const Elem>(kFloats) : std::span<const Elem>(kFloatsAndInts));
  const auto shape = call.shape(0);
  const auto& params = call.params();
  const int64_t ndim = int64_t(shape.size());
  p.reduced.assign(shape.size(), false);
  std::vector<int64_t> dims;
  if (red == kArgmax) {
    if (auto d = params.get_optional_int("dim")) dims.push_back(*d);
  } else if (auto list = params.get_optional_ints("dim")) {
    dims.assign(list->begin(), list->end());
  }
  if (dims.empty()) {  // None (or torch's empty list): every axis
    p.reduced.assign(shape.size(), true);
  } else {
    for (int64_t d : dims)
      if (ndim > 0) p.reduced[size_t(normalize_axis(call, "dim", d, ndim))] = true;
  }
  p.layout = reduce_layout(shape, p.reduced);
  if (p.layout.form == ReduceLayout::kGeneral && red == kArgmax) call.refuse("argmax over several axes");
  if (!p.layout.general_fits())
    call.refuse("reduction over axes that form " + std::to_string(p.layout.n_kept) + " kept and " +
                std::to_string(p.layout.n_red) + " reduced runs; reduce_general takes at most " +
                std::to_string(ReduceLayout::kMaxRuns) + " of each");
  if (red == kArgmax && p.layout.len >= (int64_t(1) << 31))
    call.refuse("argmax over " + std::to_string(p.layout.len) + " elements; the kernel indexes them with 31 bits");
  const int maxv = max_vec(p.elem);
  switch (p.layout.form) {
    case ReduceLayout::kRow:
      if (p.layout.len * int64_t(size_of(p.elem)) <= kShortRowBytes) {
        p.layout.form = ReduceLayout::kShort;
        break;
      }
      p.vec = p.layout.len % maxv == 0 ? maxv : 1;
      p.split = p.splits(p.layout, p.vec, call.sm_count()) > 1;
      if (p.split) {
        p.layout.tpr = kSplitRowThreads;
        p.layout.rpc = 1;
      }
      break;
    case ReduceLayout::kCol:
      p.vec = p.layout.inner % maxv == 0 ? maxv : 1;
      p.col = col_threads(p.layout, p.elem, p.vec, call.sm_count());
      if (p.arch >= 90)
        p.cluster = col_cluster(p.layout, p.vec, p.col, call.sm_count());
      else
        p.split = p.splits(p.layout, p.vec, call.sm_count()) > 1;
      break;
    default: break;
  }
  return p;
}

class ReduceKernel final : public CudaKernel {
 public:
  ReduceKernel(const DeviceInfo& device, const ReducePlan& plan, const std::vector<const Module*>& modules)
      : CudaKernel(device, "{\"kernel\": \"" + plan.programs()[0].kernels[0] + "\"}"), plan_(plan) {
    for (const Module* m : modules) functions_.push_back(m->functions[0]);
  }

  void launch(const sdk::LaunchArgs& a) override {
    prepare();
    const tileops_tensor& x = *a.inputs[0];
    const ReduceLayout l = reduce_layout(shape_of(x), plan_.reduced);
    tileops_cuda::ReduceParams p{};
    p.x = x.data;
    p.y = a.outputs[0]->data;
    p.outer = l.outer;
    p.len = l.len;
    p.inner = l.inner;
    p.scale = plan_.red == kMean ? float(1.0 / double(l.len)) : 1.f;
    const int64_t n_out = l.outer * l.inner;
    if (n_out == 0) return;
    LaunchShape s;
    switch (plan_.layout.form) {
      case ReduceLayout::kGeneral:
        p.kept_ndim = l.n_kept;  // as planned: the description holds the run counts
        p.red_ndim = l.n_red;
        for (int i = 0; i < l.n_kept; ++i) {
          p.kept_shape[i] = l.kept[size_t(i)].size;
          p.kept_stride[i] = l.kept[size_t(i)].stride;
        }
        for (int i = 0; i < l.n_red; ++i) {
          p.red_shape[i] = l.red[size_t(i)].size;
          p.red_stride[i] = l.red[size_t(i)].stride;
        }
        cuda::launch(functions_[0], warp_per_output(n_out), a.stream, &p);
        return;
      case ReduceLayout::kShort:
        s.grid[0] = unsigned(ceil_div(l.outer, kShortRows));
        s.block[0] = kShortRows;
        s.smem = unsigned(kShortRows * l.len * int64_t(size_of(plan_.elem)));
        cuda::launch(functions_[aligned(x.data, 16) ? 0 : 1], s, a.stream, &p);
        return;
      default: break;
    }
    const bool ok = aligned(x.data, size_t(plan_.vec) * size_of(plan_.elem));
    const int v = ok ? plan_.vec : 1;
    const ColThreads col = plan_.col;
    // From the row threads reduce_layout picks, as the plan decided; the grid below takes
    // the compiled ones, which a split plan replaced.
    const int splits = plan_.split ? plan_.splits(l, v, device_.sm_count) : 1;
    p.splits = splits;
    p.chunk = l.form == ReduceLayout::kRow ? ceil_div(l.len / v, splits) : ceil_div(l.len, splits);
    if (l.form == ReduceLayout::kRow) {
      s.grid[0] = unsigned(ceil_div(l.outer, plan_.layout.rpc));
      s.block[0] = unsigned(plan_.layout.tpr * plan_.layout.rpc);
    } else {
      s.grid[0] = unsigned(l.outer * ceil_div(l.inner / v, col.tx) * plan_.cluster);
      s.block[0] = unsigned(col.tx);
      s.block[1] = unsigned(col.ty);
      s.cluster = unsigned(plan_.cluster);
    }
    s.grid[1] = unsigned(splits);
    if (splits == 1) {
      cuda::launch(functions_[ok ? 0 : 1], s, a.stream, &p);
      return;
    }
    StreamBuffer partial(size_t(n_out) * size_t(splits) * partial_bytes(plan_.red, plan_.elem), a.stream);
    p.partial = partial.get();
    cuda::launch(functions_[ok ? 0 : 1], s, a.stream, &p);
    p.outer = n_out;
    const int tpr = finalize_threads(splits);
    LaunchShape f;
    f.grid[0] = unsigned(ceil_div(n_out, kFinalizeCta / tpr));
    f.block[0] = kFinalizeCta;
    f.dependent = true;  // starts while the partials are being written; waits for them
    cuda::launch(functions_[tpr == kFinalizeWarp ? 2 : 3], f, a.stream, &p);
  }

 private:
  static LaunchShape warp_per_output(int64_t n) {
    LaunchShape s;
    s.grid[0] = unsigned(ceil_div(n, 4));
    s.block[0] = 128;
    return s;
  }

  ReducePlan plan_;
  std::vector<CUfunction> functions_;  // primary, misaligned fallback; split: finalize by warps, by CTAs
};

template <ReduceKind R>
std::string reduce_identity(const Call& call) {
  return plan(call, R).identity(call);
}

template <ReduceKind R>
std::vector<ProgramSpec> reduce_programs(const Call& call) {
  return plan(call, R).programs();
}

template <ReduceKind R>
std::unique_ptr<sdk::Kernel> build_reduce(const Call& call) {
  const ReducePlan p = plan(call, R);
  const DeviceInfo& device = device_info(call.device());
  return std::make_unique<ReduceKernel>(device, p, load_programs(device, p.programs()));
}

const KernelTypeDef kSumDef{"SumFwdOp", "cuda_sum", reduce_identity<kSum>, reduce_programs<kSum>, build_reduce<kSum>};
const KernelTypeDef kMeanDef{"MeanFwdOp", "cuda_mean", reduce_identity<kMean>, reduce_programs<kMean>, build_reduce<kMean>};
const KernelTypeDef kAmaxDef{"AmaxFwdOp", "cuda_amax", reduce_identity<kAmax>, reduce_programs<kAmax>, build_reduce<kAmax>};
const KernelTypeDef kArgmaxDef{"ArgmaxFwdOp", "cuda_argmax", reduce_identity<kArgmax>, reduce_programs<kArgmax>,
                               build_reduce<kArgmax>};

}  // namespace

void list_reduce_types(std::vector<const KernelTypeDef*>& out) {
  out.insert(out.end(), {&kSumDef, &kMeanDef, &kAmaxDef, &kArgmaxDef});
}

void list_reduce_programs(std::vector<ProgramSpec>& out) {
  for (ReduceKind red : {kSum, kMean, kAmax, kArgmax})
    for (Elem e : kFloatsAndInts) {
      if ((red == kSum || red == kMean) && (e == Elem::i32 || e == Elem::i64)) continue;
      ReducePlan p;
      p.red = red;
      p.elem = e;
      for (const ReduceLayout& l : all_reduce_layouts()) {
        if (l.form == ReduceLayout::kGeneral && red == kArgmax) continue;
        p.layout = l;
        for (int vec : {max_vec(e), 1}) {
          if ((l.form == ReduceLayout::kGeneral || l.form == ReduceLayout::kShort) && vec == 1) continue;
          p.vec = vec;
          for (bool split : {false, true}) {  // rows: reduce_row's unroll and reduce_finalize
            if (split && l.form != ReduceLayout::kRow) continue;
            if (!split && l.form == ReduceLayout::kRow && l.tpr == kSplitRowThreads) continue;
            p.split = split;
            for (ColThreads col : {kColWide, kColNarrow}) {
              if (col == kColNarrow && (l.form != ReduceLayout::kCol || size_of(e) != 2)) continue;
              p.col = col;
              for (auto& spec : p.programs()) out.push_back(std::move(spec));
            }
          }
        }
      }
    }
}

}  // namespace tileops::cuda
