// Call checks on the real specs and on the test specs: unification, inference and the
// exact messages of failures.
#include "test_support.hpp"

using namespace tileops;
using namespace tileops::manifest;
using namespace tileops::manifest::test;
using std::nullopt;
using Shape = std::vector<int64_t>;

namespace {
constexpr DType f16 = dtypes::float16, bf16 = dtypes::bfloat16, f32 = dtypes::float32, i32 = dtypes::int32,
                i64 = dtypes::int64;
}

TEST_CASE("RMSNorm: splices of a Shape index and of a list param") {
  auto rms = bind_op(real_specs(), "RMSNormFwdOp", {{"normalized_shape", ints({4096})}});
  Call call;
  CHECK(call.check(*rms, {T{f16, {2048, 4096}}, T{f16, {4096}}}) == "");
  CHECK(call.shape(0) == Shape{2048, 4096});
  CHECK(call.dtype(0) == f16);
  CHECK(call.result.device() == cuda0());
  CHECK(call.check(*rms, {T{bf16, {4096}}, nullopt}) == "");  // B = []
  CHECK(call.shape(0) == Shape{4096});
  CHECK(call.check(*rms, {T{f32, {2, 3, 4096}}, nullopt}) == "");
  CHECK(call.shape(0) == Shape{2, 3, 4096});

  CHECK(check(*rms, {T{f16, {2048, 4096}}, T{f16, {4095}}}) ==
        "RMSNormFwdOp: input 'weight' has shape [4095]; the signature needs [*normalized_shape] = [4096]");
  CHECK(check(*rms, {T{f16, {2, 4095}}, nullopt}) ==
        "RMSNormFwdOp: input 'x' has shape [2, 4095]; the signature needs [*B, *normalized_shape] = [2, 4096]");
  CHECK(check(*rms, {T{f16, {}}, nullopt}) ==
        "RMSNormFwdOp: input 'x' has shape []; the signature needs [*B, *normalized_shape] = [*B, 4096]: at least 1 axis");
  CHECK(check(*rms, {T{i32, {2, 4096}}, nullopt}) ==
        "RMSNormFwdOp: input 'x' has dtype int32; T must be one of float32, float16, bfloat16");
  CHECK(check(*rms, {T{f16, {2, 4096}}, T{f32, {4096}}}) ==
        "RMSNormFwdOp: input 'weight' has dtype float32; T = float16 (bound by input 'x')");
  CHECK(check(*rms, {nullopt, T{f16, {4096}}}) == "RMSNormFwdOp: missing required input 'x'");
  CHECK(check(*rms, {T{f16, {2, 4096}}, T{f16, {4096}, Device::cpu()}}) ==
        "RMSNormFwdOp: inputs on several devices: 'x' on cuda:0, 'weight' on cpu");
  CHECK(check(*rms, {T{f16, {2, 4096}}}) ==
        "RMSNormFwdOp: takes 2 inputs (nullptr for an omitted optional one), got 1");
}

TEST_CASE("RMSNorm: a two-axis normalized_shape and the settled params") {
  auto rms = bind_op(real_specs(), "RMSNormFwdOp", {{"normalized_shape", ints({8, 16})}, {"eps", ParamValue(1e-5)}});
  CHECK(rms->params()[0] == ParamValue(std::vector<int64_t>{8, 16}));
  CHECK(rms->params()[1] == ParamValue(1e-5));
  CHECK(rms->input_optional(1));
  CHECK_FALSE(rms->input_optional(0));
  Call call;
  CHECK(call.check(*rms, {T{f16, {5, 8, 16}}, T{f16, {8, 16}}}) == "");
  CHECK(call.shape(0) == Shape{5, 8, 16});
  CHECK(check(*rms, {T{f16, {5, 16, 8}}, nullopt}) ==
        "RMSNormFwdOp: input 'x' has shape [5, 16, 8]; the signature needs [*B, *normalized_shape] = [5, 8, 16]");
  auto null_eps = bind_op(real_specs(), "RMSNormFwdOp", {{"normalized_shape", ints({4})}});
  CHECK(std::holds_alternative<std::monostate>(null_eps->params()[1]));
}

TEST_CASE("bind: unknown, missing, mistyped and out-of-domain params") {
  CHECK(bind_error(real_specs(), "RMSNormFwdOp", {{"normalized_shape", ints({4096})}, {"epsilon", ParamValue(1e-5)}}) ==
        "RMSNormFwdOp: unknown parameter 'epsilon'; did you mean 'eps'?");
  CHECK(bind_error(real_specs(), "RMSNormFwdOp", {{"zzz", 1}, {"normalized_shape", ints({4096})}}) ==
        "RMSNormFwdOp: unknown parameter 'zzz'; parameters are normalized_shape, eps");
  CHECK(bind_error(real_specs(), "ReluFwdOp", {{"inplace", ParamValue(true)}}) ==
        "ReluFwdOp: unknown parameter 'inplace'; ReluFwdOp takes no parameters");
  CHECK(bind_error(real_specs(), "RMSNormFwdOp", {}) == "RMSNormFwdOp: missing required parameter 'normalized_shape'");
  CHECK(bind_error(real_specs(), "RMSNormFwdOp", {{"normalized_shape", ints({})}}) ==
        "RMSNormFwdOp: shape rule 'len(normalized_shape) > 0' fails: normalized_shape = []");
  CHECK(bind_error(real_specs(), "RMSNormFwdOp", {{"normalized_shape", 4096}}) ==
        "RMSNormFwdOp: parameter 'normalized_shape' must be list[int] | tuple[int, ...], got int 4096");
  CHECK(bind_error(real_specs(), "RMSNormFwdOp", {{"normalized_shape", ints({4})}, {"eps", "small"}}) ==
        "RMSNormFwdOp: parameter 'eps' must be float | None, got str 'small'");
  CHECK(bind_error(real_specs(), "RMSNormFwdOp", {{"normalized_shape", ints({4})}, {"normalized_shape", ints({4})}}) ==
        "RMSNormFwdOp: parameter 'normalized_shape' given twice");
  CHECK(bind_error(real_specs(), "GeluFwdOp", {{"approximate", "fast"}}) ==
        "GeluFwdOp: parameter 'approximate' must be one of 'none', 'tanh', got 'fast'");
  CHECK(bind_error(real_specs(), "GeluFwdOp", {{"approximate", "tanh"}}) == "");
  CHECK(bind_error(real_specs(), "AddFwdOp", {{"alpha", 2}}) == "");  // an int where a float is declared
  CHECK(bind_error(real_specs(), "GemmFwdOp", {{"trans_a", 1}}) ==
        "GemmFwdOp: parameter 'trans_a' must be bool, got int 1");
  CHECK(bind_error(test_specs(), "HostMetaFwdOp", {{"out_dtype", dtypes::bfloat16}}) ==
        "HostMetaFwdOp: parameter 'out_dtype' must be DType[float32 | float16] | None, got bfloat16");
  CHECK(bind_error(test_specs(), "HostMetaFwdOp", {{"out_dtype", "float16"}}) == "");
}

TEST_CASE("GEMM: the Mat type family selects the layout at bind") {
  struct Case {
    bool ta, tb;
    Shape a, b;
  };
  for (const Case& c : {Case{false, false, {64, 32}, {32, 16}}, Case{true, false, {32, 64}, {32, 16}},
                        Case{false, true, {64, 32}, {16, 32}}, Case{true, true, {32, 64}, {16, 32}}}) {
    CAPTURE(c.ta);
    CAPTURE(c.tb);
    auto gemm = bind_op(real_specs(), "GemmFwdOp", {{"trans_a", ParamValue(c.ta)}, {"trans_b", ParamValue(c.tb)}});
    Call call;
    CHECK(call.check(*gemm, {T{bf16, c.a}, T{bf16, c.b}}) == "");
    CHECK(call.shape(0) == Shape{64, 16});
  }
  auto gemm = bind_op(real_specs(), "GemmFwdOp");
  CHECK(check(*gemm, {T{f16, {2048, 1024}}, T{f16, {4096, 512}}}) ==
        "GemmFwdOp: input 'b' has shape [4096, 512]; K = 1024 (bound by input 'a') but axis 0 is 4096");
  auto gemm_t = bind_op(real_specs(), "GemmFwdOp", {{"trans_b", ParamValue(true)}});
  CHECK(check(*gemm_t, {T{f16, {2048, 1024}}, T{f16, {512, 4096}}}) ==
        "GemmFwdOp: input 'b' has shape [512, 4096]; K = 1024 (bound by input 'a') but axis 1 is 4096");
  CHECK(check(*gemm, {T{f16, {2048, 1024, 1}}, T{f16, {1024, 512}}}) ==
        "GemmFwdOp: input 'a' has shape [2048, 1024, 1]; the signature needs [M, K]: 2 axes");
  CHECK(check(*gemm, {T{f16, {8, 8}}, T{bf16, {8, 8}}}) ==
        "GemmFwdOp: input 'b' has dtype bfloat16; T = float16 (bound by input 'a')");
}

TEST_CASE("a*M + e solves M, checking divisibility and sign") {
  auto silu = bind_op(real_specs(), "SiluAndMulFwdOp");
  Call call;
  CHECK(call.check(*silu, {T{bf16, {4096, 28672}}}) == "");
  CHECK(call.shape(0) == Shape{4096, 14336});
  CHECK(call.check(*silu, {T{bf16, {2, 3, 0}}}) == "");
  CHECK(call.shape(0) == Shape{2, 3, 0});
  CHECK(check(*silu, {T{bf16, {4, 7}}}) ==
        "SiluAndMulFwdOp: input 'x' has shape [4, 7]; axis 1 = 7 must be 2 * N, which has no integer solution for N");
  CHECK(check(*silu, {T{bf16, {}}}) ==
        "SiluAndMulFwdOp: input 'x' has shape []; the signature needs [*B, 2 * N]: at least 1 axis");

  auto affine = bind_op(test_specs(), "AffineFwdOp", {{"extra", 3}});
  CHECK(call.check(*affine, {T{f32, {5, 11}}}) == "");
  CHECK(call.shape(0) == Shape{5, 4});
  CHECK(check(*affine, {T{f32, {5, 1}}}) ==
        "AffineFwdOp: input 'x' has shape [5, 1]; axis 1 = 1 must be 2 * N + extra, which gives N = -1 < 0");
  CHECK(check(*affine, {T{f32, {5, 4}}}) ==
        "AffineFwdOp: input 'x' has shape [5, 4]; axis 1 = 4 must be 2 * N + extra, which has no integer solution for N");
}

TEST_CASE("items that wait for a later input, and solving with other indices bound") {
  auto late = bind_op(test_specs(), "LateBindFwdOp");
  Call call;
  CHECK(call.check(*late, {T{f32, {11, 4}}, T{f32, {8}}}) == "");  // M + K = 11, K // 2 = 4, K = 8
  CHECK(call.shape(0) == Shape{3});
  CHECK(check(*late, {T{f32, {11, 3}}, T{f32, {8}}}) ==
        "LateBindFwdOp: input 'a' has shape [11, 3]; the signature needs [M + K, K // 2] = [11, 4]");
  CHECK(check(*late, {T{f32, {5, 4}}, T{f32, {8}}}) ==
        "LateBindFwdOp: input 'a' has shape [5, 4]; axis 0 = 5 must be M + K, which gives M = -3 < 0");
}

TEST_CASE("shape rules over indices and params") {
  auto gn = bind_op(real_specs(), "GroupNormFwdOp", {{"num_groups", 4}});
  Call call;
  CHECK(call.check(*gn, {T{f16, {2, 32, 8, 8}}, T{f16, {32}}, T{f16, {32}}}) == "");
  CHECK(call.shape(0) == Shape{2, 32, 8, 8});
  CHECK(check(*gn, {T{f16, {2, 30, 8, 8}}, nullopt, nullopt}) ==
        "GroupNormFwdOp: shape rule 'num_groups > 0 and C % num_groups == 0' fails: num_groups = 4, C = 30");
  CHECK(check(*gn, {T{f16, {2, 32}}, T{f16, {30}}, nullopt}) ==
        "GroupNormFwdOp: input 'weight' has shape [30]; C = 32 (bound by input 'x') but axis 0 is 30");

  auto softmax = bind_op(real_specs(), "SoftmaxFwdOp", {{"dim", 2}});
  CHECK(check(*softmax, {T{f32, {4, 5, 6}}}) == "");
  CHECK(check(*softmax, {T{f32, {4, 5}}}) ==
        "SoftmaxFwdOp: shape rule 'valid_axes(dim, max(len(S), 1))' fails: dim = 2, S = [4, 5]");
  auto softmax0 = bind_op(real_specs(), "SoftmaxFwdOp", {{"dim", 0}});
  CHECK(check(*softmax0, {T{f32, {}}}) == "");  // rank 0 accepts dim 0 and -1

  auto argmax = bind_op(real_specs(), "ArgmaxFwdOp", {{"dim", 1}});
  Call a;
  CHECK(a.check(*argmax, {T{bf16, {3, 5}}}) == "");
  CHECK(a.shape(0) == Shape{3});
  CHECK(a.dtype(0) == i64);
  CHECK(check(*argmax, {T{bf16, {3, 0}}}) ==
        "ArgmaxFwdOp: shape rule '(len(S) == 0 or S[normalize_axis(dim, len(S))] > 0) if present(dim) else prod(S) > 0' "
        "fails: S = [3, 0], dim = 1");
}

TEST_CASE("broadcast and reduced outputs") {
  auto add = bind_op(real_specs(), "AddFwdOp");
  Call call;
  CHECK(call.check(*add, {T{f32, {3, 1, 4}}, T{f32, {5, 1}}}) == "");
  CHECK(call.shape(0) == Shape{3, 5, 4});
  CHECK(check(*add, {T{f32, {3, 4}}, T{f32, {5}}}) == "AddFwdOp: inputs 'a' and 'b' do not broadcast: [3, 4] and [5]");
  auto add_int = bind_op(real_specs(), "AddFwdOp", {{"alpha", ParamValue(0.5)}});
  CHECK(check(*add_int, {T{i32, {3}}, T{i32, {3}}}) ==
        "AddFwdOp: shape rule 'promote_int_to_float(T) == T or alpha % 1 == 0' fails: T = int32, alpha = 0.5");
  CHECK(check(*add_int, {T{f32, {3}}, T{f32, {3}}}) == "");

  auto sum = bind_op(real_specs(), "SumFwdOp", {{"dim", ints({0, -1})}, {"keepdim", ParamValue(true)}});
  CHECK(call.check(*sum, {T{f32, {2, 3, 4}}}) == "");
  CHECK(call.shape(0) == Shape{1, 3, 1});
  auto sum_all = bind_op(real_specs(), "SumFwdOp");
  CHECK(call.check(*sum_all, {T{f32, {2, 3, 4}}}) == "");
  CHECK(call.shape(0) == Shape{});
}

TEST_CASE("one call device; host-side inputs; dtype combos; optional by expression") {
  auto meta = bind_op(test_specs(), "HostMetaFwdOp");
  Call call;
  T x{f32, {4, 16}}, acc{f32, {4, 16}};
  CHECK(call.check(*meta, {x, T{i64, {4}, Device::cpu()}, acc, nullopt}) == "");
  CHECK(call.result.device() == cuda0());
  CHECK(call.dtype(0) == f32);
  CHECK(call.shape(1) == Shape{4, 16});  // the alias output is its input
  CHECK(check(*meta, {x, T{i64, {4}}, acc, nullopt}) ==
        "HostMetaFwdOp: input 'lens' must be on the host (device: cpu), got cuda:0");
  CHECK(check(*meta, {x, T{i32, {4}, Device::cpu()}, acc, nullopt}) ==
        "HostMetaFwdOp: dtypes T = float32, I = int32 are not an allowed combination; dtype_combos allows "
        "{T: float32, I: int64}, {T: float16, I: int32}, {T: bfloat16, I: int32}, {T: bfloat16, I: int64}");
  CHECK(check(*meta, {x, T{i64, {4}, Device::cpu()}, T{f32, {4, 16}, Device("cuda", 1)}, nullopt}) ==
        "HostMetaFwdOp: inputs on several devices: 'x' on cuda:0, 'acc' on cuda:1");

  auto scaled = bind_op(test_specs(), "HostMetaFwdOp", {{"has_scale", ParamValue(true)}, {"out_dtype", "float16"}});
  CHECK_FALSE(scaled->input_optional(3));
  CHECK(scaled->input_mutated(2));
  CHECK(scaled->input_written(2));
  CHECK(scaled->input_contiguous(0));
  CHECK(check(*scaled, {T{f16, {4, 16}}, T{i32, {4}, Device::cpu()}, acc, nullopt}) ==
        "HostMetaFwdOp: missing required input 'scale'");
  Call s;
  CHECK(s.check(*scaled, {T{f16, {4, 16}}, T{i32, {4}, Device::cpu()}, acc, T{f32, {16}}}) == "");
  CHECK(s.dtype(0) == f16);  // out_dtype given
  CHECK(check(*meta, {T{bf16, {4, 16}}, T{i64, {4}, Device::cpu()}, acc, nullopt}) == "");
  CHECK(check(*meta, {x, T{i64, {4}, Device::cpu()}, acc, T{f32, {16}}}) == "");  // optional when not has_scale
}

TEST_CASE("caller-supplied outs and the outputs an implementation produced") {
  auto meta = bind_op(test_specs(), "HostMetaFwdOp");
  T x{f32, {4, 16}}, lens{i64, {4}, Device::cpu()}, acc{f32, {4, 16}};
  Call call;
  CHECK(call.check(*meta, {x, lens, acc, nullopt}, {T{f32, {4, 16}}, nullopt}) == "");
  CHECK(check(*meta, {x, lens, acc, nullopt}, {T{f16, {4, 16}}, nullopt}) ==
        "HostMetaFwdOp: out output 'y' has dtype float16; expected float32");
  CHECK(check(*meta, {x, lens, acc, nullopt}, {T{f32, {4, 15}}, nullopt}) ==
        "HostMetaFwdOp: out output 'y' has shape [4, 15]; expected [4, 16]");
  CHECK(check(*meta, {x, lens, acc, nullopt}, {nullopt, T{f32, {4, 16}}}) ==
        "HostMetaFwdOp: output 'acc_out' does not take a caller buffer (no 'buffer: out' in the spec)");
  CHECK(check(*meta, {x, lens, acc, nullopt}, {T{f32, {4, 16}}}) ==
        "HostMetaFwdOp: has 2 outputs; outs must be empty or have one entry each, got 1");
  auto softmax = bind_op(real_specs(), "SoftmaxFwdOp");
  CHECK(check(*softmax, {T{f32, {4, 8}}}, {T{f32, {4, 8}, Device("cuda", 1)}}) ==
        "SoftmaxFwdOp: inputs on several devices: 'x' on cuda:0, out 'y' on cuda:1");

  // check_outputs: count, shape, dtype, device of what the implementation returned.
  auto rms = bind_op(real_specs(), "RMSNormFwdOp", {{"normalized_shape", ints({8})}});
  CallCheck c;
  std::vector<int64_t> xs{2, 8}, bad{2, 7};
  TensorDesc xd{cuda0(), f16, xs}, good{cuda0(), f16, xs}, wrong_shape{cuda0(), f16, bad}, wrong_device{Device::cpu(), f16, xs};
  const TensorDesc* in[] = {&xd, nullptr};
  rms->check(in, {}, c);
  const TensorDesc* ok[] = {&good};
  CHECK_NOTHROW(rms->check_outputs(ok, c));
  const TensorDesc* shape_bad[] = {&wrong_shape};
  CHECK_THROWS_WITH(rms->check_outputs(shape_bad, c),
                    "RMSNormFwdOp: the implementation's output 'y' has shape [2, 7]; expected [2, 8]");
  const TensorDesc* device_bad[] = {&wrong_device};
  CHECK_THROWS_WITH(rms->check_outputs(device_bad, c),
                    "RMSNormFwdOp: the implementation's output 'y' is on cpu; expected cuda:0");
  CHECK_THROWS_WITH(rms->check_outputs({}, c), "RMSNormFwdOp: the implementation returned 0 outputs; the signature has 1");
}

TEST_CASE("an enum-matched type family, lets and rules over lets") {
  for (auto [layout, shape] : {std::pair{"rows", Shape{6, 4}}, {"cols", Shape{4, 6}}, {"flat", Shape{24}}}) {
    CAPTURE(layout);
    auto packed = bind_op(test_specs(), "PackedFwdOp", {{"layout", layout}});
    Call call;
    CHECK(call.check(*packed, {T{f32, shape}, T{f32, {6}}}) == "");
    CHECK(call.shape(0) == Shape{6, 4});
  }
  auto flat = bind_op(test_specs(), "PackedFwdOp", {{"layout", "flat"}, {"cols", 3}});
  CHECK(check(*flat, {T{f32, {24}}, T{f32, {6}}}) ==
        "PackedFwdOp: input 'r' has shape [6]; R = 8 (bound by input 'x') but axis 0 is 6");
  CHECK(check(*flat, {T{f32, {18}}, T{f32, {6}}}) == "");
  CHECK(check(*flat, {T{f32, {21}}, T{f32, {7}}}) ==
        "PackedFwdOp: shape rule 'half * 2 == area' fails: half = 10, area = 21");
  CHECK(check(*flat, {T{f32, {19}}, T{f32, {6}}}) ==
        "PackedFwdOp: input 'x' has shape [19]; axis 0 = 19 must be R * cols, which has no integer solution for R");
}

TEST_CASE("a CallCheck is reusable across calls and signatures") {
  auto rms = bind_op(real_specs(), "RMSNormFwdOp", {{"normalized_shape", ints({8})}});
  auto gemm = bind_op(real_specs(), "GemmFwdOp");
  Call call;
  CHECK(call.check(*rms, {T{f16, {3, 8}}, nullopt}) == "");
  CHECK(call.check(*gemm, {T{f16, {3, 8}}, T{f16, {8, 5}}}) == "");
  CHECK(call.shape(0) == Shape{3, 5});
  CHECK(call.check(*rms, {T{f16, {2, 2, 8}}, nullopt}) == "");
  CHECK(call.shape(0) == Shape{2, 2, 8});
  auto slot = rms->spec().index_slot("B");
  REQUIRE(slot);
  CHECK(std::vector<int64_t>(call.result.dims(*slot).begin(), call.result.dims(*slot).end()) == Shape{2, 2});
}

TEST_CASE("a composite's step params, settled at bind") {
  auto mlp = bind_op(real_specs(), "SwiGLUMLPFwdOp");
  REQUIRE(mlp->spec().composition().size() == 3);
  const Params& gemm = mlp->composition_params(0);
  REQUIRE(gemm.size() == 1);
  CHECK(gemm[0].name == "trans_b");
  CHECK(gemm[0].value == ParamValue(true));
  CHECK(mlp->composition_params(1).empty());
  CHECK_THROWS(mlp->composition_params(3));
}
