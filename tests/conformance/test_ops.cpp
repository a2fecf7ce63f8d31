// Every op of the manifest through the generic API, the C API and its typed class on
// CPU tensors (cpu_ref), checked against the table's shapes and an independent double
// precision reference.
#include "support.hpp"

#include <tileops/manifest/manifest.hpp>
#include <tileops/tileops.h>
#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <set>

using namespace tileops;
using namespace conformance;

namespace {

std::vector<Tensor> run_generic(const OpCase& c, const std::vector<Tensor>& inputs) {
  Op op(c.op, c.params);
  auto outs = op(std::span<const Tensor>(inputs));
  CHECK(op.target() == std::optional<std::string>("cpu_ref"));
  return outs;
}

std::optional<Tensor> opt(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

// The op's typed class, called explicitly: one block per op of the manifest.
std::vector<Tensor> run_typed(const OpCase& c, const std::vector<Tensor>& x) {
  const std::string& n = c.op;
  using IntList = std::vector<int64_t>;
  if (n == "RMSNormFwdOp") {
    norm::RMSNormFwdOp op(c.get<IntList>("normalized_shape", {}), c.opt<double>("eps"));
    return {op(x[0], opt(x[1]))};
  }
  if (n == "FusedAddRMSNormFwdOp") {
    norm::FusedAddRMSNormFwdOp op(c.get<IntList>("normalized_shape", {}), c.get<double>("eps", 1e-6));
    auto [y, residual_out] = op(x[0], x[1], opt(x[2]));
    return {y, residual_out};
  }
  if (n == "LayerNormFwdOp") {
    norm::LayerNormFwdOp op(c.get<IntList>("normalized_shape", {}), c.get<double>("eps", 1e-5));
    return {op(x[0], opt(x[1]), opt(x[2]))};
  }
  if (n == "GroupNormFwdOp") {
    norm::GroupNormFwdOp op(c.get<int64_t>("num_groups", 0), c.get<double>("eps", 1e-5));
    return {op(x[0], opt(x[1]), opt(x[2]))};
  }
  if (n == "SoftmaxFwdOp") {
    reduction::SoftmaxFwdOp op(c.get<int64_t>("dim", -1));
    return {op(x[0])};
  }
  if (n == "LogSoftmaxFwdOp") {
    reduction::LogSoftmaxFwdOp op(c.get<int64_t>("dim", -1));
    return {op(x[0])};
  }
  if (n == "SumFwdOp") {
    reduction::SumFwdOp op(c.opt<IntList>("dim"), c.get<bool>("keepdim", false));
    return {op(x[0])};
  }
  if (n == "MeanFwdOp") {
    reduction::MeanFwdOp op(c.opt<IntList>("dim"), c.get<bool>("keepdim", false));
    return {op(x[0])};
  }
  if (n == "AmaxFwdOp") {
    reduction::AmaxFwdOp op(c.opt<IntList>("dim"), c.get<bool>("keepdim", false));
    return {op(x[0])};
  }
  if (n == "ArgmaxFwdOp") {
    reduction::ArgmaxFwdOp op(c.opt<int64_t>("dim"), c.get<bool>("keepdim", false));
    return {op(x[0])};
  }
  if (n == "CumsumFwdOp") {
    reduction::CumsumFwdOp op(c.get<int64_t>("dim", 0));
    return {op(x[0])};
  }
  if (n == "ReluFwdOp") {
    elementwise::ReluFwdOp op;
    return {op(x[0])};
  }
  if (n == "GeluFwdOp") {
    elementwise::GeluFwdOp op(c.get<std::string>("approximate", "none"));
    return {op(x[0])};
  }
  if (n == "SiluFwdOp") {
    elementwise::SiluFwdOp op;
    return {op(x[0])};
  }
  if (n == "SigmoidFwdOp") {
    elementwise::SigmoidFwdOp op;
    return {op(x[0])};
  }
  if (n == "SiluAndMulFwdOp") {
    elementwise::SiluAndMulFwdOp op;
    return {op(x[0])};
  }
  if (n == "GeluAndMulFwdOp") {
    elementwise::GeluAndMulFwdOp op(c.get<std::string>("approximate", "none"));
    return {op(x[0])};
  }
  if (n == "AddFwdOp") {
    elementwise::AddFwdOp op(c.get<double>("alpha", 1.0));
    return {op(x[0], x[1])};
  }
  if (n == "MulFwdOp") {
    elementwise::MulFwdOp op;
    return {op(x[0], x[1])};
  }
  if (n == "RoPEFwdOp") {
    rope::RoPEFwdOp op(c.get<std::string>("layout", "neox"));
    return {op(x[0], x[1], x[2])};
  }
  if (n == "GemmFwdOp") {
    gemm::GemmFwdOp op(c.get<bool>("trans_a", false), c.get<bool>("trans_b", false));
    return {op(x[0], x[1])};
  }
  if (n == "BmmFwdOp") {
    gemm::BmmFwdOp op;
    return {op(x[0], x[1])};
  }
  if (n == "GroupedQueryAttentionFwdOp") {
    attention::GroupedQueryAttentionFwdOp op(c.get<bool>("is_causal", false), c.opt<double>("scale"));
    return {op(x[0], x[1], x[2])};
  }
  if (n == "GroupedQueryAttentionDecodePagedFwdOp") {
    attention::GroupedQueryAttentionDecodePagedFwdOp op(c.opt<double>("scale"));
    return {op(x[0], x[1], x[2], x[3], x[4])};
  }
  if (n == "SwiGLUMLPFwdOp") {
    composite::SwiGLUMLPFwdOp op;
    return {op(x[0], x[1], x[2])};
  }
  FAIL("no typed call for " << n);
  return {};
}

// Params as the C API takes them; the pointers borrow from `c.params`.
std::vector<tileops_param> c_params(const OpCase& c) {
  std::vector<tileops_param> out;
  for (const auto& p : c.params) {
    tileops_param cp{};
    cp.name = p.name.c_str();
    if (std::holds_alternative<std::monostate>(p.value)) {
      cp.kind = TILEOPS_PARAM_NONE;
    } else if (auto* b = std::get_if<bool>(&p.value)) {
      cp.kind = TILEOPS_PARAM_BOOL;
      cp.u.b = *b;
    } else if (auto* i = std::get_if<int64_t>(&p.value)) {
      cp.kind = TILEOPS_PARAM_INT;
      cp.u.i = *i;
    } else if (auto* f = std::get_if<double>(&p.value)) {
      cp.kind = TILEOPS_PARAM_FLOAT;
      cp.u.f = *f;
    } else if (auto* s = std::get_if<std::string>(&p.value)) {
      cp.kind = TILEOPS_PARAM_STRING;
      cp.u.s = s->c_str();
    } else if (auto* l = std::get_if<std::vector<int64_t>>(&p.value)) {
      cp.kind = TILEOPS_PARAM_INT_LIST;
      cp.u.ints.data = l->data();
      cp.u.ints.len = l->size();
    } else {
      FAIL("param kind not used by the table: " << p.name);
    }
    out.push_back(cp);
  }
  return out;
}

struct ArrayDeleter {
  void operator()(tileops_array* a) const { tileops_array_release(a); }
};
using ArrayPtr = std::unique_ptr<tileops_array, ArrayDeleter>;

}  // namespace

TEST_CASE("the table covers the 25 ops of the manifest, each in the API suites and the CLI driver") {
  std::set<std::string> manifest;
  for (const auto& spec : manifest::Manifest::builtin().ops()) manifest.insert(spec.name());
  const std::set<std::string> listed(manifest_ops().begin(), manifest_ops().end());
  CHECK(manifest.size() == 25);
  CHECK(listed == manifest);
  std::set<std::string> with_data, with_empty, with_cli;
  for (const auto& c : op_cases()) with_data.insert(c.op);
  for (const auto& c : empty_cases()) with_empty.insert(c.op);
  for (const auto& c : cli_cases()) with_cli.insert(c.op);
  CHECK(with_data == manifest);
  CHECK(with_empty == manifest);
  CHECK(with_cli == manifest);
  // ops with optional inputs have a case with all of them present and one with some absent
  for (const auto& name : {"RMSNormFwdOp", "FusedAddRMSNormFwdOp", "LayerNormFwdOp", "GroupNormFwdOp"}) {
    bool all = false, some_absent = false;
    for (const auto& c : op_cases()) {
      if (c.op != name) continue;
      bool absent = false;
      for (const auto& i : c.inputs) absent |= !i.present;
      (absent ? some_absent : all) = true;
    }
    CHECK_MESSAGE(all, name);
    CHECK_MESSAGE(some_absent, name);
  }
}

TEST_CASE("generic API: outputs have the manifest's shapes and dtypes on cpu, and the reference's values") {
  for (const auto& c : op_cases()) {
    INFO("case " << c.id);
    auto inputs = make_inputs(c);
    std::vector<Buffer> in_values;
    for (const auto& t : inputs) in_values.push_back(t.defined() ? tooling::to_doubles(t) : Buffer{});
    std::vector<Tensor> outs;
    try {
      outs = run_generic(c, inputs);
    } catch (const Error& e) {
      FAIL_CHECK(e.kind() << ": " << e.what());
      continue;
    }
    REQUIRE(outs.size() == c.outputs.size());
    const auto ref = reference(c, in_values);
    REQUIRE(ref.size() == c.outputs.size());
    Op names(c.op, c.params);
    std::vector<std::string> want_inputs;
    for (const auto& i : c.inputs) want_inputs.push_back(i.name);
    CHECK(names.input_names() == want_inputs);
    // the settled params hold what the case gave (and the spec's defaults for the rest)
    const Params settled = names.params();
    for (const auto& given : c.params) {
      auto it = std::find_if(settled.begin(), settled.end(), [&](const Param& p) { return p.name == given.name; });
      REQUIRE_MESSAGE(it != settled.end(), given.name);
      CHECK(to_string(it->value) == to_string(given.value));
    }
    for (size_t j = 0; j < outs.size(); ++j) {
      const OutputSpec& want = c.outputs[j];
      INFO("output " << want.name);
      CHECK(names.output_names()[j] == want.name);
      REQUIRE(outs[j].defined());
      CHECK(outs[j].dtype() == want.dtype);
      CHECK(shape_of(outs[j]) == want.shape);
      CHECK(outs[j].device() == Device::cpu());
      CHECK(outs[j].is_contiguous());
      REQUIRE(ref[j].size() == size_t(numel(ShapeView(want.shape))));
      const double err = tooling::relative_error(outs[j], as_tensor(ref[j], want.shape));
      INFO("got " << tooling::describe(outs[j]));
      CHECK(err <= tooling::tolerance(want.dtype));
      CHECK(beyond_one_ulp(outs[j], ref[j]) == "");
    }
  }
}

TEST_CASE("an op writes its mutated input in place and returns it as the alias output") {
  for (const auto& c : op_cases()) {
    if (c.op != "FusedAddRMSNormFwdOp") continue;
    INFO("case " << c.id);
    auto inputs = make_inputs(c);
    const Tensor residual = inputs[1];
    const auto before = tooling::to_doubles(residual);
    const auto x = tooling::to_doubles(inputs[0]);
    auto outs = run_generic(c, inputs);
    REQUIRE(outs.size() == 2);
    CHECK(outs[1].data() == residual.data());
    CHECK(outs[1].storage() == residual.storage());
    Buffer sum(before.size());
    for (size_t i = 0; i < sum.size(); ++i) sum[i] = before[i] + x[i];
    CHECK(tooling::to_doubles(residual) == round_to(residual.dtype(), sum));
  }
}

namespace {

// The values of `t` in a non-contiguous view: every other element of a fresh buffer twice
// its size, whose gaps hold a sentinel. The view keeps the buffer alive.
constexpr unsigned char kSentinel = 0x7b;
Tensor strided_copy(const Tensor& t, Tensor& buffer) {
  buffer = Tensor::empty({2 * std::max<int64_t>(t.numel(), 1)}, t.dtype());
  std::memset(buffer.data(), kSentinel, buffer.nbytes());
  const size_t item = t.dtype().itemsize();
  for (int64_t i = 0; i < t.numel(); ++i)
    std::memcpy(static_cast<char*>(buffer.data()) + size_t(2 * i) * item, static_cast<const char*>(t.data()) + size_t(i) * item, item);
  Dims strides = contiguous_strides(t.shape());
  for (auto& st : strides) st *= 2;
  return Tensor::from_blob(buffer.data(), t.shape(), t.dtype(), Device::cpu(), view(strides), [keep = buffer](void*) {});
}

bool gaps_untouched(const Tensor& buffer) {
  const size_t item = buffer.dtype().itemsize();
  for (int64_t i = 1; i < buffer.numel(); i += 2)
    for (size_t b = 0; b < item; ++b)
      if (static_cast<const unsigned char*>(buffer.data())[size_t(i) * item + b] != kSentinel) return false;
  return true;
}

}  // namespace

TEST_CASE("non-contiguous inputs: the same outputs as contiguous ones; a mutated input is written through its strides") {
  for (const auto& c : op_cases()) {
    INFO("case " << c.id);
    const auto expected = run_generic(c, make_inputs(c));
    auto dense = make_inputs(c);
    std::vector<Tensor> buffers(dense.size()), inputs(dense.size());
    for (size_t i = 0; i < dense.size(); ++i) {
      if (!dense[i].defined()) continue;
      inputs[i] = strided_copy(dense[i], buffers[i]);
      if (dense[i].numel() > 1) REQUIRE_FALSE(inputs[i].is_contiguous());
    }
    std::vector<Tensor> outs;
    try {
      outs = run_generic(c, inputs);
    } catch (const Error& e) {
      FAIL_CHECK(e.kind() << ": " << e.what());
      continue;
    }
    REQUIRE(outs.size() == expected.size());
    for (size_t j = 0; j < outs.size(); ++j) {
      INFO("output " << c.outputs[j].name);
      CHECK(bit_identical(outs[j], expected[j]));
    }
    for (size_t i = 0; i < buffers.size(); ++i)
      if (buffers[i].defined()) CHECK_MESSAGE(gaps_untouched(buffers[i]), "input " << c.inputs[i].name);
    if (c.op == "FusedAddRMSNormFwdOp") {
      CHECK(outs[1].data() == inputs[1].data());  // the alias is the caller's view, strides and all
      CHECK(std::vector<int64_t>(outs[1].strides().begin(), outs[1].strides().end()) ==
            std::vector<int64_t>(inputs[1].strides().begin(), inputs[1].strides().end()));
    }
  }
}

TEST_CASE("C API: strided arrays; the mutated residual written in place through its strides") {
  for (const auto& c : op_cases()) {
    if (c.op != "FusedAddRMSNormFwdOp" && c.op != "GemmFwdOp") continue;
    INFO("case " << c.id);
    const auto expected = run_generic(c, make_inputs(c));
    auto params = c_params(c);
    tileops_op* raw = nullptr;
    REQUIRE(tileops_op_create(c.op.c_str(), params.data(), params.size(), nullptr, &raw) == TILEOPS_OK);
    std::unique_ptr<tileops_op, void (*)(tileops_op*)> op(raw, tileops_op_destroy);
    auto dense = make_inputs(c);
    std::vector<Tensor> buffers(dense.size()), views(dense.size());
    std::vector<ArrayPtr> arrays;
    std::vector<tileops_array*> in_ptrs;
    for (size_t i = 0; i < dense.size(); ++i) {
      tileops_array* a = nullptr;
      if (dense[i].defined()) {
        views[i] = strided_copy(dense[i], buffers[i]);
        REQUIRE(tileops_array_from_blob(views[i].data(), Device::cpu().to_c(), views[i].dtype().to_c(),
                                        int32_t(views[i].ndim()), views[i].shape().data(), views[i].strides().data(),
                                        &a) == TILEOPS_OK);
      }
      arrays.emplace_back(a);
      in_ptrs.push_back(a);
    }
    std::vector<tileops_array*> out_ptrs(c.outputs.size(), nullptr);
    REQUIRE_MESSAGE(tileops_op_call(op.get(), in_ptrs.data(), in_ptrs.size(), out_ptrs.data(), out_ptrs.size()) ==
                        TILEOPS_OK,
                    tileops_last_error());
    std::vector<ArrayPtr> out_arrays(out_ptrs.begin(), out_ptrs.end());
    const std::vector<int64_t> y_shape(tileops_array_shape(out_ptrs[0]), tileops_array_shape(out_ptrs[0]) + tileops_array_ndim(out_ptrs[0]));
    CHECK(bit_identical(Tensor::from_blob(tileops_array_data(out_ptrs[0]), ShapeView(y_shape), expected[0].dtype()), expected[0]));
    if (c.op == "FusedAddRMSNormFwdOp") {
      CHECK(tileops_array_data(out_ptrs[1]) == views[1].data());
      CHECK(bit_identical(views[1], expected[1]));  // residual += x, through the strides
    }
    for (const auto& b : buffers)
      if (b.defined()) CHECK(gaps_untouched(b));
  }
}

TEST_CASE("C API: the same outputs, bit for bit, as the generic API") {
  for (const auto& c : op_cases()) {
    INFO("case " << c.id);
    const auto expected = run_generic(c, make_inputs(c));
    auto params = c_params(c);
    tileops_op* raw = nullptr;
    const tileops_status created = tileops_op_create(c.op.c_str(), params.data(), params.size(), nullptr, &raw);
    REQUIRE_MESSAGE(created == TILEOPS_OK, tileops_last_error());
    std::unique_ptr<tileops_op, void (*)(tileops_op*)> op(raw, tileops_op_destroy);
    REQUIRE(tileops_op_num_inputs(op.get()) == c.inputs.size());
    REQUIRE(tileops_op_num_outputs(op.get()) == c.outputs.size());

    auto inputs = make_inputs(c);  // fresh: FusedAddRMSNorm writes residual
    std::vector<ArrayPtr> in_arrays;
    std::vector<tileops_array*> in_ptrs;
    for (const auto& t : inputs) {
      tileops_array* a = nullptr;
      if (t.defined()) {
        REQUIRE(tileops_array_from_blob(t.data(), Device::cpu().to_c(), t.dtype().to_c(), int32_t(t.ndim()),
                                        t.shape().data(), nullptr, &a) == TILEOPS_OK);
        CHECK(tileops_array_data(a) == t.data());
      }
      in_arrays.emplace_back(a);
      in_ptrs.push_back(a);
    }
    std::vector<tileops_array*> out_ptrs(c.outputs.size(), nullptr);
    const tileops_status called = tileops_op_call(op.get(), in_ptrs.data(), in_ptrs.size(), out_ptrs.data(), out_ptrs.size());
    CHECK_MESSAGE(called == TILEOPS_OK, tileops_last_error());
    CHECK(std::string(tileops_last_error()).empty());
    std::vector<ArrayPtr> out_arrays(out_ptrs.begin(), out_ptrs.end());
    if (called != TILEOPS_OK) continue;
    for (size_t j = 0; j < out_ptrs.size(); ++j) {
      INFO("output " << c.outputs[j].name);
      tileops_array* a = out_ptrs[j];
      REQUIRE(a != nullptr);
      CHECK(DType::from_c(tileops_array_dtype(a)) == c.outputs[j].dtype);
      std::vector<int64_t> shape(tileops_array_shape(a), tileops_array_shape(a) + tileops_array_ndim(a));
      CHECK(shape == c.outputs[j].shape);
      Tensor view = Tensor::from_blob(tileops_array_data(a), ShapeView(shape), DType::from_c(tileops_array_dtype(a)));
      CHECK(bit_identical(view, expected[j]));
    }
    if (c.op == "FusedAddRMSNormFwdOp") CHECK(tileops_array_data(out_ptrs[1]) == inputs[1].data());  // the alias
  }
}

TEST_CASE("C API: failures come back as statuses with the exception's kind and message") {
  tileops_op* op = nullptr;
  CHECK(tileops_op_create("RMSNormFwOp", nullptr, 0, nullptr, &op) == TILEOPS_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tileops_last_error_kind()) == "ValueError");
  CHECK(std::string(tileops_last_error()).find("unknown op 'RMSNormFwOp'; did you mean RMSNormFwdOp") == 0);
  CHECK(op == nullptr);
  CHECK(tileops_op_create("SoftmaxFwdOp", nullptr, 0, "nope", &op) == TILEOPS_ERR_NOT_FOUND);
  CHECK(std::string(tileops_last_error_kind()) == "UnknownTargetError");
  CHECK(std::string(tileops_last_error()) == "no backend registered target 'nope'; known targets: ['cpu_ref']");
}

TEST_CASE("typed classes: the same outputs, bit for bit, as the generic API") {
  std::set<std::string> covered;
  for (const auto& c : op_cases()) {
    INFO("case " << c.id);
    const auto expected = run_generic(c, make_inputs(c));
    std::vector<Tensor> outs;
    try {
      outs = run_typed(c, make_inputs(c));
    } catch (const Error& e) {
      FAIL_CHECK(e.kind() << ": " << e.what());
      continue;
    }
    covered.insert(c.op);
    REQUIRE(outs.size() == expected.size());
    for (size_t j = 0; j < outs.size(); ++j) {
      INFO("output " << c.outputs[j].name);
      CHECK(bit_identical(outs[j], expected[j]));
    }
  }
  CHECK(covered.size() == 25);
}

TEST_CASE("edge semantics of the reference APIs: empty contractions, NaN, integers beyond 2^53, int32 wrap") {
  auto host = [](std::initializer_list<int64_t> shape, DType dtype, std::vector<double> v) {
    Tensor t = Tensor::empty(shape, dtype);
    tooling::fill_from_doubles(t, v);
    return t;
  };
  // torch.matmul / bmm with K = 0: zeros, from a kernel (the output is not empty)
  Op gemm("GemmFwdOp");
  Tensor y = gemm({Tensor::empty({2, 0}, dtypes::float32), Tensor::empty({0, 3}, dtypes::float32)})[0];
  CHECK(shape_of(y) == std::vector<int64_t>{2, 3});
  CHECK(tooling::to_doubles(y) == std::vector<double>(6, 0.0));
  CHECK(gemm.target() == std::optional<std::string>("cpu_ref"));
  // NaN: torch.amax propagates it, torch.argmax points at it, relu keeps it
  const double nan = std::nan("");
  Tensor x = host({4}, dtypes::float32, {1, nan, 3, 2});
  CHECK(std::isnan(tooling::to_doubles(Op("AmaxFwdOp")({x})[0])[0]));
  CHECK(tooling::to_doubles(Op("ArgmaxFwdOp")({x})[0]) == std::vector<double>{1});
  auto r = tooling::to_doubles(Op("ReluFwdOp")({host({2}, dtypes::float32, {nan, -1})})[0]);
  CHECK(std::isnan(r[0]));
  CHECK(r[1] == 0.0);
  // int64 is exact beyond 2^53 (a double accumulator would round these)
  Tensor big = Tensor::empty({2}, dtypes::int64);
  big.data_ptr<int64_t>()[0] = (int64_t(1) << 53) + 1;
  big.data_ptr<int64_t>()[1] = 1;
  CHECK(Op("CumsumFwdOp", {{"dim", 0}})({big})[0].data_ptr<int64_t>()[1] == (int64_t(1) << 53) + 2);
  CHECK(Op("AmaxFwdOp")({big})[0].data_ptr<int64_t>()[0] == (int64_t(1) << 53) + 1);
  CHECK(Op("AddFwdOp", {{"alpha", 3.0}})({big, big})[0].data_ptr<int64_t>()[1] == 4);
  CHECK(Op("AddFwdOp", {{"alpha", -1.0}})({big, big})[0].data_ptr<int64_t>()[0] == 0);
  // int32 wraps like torch's integer tensors
  Tensor i32 = Tensor::empty({1}, dtypes::int32);
  i32.data_ptr<int32_t>()[0] = 2147483647;
  CHECK(Op("AddFwdOp")({i32, i32})[0].data_ptr<int32_t>()[0] == -2);
  // an integral alpha is required for integer T (a shape rule of the spec)
  CHECK_THROWS_WITH_AS(Op("AddFwdOp", {{"alpha", 0.5}})({i32, i32}),
                       "AddFwdOp: shape rule 'promote_int_to_float(T) == T or alpha % 1 == 0' fails: T = int32, alpha = 0.5",
                       ValueError);
}

TEST_CASE("index values outside their ranges are value errors raised by the kernel") {
  auto ints_tensor = [](std::initializer_list<int64_t> shape, DType dtype, std::vector<double> v) {
    Tensor t = Tensor::empty(shape, dtype);
    tooling::fill_from_doubles(t, v);
    return t;
  };
  Tensor x = Tensor::empty({2, 1, 4}, dtypes::float32);
  tooling::fill_from_doubles(x, std::vector<double>(8, 1.0));
  Tensor cache = Tensor::empty({3, 4}, dtypes::float32);
  tooling::fill_from_doubles(cache, std::vector<double>(12, 0.5));
  Op rope("RoPEFwdOp");
  CHECK_THROWS_WITH_AS(rope({x, ints_tensor({2}, dtypes::int64, {0, 3}), cache}),
                       "cpu_ref RoPEFwdOp: positions[1] = 3 is outside [0, 3), the rows of cos_sin_cache", ValueError);
  CHECK_THROWS_WITH_AS(rope({x, ints_tensor({2}, dtypes::int32, {-1, 0}), cache}),
                       "cpu_ref RoPEFwdOp: positions[0] = -1 is outside [0, 3), the rows of cos_sin_cache", ValueError);
  CHECK_FALSE(rope.target().has_value());  // a failed call settles nothing
  CHECK(shape_of(rope({x, ints_tensor({2}, dtypes::int64, {2, 0}), cache})[0]) == std::vector<int64_t>{2, 1, 4});

  // paged decode: NB 3 blocks of BS 2, MB 2 blocks per sequence
  Op paged("GroupedQueryAttentionDecodePagedFwdOp");
  Tensor q = Tensor::empty({1, 1, 4}, dtypes::float32);
  Tensor kv = Tensor::empty({3, 2, 1, 4}, dtypes::float32);
  tooling::fill_from_doubles(q, std::vector<double>(4, 0.1));
  tooling::fill_from_doubles(kv, std::vector<double>(24, 0.2));
  CHECK_THROWS_WITH_AS(paged({q, kv, kv, ints_tensor({1, 2}, dtypes::int32, {0, 1}), ints_tensor({1}, dtypes::int32, {5})}),
                       "cpu_ref GroupedQueryAttentionDecodePagedFwdOp: seq_lens[0] = 5 is outside [1, 4] "
                       "(block_table's row of 2 blocks of 2 tokens)",
                       ValueError);
  CHECK_THROWS_WITH_AS(paged({q, kv, kv, ints_tensor({1, 2}, dtypes::int32, {0, 1}), ints_tensor({1}, dtypes::int32, {0})}),
                       doctest::Contains("seq_lens[0] = 0 is outside [1, 4]"), ValueError);
  CHECK_THROWS_WITH_AS(paged({q, kv, kv, ints_tensor({1, 2}, dtypes::int32, {1, 3}), ints_tensor({1}, dtypes::int32, {4})}),
                       doctest::Contains("block_table[0, 1] = 3"), ValueError);
  // a block id past the sequence's length is never read
  Tensor o = paged({q, kv, kv, ints_tensor({1, 2}, dtypes::int32, {2, 7}), ints_tensor({1}, dtypes::int32, {2})})[0];
  CHECK(tooling::to_doubles(o) == round_to(dtypes::float32, std::vector<double>(4, 0.2)));
}
