// The kernel type of RoPEFwdOp (kernels/rope.cuh). Positions outside the cache are found
// by the kernel and reported through the device's value-error record (value_errors.hpp).
#include "common.hpp"
#include "ops.hpp"

#include "../value_errors.hpp"

#include <algorithm>

namespace tileops::cuda {
namespace {

constexpr Elem kPositionTypes[] = {Elem::i32, Elem::i64};
constexpr int kThreads = 256;

struct RopePlan {
  Elem elem = Elem::f32;
  Elem pos = Elem::i64;
  bool interleaved = false;
  bool partial = false;  // R < D: pass-through units
  int vec = 1;

  // The kernel for whole vectors, then its element-by-element twin for misaligned pointers.
  std::vector<ProgramSpec> programs() const { return {program(vec), program(1)}; }
  ProgramSpec program(int v) const {
    return {"rope", {instance("rope", {cuda_type(elem), cuda_type(pos), interleaved ? "1" : "0", std::to_string(v),
                                       partial ? "1" : "0"})}};
  }
  // Rotation work units per head for access width v (see rope.cuh).
  int64_t rot_units(int64_t rot_dim, int v) const {
    if (interleaved) return v > 1 ? rot_dim / v : rot_dim / 2;
    return rot_dim / 2 / v;
  }
};

// x [*B, H, D], positions [*B], cache [P, R].
struct RopeDims {
  int64_t tokens, heads, head_dim, max_positions, rot_dim;
};
RopeDims dims_of(std::span<const int64_t> x, std::span<const int64_t> cache) {
  return {numel(x.first(x.size() - 2)), x[x.size() - 2], x.back(), cache[0], cache[1]};
}

RopePlan plan(const Call& call) {
  call.require_arch(80);
  RopePlan p;
  p.elem = call.dtype(0, "x", kFloats);
  p.pos = call.dtype(1, "positions", kPositionTypes);
  call.dtype(2, "cos_sin_cache", std::span<const Elem>(kFloats).first(1));
  const auto layout = call.params().get_string("layout");
  if (layout != "neox" && layout != "interleaved")
    call.refuse("layout = '" + std::string(layout) + "'; the kernel knows 'neox' and 'interleaved'");
  p.interleaved = layout == "interleaved";
  const auto x = call.shape(0), cache = call.shape(2);
  if (x.size() < 2 || cache.size() != 2) call.refuse("x must be [*B, H, D] and cos_sin_cache [P, R]");
  const RopeDims d = dims_of(x, cache);
  if (d.rot_dim % 2 || d.rot_dim > d.head_dim) call.refuse("R = " + std::to_string(d.rot_dim) + " must be even and at most D");
  const int m = max_vec(p.elem);
  const bool fits = d.head_dim % m == 0 && (p.interleaved ? d.rot_dim % m == 0 : (d.rot_dim / 2) % m == 0);
  p.vec = fits ? m : 1;
  p.partial = d.rot_dim < d.head_dim;
  const int64_t units = std::max(p.rot_units(d.rot_dim, 1), d.head_dim - d.rot_dim);  // the most, at width 1
  if (d.tokens * d.heads * units >= (int64_t(1) << 31)) call.refuse("more than 2^31 work units");
  return p;
}

class RopeKernel final : public CudaKernel {
 public:
  RopeKernel(const DeviceInfo& device, const RopePlan& plan)
      : CudaKernel(device, "{\"kernel\": \"" + plan.program(plan.vec).kernels[0] + "\"}"),
        plan_(plan),
        errors_(value_error_slot(device)) {
    const auto modules = load_programs(device, plan.programs());
    primary_ = modules[0]->functions[0];
    fallback_ = modules[1]->functions[0];
    primary_per_sm_ = occupancy(primary_, kThreads) * kWaves;
    fallback_per_sm_ = occupancy(fallback_, kThreads) * kWaves;
  }

  void launch(const sdk::LaunchArgs& a) override {
    prepare();
    const RopeDims d = dims_of(shape_of(*a.inputs[0]), shape_of(*a.inputs[2]));
    tileops_cuda::RopeParams p{};
    p.x = a.inputs[0]->data;
    p.positions = a.inputs[1]->data;
    p.cache = static_cast<const float*>(a.inputs[2]->data);
    p.y = a.outputs[0]->data;
    p.tokens = d.tokens;
    p.heads = d.heads;
    p.head_dim = d.head_dim;
    p.rot_dim = d.rot_dim;
    p.max_positions = d.max_positions;
    p.error = errors_;
    const size_t align = size_t(plan_.vec) * size_of(plan_.elem);
    // Cache rows are read plan_.vec (neox) or plan_.vec / 2 (interleaved) floats at a time.
    const int cache_floats = plan_.interleaved ? std::max(plan_.vec / 2, 1) : plan_.vec;
    const size_t cache_align = std::min<size_t>(16, size_t(cache_floats) * 4);
    const bool ok = aligned(p.x, align) && aligned(p.y, align) && aligned(p.cache, cache_align);
    const int v = ok ? plan_.vec : 1;
    // A head's unit u is its rotation unit u and its pass-through unit u (rope.cuh).
    const int64_t rot = plan_.rot_units(d.rot_dim, v), pass = (d.head_dim - d.rot_dim) / v;
    const int64_t units = std::max(rot, pass);
    p.rot_units = int(rot);
    p.pass_units = int(pass);
    p.units = make_fast_div(uint32_t(units));
    p.heads_units = make_fast_div(uint32_t(d.heads * units));
    LaunchShape s;
    s.grid[0] = grid_for(d.tokens * d.heads * units, kThreads, device_, ok ? primary_per_sm_ : fallback_per_sm_);
    s.block[0] = kThreads;
    cuda::launch(ok ? primary_ : fallback_, s, a.stream, &p);
  }

 private:
  RopePlan plan_;
  tileops_cuda::ValueErrorSlot errors_;
  CUfunction primary_ = nullptr, fallback_ = nullptr;
  int primary_per_sm_ = 1, fallback_per_sm_ = 1;
};

std::string rope_identity(const Call& call) {
  const RopePlan p = plan(call);
  return std::string(call.op()) + "|sm" + std::to_string(call.arch()) + "|" + name_of(p.elem) + "|" + name_of(p.pos) +
         (p.interleaved ? "|interleaved" : "|neox") + (p.partial ? "|partial" : "") + "|v" + std::to_string(p.vec);
}

std::vector<ProgramSpec> rope_programs(const Call& call) { return plan(call).programs(); }

std::unique_ptr<sdk::Kernel> build_rope(const Call& call) {
  return std::make_unique<RopeKernel>(device_info(call.device()), plan(call));
}

const KernelTypeDef kRope{"RoPEFwdOp", "cuda_rope", rope_identity, rope_programs, build_rope};

}  // namespace

void list_rope_types(std::vector<const KernelTypeDef*>& out) { out.push_back(&kRope); }

void list_rope_programs(std::vector<ProgramSpec>& out) {
  for (Elem e : kFloats)
    for (Elem pos : kPositionTypes)
      for (bool interleaved : {false, true})
        for (bool partial : {false, true})
          for (int vec : {max_vec(e), 1}) out.push_back(RopePlan{e, pos, interleaved, partial, vec}.program(vec));
}

}  // namespace tileops::cuda
