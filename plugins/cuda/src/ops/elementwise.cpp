// Kernel types of the elementwise family (kernels/elementwise.cuh): ReluFwdOp,
// GeluFwdOp, SiluFwdOp, SigmoidFwdOp, SiluAndMulFwdOp, GeluAndMulFwdOp, AddFwdOp,
// MulFwdOp.
#include "common.hpp"
#include "ops.hpp"

#include <cmath>
#include <cstdio>

namespace tileops::cuda {
namespace {

using tileops_cuda::Activation, tileops_cuda::kRelu, tileops_cuda::kGelu, tileops_cuda::kGeluTanh, tileops_cuda::kSilu,
    tileops_cuda::kSigmoid;

// Threads a CTA and vectors in flight a thread, per kernel: the fastest of the sweeps on
// the H200 (docs/perf/cuda-kernels-h200.md: "Elementwise tiling" for gated and binary,
// "Fourth round" for unary, swept again once its loads went through L1).
struct Tiling {
  int threads, unroll;
};
constexpr Tiling kUnaryTiling{128, 2}, kGatedTiling{256, 2}, kBinaryTiling{128, 4};
constexpr int64_t kMaxVectors = int64_t(1) << 31;  // the kernels' 32-bit fast division

// GELU's form from the `approximate` param.
Activation gelu_form(const Call& call) {
  const auto a = call.params().get_string("approximate");
  if (a == "none") return kGelu;
  if (a == "tanh") return kGeluTanh;
  call.refuse("approximate = '" + std::string(a) + "'; the kernel knows 'none' and 'tanh'");
}

std::string head(const Call& call, Elem e) {
  return std::string(call.op()) + "|sm" + std::to_string(call.arch()) + "|" + name_of(e);
}

// A kernel with a 16-byte-vector variant and an element-by-element one for pointers that
// turn out misaligned at launch.
class VectorKernel : public CudaKernel {
 public:
  VectorKernel(const DeviceInfo& device, const std::vector<ProgramSpec>& programs, Elem elem, int vec, Tiling tiling)
      : CudaKernel(device, "{\"kernel\": \"" + programs[0].kernels[0] + "\"}"),
        elem_(elem),
        vec_(vec),
        tiling_(tiling) {
    const auto modules = load_programs(device, programs);
    primary_ = modules[0]->functions[0];
    fallback_ = modules[1]->functions[0];
    primary_per_sm_ = occupancy(primary_, tiling.threads) * kWaves;
    fallback_per_sm_ = occupancy(fallback_, tiling.threads) * kWaves;
  }

 protected:
  // The vector width usable with these pointers (nullptr passes).
  int width(std::initializer_list<const void*> pointers) const {
    for (const void* p : pointers)
      if (!aligned(p, size_t(vec_) * size_of(elem_))) return 1;
    return vec_;
  }
  CUfunction function(int v) const { return v == vec_ ? primary_ : fallback_; }
  LaunchShape grid(int64_t vectors, int v) const {
    LaunchShape s;
    s.grid[0] = grid_for(vectors, int64_t(tiling_.threads) * tiling_.unroll, device_,
                         v == vec_ ? primary_per_sm_ : fallback_per_sm_);
    s.block[0] = unsigned(tiling_.threads);
    return s;
  }

  Elem elem_;
  int vec_;
  Tiling tiling_;

 private:
  CUfunction primary_ = nullptr, fallback_ = nullptr;
  int primary_per_sm_ = 1, fallback_per_sm_ = 1;
};

// ---- activations -----------------------------------------------------------------------

struct UnaryPlan {
  Elem elem;
  Activation act;
  int vec;
  std::vector<ProgramSpec> programs() const { return {program(vec), program(1)}; }  // VectorKernel's two
  ProgramSpec program(int v) const {
    return {"elementwise", {instance("unary", {cuda_type(elem), std::to_string(int(act)), std::to_string(v),
                                               std::to_string(kUnaryTiling.unroll)})}};
  }
};

template <Activation A>
UnaryPlan unary_plan(const Call& call) {
  call.require_arch(80);
  UnaryPlan p;
  p.elem = call.dtype(0, "x", A == kRelu ? std::span<const Elem>(kFloatsAndInts) : std::span<const Elem>(kFloats));
  p.act = A == kGelu ? gelu_form(call) : A;
  p.vec = numel(call.shape(0)) % max_vec(p.elem) == 0 ? max_vec(p.elem) : 1;
  return p;
}

class UnaryKernel final : public VectorKernel {
 public:
  UnaryKernel(const DeviceInfo& device, const UnaryPlan& p)
      : VectorKernel(device, p.programs(), p.elem, p.vec, kUnaryTiling) {}
  void launch(const sdk::LaunchArgs& a) override {
    prepare();
    tileops_cuda::UnaryParams p{a.inputs[0]->data, a.outputs[0]->data, numel(shape_of(*a.inputs[0]))};
    const int v = width({p.x, p.y});
    cuda::launch(function(v), grid(p.n / v, v), a.stream, &p);
  }
};

template <Activation A>
std::string unary_identity(const Call& call) {
  const UnaryPlan p = unary_plan<A>(call);
  return head(call, p.elem) + "|act " + std::to_string(int(p.act)) + "|v" + std::to_string(p.vec);
}
template <Activation A>
std::vector<ProgramSpec> unary_programs(const Call& call) {
  return unary_plan<A>(call).programs();
}
template <Activation A>
std::unique_ptr<sdk::Kernel> build_unary(const Call& call) {
  return std::make_unique<UnaryKernel>(device_info(call.device()), unary_plan<A>(call));
}

// ---- gated activations -------------------------------------------------------------------

struct GatedPlan {
  Elem elem;
  Activation act;
  int vec;
  std::vector<ProgramSpec> programs() const { return {program(vec), program(1)}; }  // VectorKernel's two
  ProgramSpec program(int v) const {
    return {"elementwise", {instance("gated", {cuda_type(elem), std::to_string(int(act)), std::to_string(v),
                                               std::to_string(kGatedTiling.unroll)})}};
  }
};

template <Activation A>
GatedPlan gated_plan(const Call& call) {
  call.require_arch(80);
  GatedPlan p;
  p.elem = call.dtype(0, "x", kFloats);
  p.act = A == kGelu ? gelu_form(call) : A;
  const auto x = call.shape(0);
  if (x.empty() || x.back() % 2) call.refuse("x's last dim must be even");
  const int64_t n = x.back() / 2;
  p.vec = n % max_vec(p.elem) == 0 ? max_vec(p.elem) : 1;
  if (numel(x) / 2 >= kMaxVectors) call.refuse("more than 2^31 output elements");
  return p;
}

class GatedKernel final : public VectorKernel {
 public:
  GatedKernel(const DeviceInfo& device, const GatedPlan& p)
      : VectorKernel(device, p.programs(), p.elem, p.vec, kGatedTiling) {}
  void launch(const sdk::LaunchArgs& a) override {
    prepare();
    const auto x = shape_of(*a.inputs[0]);
    tileops_cuda::GatedParams p{};
    p.x = a.inputs[0]->data;
    p.y = a.outputs[0]->data;
    p.n = x.back() / 2;
    p.rows = p.n ? numel(x) / (2 * p.n) : 0;
    const int v = width({p.x, p.y});
    p.n_vec = make_fast_div(uint32_t(p.n / v));
    cuda::launch(function(v), grid(p.rows * (p.n / v), v), a.stream, &p);
  }
};

template <Activation A>
std::string gated_identity(const Call& call) {
  const GatedPlan p = gated_plan<A>(call);
  return head(call, p.elem) + "|act " + std::to_string(int(p.act)) + "|v" + std::to_string(p.vec);
}
template <Activation A>
std::vector<ProgramSpec> gated_programs(const Call& call) {
  return gated_plan<A>(call).programs();
}
template <Activation A>
std::unique_ptr<sdk::Kernel> build_gated(const Call& call) {
  return std::make_unique<GatedKernel>(device_info(call.device()), gated_plan<A>(call));
}

// ---- add, mul ----------------------------------------------------------------------------

using tileops_cuda::BinaryOp, tileops_cuda::kAdd, tileops_cuda::kMul;

// y = a op b broadcast, coalesced: two dims [rows, cols] with column strides of 0 or 1
// (the binary kernel), or up to 8 dims of any strides (binary_nd).
struct BinaryLayout {
  bool two_d = true;
  int64_t rows = 1, cols = 1, a_row = 0, b_row = 0;
  int a_col = 0, b_col = 0;
  std::vector<int64_t> shape, a_stride, b_stride;  // coalesced, outermost first
};

BinaryLayout binary_layout(std::span<const int64_t> a, std::span<const int64_t> b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> shape(n), sa(n), sb(n);
  int64_t ra = 1, rb = 1;  // running contiguous strides of a and b
  for (size_t i = n; i-- > 0;) {
    const size_t k = n - 1 - i;  // from the right
    const int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    const int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    shape[i] = std::max(da, db);
    sa[i] = da == 1 ? 0 : ra;
    sb[i] = db == 1 ? 0 : rb;
    ra *= da;
    rb *= db;
  }
  BinaryLayout l;
  for (size_t i = 0; i < n; ++i) {
    if (shape[i] == 1) continue;
    if (!l.shape.empty() && l.a_stride.back() == sa[i] * shape[i] && l.b_stride.back() == sb[i] * shape[i]) {
      l.shape.back() *= shape[i];
      l.a_stride.back() = sa[i];
      l.b_stride.back() = sb[i];
    } else {
      l.shape.push_back(shape[i]);
      l.a_stride.push_back(sa[i]);
      l.b_stride.push_back(sb[i]);
    }
  }
  const size_t d = l.shape.size();
  l.two_d = d <= 2 && (d == 0 || (l.a_stride.back() <= 1 && l.b_stride.back() <= 1));
  if (l.two_d && d > 0) {
    l.cols = l.shape.back();
    l.a_col = int(l.a_stride.back());
    l.b_col = int(l.b_stride.back());
    if (d == 2) {
      l.rows = l.shape[0];
      l.a_row = l.a_stride[0];
      l.b_row = l.b_stride[0];
    }
  }
  return l;
}

struct BinaryPlan {
  BinaryOp op;
  Elem elem;
  bool two_d;
  int vec = 1;
  double alpha = 1;
  std::vector<ProgramSpec> programs() const {
    if (!two_d) return {{"elementwise", {instance("binary_nd", {cuda_type(elem), std::to_string(int(op))})}}};
    auto at = [&](int v) -> ProgramSpec {
      return {"elementwise", {instance("binary", {cuda_type(elem), std::to_string(int(op)), std::to_string(v),
                                                  std::to_string(kUnaryTiling.unroll)})}};
    };
    return {at(vec), at(1)};
  }
};

template <BinaryOp O>
BinaryPlan binary_plan(const Call& call) {
  call.require_arch(80);
  BinaryPlan p;
  p.op = O;
  p.elem = call.dtype(0, "a", O == kAdd ? std::span<const Elem>(kFloatsAndInts) : std::span<const Elem>(kFloats));
  if (call.dtype(1, "b", kFloatsAndInts) != p.elem) call.refuse("a and b have different dtypes");
  if (O == kAdd) p.alpha = call.params().get_float("alpha");
  if ((p.elem == Elem::i32 || p.elem == Elem::i64) && p.alpha != std::floor(p.alpha))
    call.refuse("alpha = " + std::to_string(p.alpha) + " is not integral for integer tensors");
  const auto a = call.shape(0), b = call.shape(1);
  const BinaryLayout l = binary_layout(a, b);
  p.two_d = l.two_d;
  if (l.two_d) {
    const int m = max_vec(p.elem);
    const bool rows_aligned = l.rows == 1 || ((l.a_col == 0 || l.a_row % m == 0) && (l.b_col == 0 || l.b_row % m == 0));
    p.vec = l.cols % m == 0 && rows_aligned ? m : 1;
    if (l.rows * (l.cols / p.vec) >= kMaxVectors) call.refuse("more than 2^31 output vectors");
  }
  return p;
}

class BinaryKernel final : public CudaKernel {
 public:
  BinaryKernel(const DeviceInfo& device, const BinaryPlan& plan)
      : CudaKernel(device, "{\"kernel\": \"" + plan.programs()[0].kernels[0] + "\"}"), plan_(plan) {
    for (const Module* m : load_programs(device, plan.programs())) {
      functions_.push_back(m->functions[0]);
      per_sm_.push_back(occupancy(functions_.back(), kBinaryTiling.threads) * kWaves);
    }
  }
  void launch(const sdk::LaunchArgs& a) override {
    prepare();
    const BinaryLayout l = binary_layout(shape_of(*a.inputs[0]), shape_of(*a.inputs[1]));
    tileops_cuda::BinaryParams p{};
    p.a = a.inputs[0]->data;
    p.b = a.inputs[1]->data;
    p.y = a.outputs[0]->data;
    p.alpha = float(plan_.alpha);
    p.alpha_int = static_cast<long long>(plan_.alpha);
    LaunchShape s;
    s.block[0] = unsigned(kBinaryTiling.threads);
    if (!plan_.two_d) {
      p.ndim = int(l.shape.size());
      p.rows = 1;
      p.cols = numel(l.shape);
      for (size_t i = 0; i < l.shape.size(); ++i) {
        p.shape[i] = l.shape[i];
        p.a_stride[i] = l.a_stride[i];
        p.b_stride[i] = l.b_stride[i];
      }
      s.grid[0] = grid_for(p.cols, kBinaryTiling.threads, device_, per_sm_[0]);
      cuda::launch(functions_[0], s, a.stream, &p);
      return;
    }
    p.rows = l.rows;
    p.cols = l.cols;
    p.a_row_stride = l.a_row;
    p.b_row_stride = l.b_row;
    p.a_col_stride = l.a_col;
    p.b_col_stride = l.b_col;
    const size_t align = size_t(plan_.vec) * size_of(plan_.elem);
    const bool ok = aligned(p.a, align) && aligned(p.b, align) && aligned(p.y, align);
    const int v = ok ? plan_.vec : 1;
    p.cols_vec = make_fast_div(uint32_t(l.cols / v));
    s.grid[0] = grid_for(l.rows * (l.cols / v), int64_t(kBinaryTiling.threads) * kBinaryTiling.unroll, device_,
                         per_sm_[ok ? 0 : 1]);
    cuda::launch(functions_[ok ? 0 : 1], s, a.stream, &p);
  }

 private:
  BinaryPlan plan_;
  std::vector<CUfunction> functions_;
  std::vector<int> per_sm_;
};

template <BinaryOp O>
std::string binary_identity(const Call& call) {
  const BinaryPlan p = binary_plan<O>(call);
  char alpha[32];
  std::snprintf(alpha, sizeof alpha, "%.17g", p.alpha);
  return head(call, p.elem) + "|alpha " + alpha + (p.two_d ? "|2d v" + std::to_string(p.vec) : std::string("|nd"));
}
template <BinaryOp O>
std::vector<ProgramSpec> binary_programs(const Call& call) {
  return binary_plan<O>(call).programs();
}
template <BinaryOp O>
std::unique_ptr<sdk::Kernel> build_binary(const Call& call) {
  return std::make_unique<BinaryKernel>(device_info(call.device()), binary_plan<O>(call));
}

const KernelTypeDef kDefs[] = {
    {"ReluFwdOp", "cuda_relu", unary_identity<kRelu>, unary_programs<kRelu>, build_unary<kRelu>},
    {"GeluFwdOp", "cuda_gelu", unary_identity<kGelu>, unary_programs<kGelu>, build_unary<kGelu>},
    {"SiluFwdOp", "cuda_silu", unary_identity<kSilu>, unary_programs<kSilu>, build_unary<kSilu>},
    {"SigmoidFwdOp", "cuda_sigmoid", unary_identity<kSigmoid>, unary_programs<kSigmoid>, build_unary<kSigmoid>},
    {"SiluAndMulFwdOp", "cuda_silu_and_mul", gated_identity<kSilu>, gated_programs<kSilu>, build_gated<kSilu>},
    {"GeluAndMulFwdOp", "cuda_gelu_and_mul", gated_identity<kGelu>, gated_programs<kGelu>, build_gated<kGelu>},
    {"AddFwdOp", "cuda_add", binary_identity<kAdd>, binary_programs<kAdd>, build_binary<kAdd>},
    {"MulFwdOp", "cuda_mul", binary_identity<kMul>, binary_programs<kMul>, build_binary<kMul>},
};

}  // namespace

void list_elementwise_types(std::vector<const KernelTypeDef*>& out) {
  for (const KernelTypeDef& def : kDefs) out.push_back(&def);
}

void list_elementwise_programs(std::vector<ProgramSpec>& out) {
  for (Elem e : kFloatsAndInts) {
    const bool floating = e != Elem::i32 && e != Elem::i64;
    for (Activation act : {kRelu, kGelu, kGeluTanh, kSilu, kSigmoid}) {
      if (!floating && act != kRelu) continue;
      for (int vec : {max_vec(e), 1}) {
        out.push_back(UnaryPlan{e, act, vec}.program(vec));
        if (floating && act != kRelu && act != kSigmoid) out.push_back(GatedPlan{e, act, vec}.program(vec));
      }
    }
    for (BinaryOp op : {kAdd, kMul}) {
      if (!floating && op == kMul) continue;
      for (bool two_d : {true, false})
        for (auto& spec : BinaryPlan{op, e, two_d, max_vec(e), 1}.programs()) out.push_back(std::move(spec));
    }
  }
}

}  // namespace tileops::cuda
