#include "call_corpus.hpp"

#include "ops/ops.hpp"

#include <doctest/doctest.h>

#include <string>
#include <string_view>

namespace tileops::cuda::test {

const tileops_device_facts kH200{sizeof(tileops_device_facts), 90, "H200", 132, 232448};
const tileops_device_facts kA100{sizeof(tileops_device_facts), 80, "A100", 108, 166912};

namespace {

constexpr double kH200Bytes = 141e9;  // the larger memory: calls with a larger tensor cannot happen

constexpr tileops_dtype kF32{TILEOPS_DTYPE_FLOAT, 32, 1}, kF16{TILEOPS_DTYPE_FLOAT, 16, 1},
    kBf16{TILEOPS_DTYPE_BFLOAT, 16, 1}, kI32{TILEOPS_DTYPE_INT, 32, 1}, kI64{TILEOPS_DTYPE_INT, 64, 1};
const std::vector<tileops_dtype> kFloats{kF32, kF16, kBf16}, kAll{kF32, kF16, kBf16, kI32, kI64};

std::string text(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}
std::string text(tileops_dtype d) {
  return (d.code == TILEOPS_DTYPE_BFLOAT ? "bf" : d.code == TILEOPS_DTYPE_INT ? "i" : "f") + std::to_string(d.bits);
}

// Row lengths across the row forms' classes (a warp, a CTA, a cluster, shared memory, the
// queue), odd ones among them, empty and 2^31 ones, and row counts from none to more than
// the GPU holds.
const std::vector<int64_t> kLens{0,    1,     3,     8,     100,    256,    1000,   4096,    5000,    8192,
                                 8200, 16384, 32768, 65536, 100003, 128256, 262144, 1 << 20, 3000000, int64_t(1) << 31};
const std::vector<int64_t> kRows{0, 1, 2, 5, 64, 132, 1000, 8192, 65536};

void norm_calls(const char* op, Calls& out) {
  const bool fused = std::string(op) == "FusedAddRMSNormFwdOp", layer = std::string(op) == "LayerNormFwdOp";
  for (tileops_dtype d : kFloats)
    for (int64_t rows : kRows)
      for (int64_t len : kLens)
        for (int affine = 0; affine < (layer ? 4 : 2); ++affine) {
          auto& c = out.emplace_back(
              op, text(d) + " " + text(std::vector<int64_t>{rows, len}) + " affine " + std::to_string(affine));
          c.tensor(d, {rows, len});
          if (fused) c.tensor(d, {rows, len});
          affine & 1 ? c.tensor(d, {len}) : c.absent();
          if (layer) affine & 2 ? c.tensor(d, {len}) : c.absent();
          c.param_ints("normalized_shape", {len});
          op == std::string("RMSNormFwdOp") && affine ? c.param_none("eps") : c.param_float("eps", 1e-6);
        }
}

void group_norm_calls(Calls& out) {
  const std::vector<std::vector<int64_t>> spatial{{}, {0}, {1}, {7}, {5, 5}, {64, 64}, {128, 128}, {1024, 1024}};
  for (tileops_dtype d : kFloats)
    for (int64_t n : {0, 1, 2, 8})
      for (int64_t channels : {3, 32, 64, 256, 512})
        for (int64_t groups : {int64_t(1), int64_t(32), channels})
          for (const auto& s : spatial)
            for (int affine = 0; affine < 4; ++affine) {
              std::vector<int64_t> x{n, channels};
              x.insert(x.end(), s.begin(), s.end());
              auto& c =
                  out.emplace_back("GroupNormFwdOp", text(d) + " " + text(x) + " groups " + std::to_string(groups) +
                                                         " affine " + std::to_string(affine));
              c.tensor(d, x);
              affine & 1 ? c.tensor(d, {channels}) : c.absent();
              affine & 2 ? c.tensor(d, {channels}) : c.absent();
              c.param_int("num_groups", groups).param_float("eps", 1e-5);
            }
}

// Shapes of 1-3 dims for the ops that take one axis (softmax, cumsum).
std::vector<std::vector<int64_t>> axis_shapes() {
  std::vector<std::vector<int64_t>> out;
  for (int64_t len : kLens) {
    out.push_back({len});
    for (int64_t rows : kRows) out.push_back({rows, len});
  }
  for (int64_t inner : {0, 1, 7, 8, 64, 4096})
    for (int64_t len : {0, 2, 100, 4096, 65536})
      for (int64_t outer : {0, 1, 3, 64}) out.push_back({outer, len, inner});
  return out;
}

void axis_calls(const char* op, const std::vector<tileops_dtype>& dtypes, Calls& out) {
  for (tileops_dtype d : dtypes)
    for (const auto& shape : axis_shapes())
      for (int64_t dim = 0; dim < int64_t(shape.size()); ++dim)
        out.emplace_back(op, text(d) + " " + text(shape) + " dim " + std::to_string(dim))
            .tensor(d, shape)
            .param_int("dim", dim);
}

void reduce_calls(const char* op, Calls& out) {
  const bool argmax = std::string(op) == "ArgmaxFwdOp",
             sums = std::string(op) == "SumFwdOp" || std::string(op) == "MeanFwdOp";
  const std::vector<std::vector<int64_t>> shapes{{1},
                                                 {5000},
                                                 {3000000},
                                                 {64, 128256},
                                                 {8192, 8192},
                                                 {4096, 7},
                                                 {1000, 3, 256},
                                                 {8, 512, 4096},
                                                 {2, 3, 4, 5},
                                                 {16, 1, 4096},
                                                 {256, 64, 64, 64},
                                                 {4, 8192, 2, 64},
                                                 {0},
                                                 {0, 5},
                                                 {5, 0},
                                                 {3, 0, 4},
                                                 {}};
  for (tileops_dtype d : sums ? kFloats : kAll)
    for (const auto& shape : shapes) {
      const int64_t n = int64_t(shape.size());
      std::vector<std::vector<int64_t>> dim_sets{{}};  // every axis
      for (int64_t a = 0; a < n; ++a) dim_sets.push_back({a});
      if (!argmax && n >= 3) dim_sets.insert(dim_sets.end(), {{0, 2}, {1, n - 1}, {0, n - 1}});
      for (const auto& dims : dim_sets) {
        auto& c = out.emplace_back(op, text(d) + " " + text(shape) + " dim " + text(dims));
        c.tensor(d, shape).param_bool("keepdim", false);
        if (dims.empty())
          c.param_none("dim");
        else if (argmax)
          c.param_int("dim", dims[0]);
        else
          c.param_ints("dim", dims);
      }
    }
}

const std::vector<std::vector<int64_t>> kFlatShapes{{},           {0},       {1},       {7},          {4096},   {4095},
                                                    {8192, 8192}, {3, 5, 7}, {1 << 20}, {16, 128256}, {4, 0, 3}};

void unary_calls(const char* op, const std::vector<tileops_dtype>& dtypes, Calls& out) {
  const bool gelu = std::string(op) == "GeluFwdOp";
  for (tileops_dtype d : dtypes)
    for (const auto& shape : kFlatShapes)
      for (const char* form : {"none", "tanh"}) {
        auto& c = out.emplace_back(op, text(d) + " " + text(shape) + " " + form).tensor(d, shape);
        if (!gelu) break;
        c.param_string("approximate", form);
      }
}

void gated_calls(const char* op, Calls& out) {
  const bool gelu = std::string(op) == "GeluAndMulFwdOp";
  for (tileops_dtype d : kFloats)
    for (const auto& shape :
         std::vector<std::vector<int64_t>>{{2}, {6}, {16}, {4096, 28672}, {3, 22}, {7, 8200}, {0, 8}, {0}})
      for (const char* form : {"none", "tanh"}) {
        auto& c = out.emplace_back(op, text(d) + " " + text(shape) + " " + form).tensor(d, shape);
        if (!gelu) break;
        c.param_string("approximate", form);
      }
}

void binary_calls(const char* op, const std::vector<tileops_dtype>& dtypes, Calls& out) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> pairs{{{4096}, {4096}},
                                                                                 {{7}, {7}},
                                                                                 {{8192, 4096}, {4096}},
                                                                                 {{8192, 4096}, {8192, 1}},
                                                                                 {{33, 5}, {5}},
                                                                                 {{1}, {1000}},
                                                                                 {{64, 1, 8}, {1, 16, 8}},
                                                                                 {{2, 3, 4, 5}, {3, 1, 5}},
                                                                                 {{4, 1, 6, 1, 2}, {5, 1, 7, 2}},
                                                                                 {{0}, {0}},
                                                                                 {{0, 4}, {4}},
                                                                                 {{3, 0}, {1}},
                                                                                 {{}, {}},
                                                                                 {{5}, {}}};
  for (tileops_dtype d : dtypes)
    for (const auto& [a, b] : pairs) {
      auto& c = out.emplace_back(op, text(d) + " " + text(a) + " op " + text(b)).tensor(d, a).tensor(d, b);
      if (std::string(op) == "AddFwdOp") c.param_float("alpha", 1);
    }
}

void rope_calls(Calls& out) {
  for (tileops_dtype d : kFloats)
    for (tileops_dtype pos : {kI32, kI64})
      for (const char* layout : {"neox", "interleaved"})
        for (int64_t head : {6, 64, 80, 128})
          for (int64_t rot : {int64_t(2), int64_t(32), head / 2, head}) {
            if (rot > head || rot % 2) continue;
            for (const std::vector<int64_t>& x :
                 {std::vector<int64_t>{1, 1, head}, {4096, 32, head}, {2, 7, 8, head}, {0, 8, head}, {3, 0, head}}) {
              std::vector<int64_t> positions(x.begin(), x.end() - 2);
              out.emplace_back("RoPEFwdOp", text(d) + " " + text(x) + " rot " + std::to_string(rot) + " " + layout)
                  .tensor(d, x)
                  .tensor(pos, positions)
                  .tensor(kF32, {8192, rot})
                  .param_string("layout", layout);
            }
          }
}

}  // namespace

TestCall& TestCall::tensor(tileops_dtype dtype, std::vector<int64_t> shape) {
  const auto& s = shapes_.emplace_back(std::move(shape));
  specs_.push_back({sizeof(tileops_tensor_spec), {}, dtype, int32_t(s.size()), s.data()});
  double bytes = dtype.bits / 8.0;
  for (int64_t d : s) bytes *= double(d);
  fits_ = fits_ && bytes <= kH200Bytes;
  return *this;
}
TestCall& TestCall::absent() {
  specs_.push_back({});  // struct_size 0 marks it
  return *this;
}
TestCall& TestCall::param_int(const char* name, int64_t v) { return param(name, TILEOPS_PARAM_INT).u.i = v, *this; }
TestCall& TestCall::param_float(const char* name, double v) { return param(name, TILEOPS_PARAM_FLOAT).u.f = v, *this; }
TestCall& TestCall::param_string(const char* name, const char* v) {
  return param(name, TILEOPS_PARAM_STRING).u.s = v, *this;
}
TestCall& TestCall::param_bool(const char* name, bool v) { return param(name, TILEOPS_PARAM_BOOL).u.b = v, *this; }
TestCall& TestCall::param_none(const char* name) { return param(name, TILEOPS_PARAM_NONE), *this; }
TestCall& TestCall::param_ints(const char* name, std::vector<int64_t> v) {
  const auto& list = lists_.emplace_back(std::move(v));
  tileops_param& p = param(name, TILEOPS_PARAM_INT_LIST);
  p.u.ints = {list.data(), list.size()};
  return *this;
}
tileops_param& TestCall::param(const char* name, int32_t kind) {
  tileops_param& p = params_.emplace_back();
  p.name = name;
  p.kind = kind;
  return p;
}
const tileops_call& TestCall::call(const tileops_device_facts& facts) {
  tensors_.clear();
  for (const auto& s : specs_) tensors_.push_back(s.struct_size ? &s : nullptr);
  call_ = {sizeof call_, op_, op_, {}, &facts, tensors_.data(), tensors_.size(), params_.data(), params_.size()};
  return call_;
}

Calls calls_of(const char* o) {
  Calls out;
  const std::string_view op = o;
  if (op == "RMSNormFwdOp" || op == "FusedAddRMSNormFwdOp" || op == "LayerNormFwdOp") norm_calls(o, out);
  if (op == "GroupNormFwdOp") group_norm_calls(out);
  if (op == "SoftmaxFwdOp" || op == "LogSoftmaxFwdOp") axis_calls(o, kFloats, out);
  if (op == "CumsumFwdOp") axis_calls(o, kAll, out);
  if (op == "SumFwdOp" || op == "MeanFwdOp" || op == "AmaxFwdOp" || op == "ArgmaxFwdOp") reduce_calls(o, out);
  if (op == "ReluFwdOp") unary_calls(o, kAll, out);
  if (op == "GeluFwdOp" || op == "SiluFwdOp" || op == "SigmoidFwdOp") unary_calls(o, kFloats, out);
  if (op == "SiluAndMulFwdOp" || op == "GeluAndMulFwdOp") gated_calls(o, out);
  if (op == "AddFwdOp") binary_calls(o, kAll, out);
  if (op == "MulFwdOp") binary_calls(o, kFloats, out);
  if (op == "RoPEFwdOp") rope_calls(out);
  return out;
}

size_t for_each_accepted(const tileops_device_facts& facts,
                         const std::function<void(const KernelTypeDef&, TestCall&, const Call&)>& check) {
  size_t total = 0;
  for (const KernelTypeDef* def : all_kernel_types()) {
    Calls calls = calls_of(def->op);
    size_t fitting = 0, accepted = 0;
    for (TestCall& c : calls) {
      if (!c.fits()) continue;
      ++fitting;
      const Call call(c.call(facts));
      try {
        def->identity(call);
      } catch (const sdk::Failure&) {
        continue;
      }
      ++accepted;
      check(*def, c, call);
    }
    INFO(std::string(def->op) << ": " << accepted << " of " << fitting << " calls accepted on "
                              << std::string(facts.calibration));
    CHECK(accepted * 2 > fitting);
    total += accepted;
  }
  return total;
}


}  // namespace tileops::cuda::test
