// FLOPs and bytes from the formulas (and derived bytes) against hand computation.
#include "test_support.hpp"

using namespace tileops;
using namespace tileops::manifest;
using namespace tileops::manifest::test;
using std::nullopt;

namespace {

Roofline roofline(const BoundSignature& sig, const Ts& inputs) {
  Call call;
  REQUIRE(call.check(sig, inputs) == "");
  return sig.roofline(call.result);
}

constexpr DType f16 = dtypes::float16, bf16 = dtypes::bfloat16, f32 = dtypes::float32;

}  // namespace

TEST_CASE("RMSNorm: flops depend on the optional weight; bytes are derived") {
  auto rms = bind_op(real_specs(), "RMSNormFwdOp", {{"normalized_shape", ints({4096})}});
  Roofline with = roofline(*rms, {T{f16, {2048, 4096}}, T{f16, {4096}}});
  CHECK(with.flops == 4.0 * 2048 * 4096);
  CHECK(with.bytes == 2048.0 * 4096 * 2 + 4096 * 2 + 2048.0 * 4096 * 2);  // x, weight read; y written
  Roofline without = roofline(*rms, {T{f16, {2048, 4096}}, nullopt});
  CHECK(without.flops == 3.0 * 2048 * 4096);
  CHECK(without.bytes == 2.0 * 2048 * 4096 * 2);
}

TEST_CASE("a mutated input is read and written; an alias output is not counted again") {
  auto fused = bind_op(real_specs(), "FusedAddRMSNormFwdOp", {{"normalized_shape", ints({4096})}});
  Roofline r = roofline(*fused, {T{bf16, {64, 4096}}, T{bf16, {64, 4096}}, T{bf16, {4096}}});
  double tensor = 64.0 * 4096 * 2;
  CHECK(r.flops == 5.0 * 64 * 4096);
  CHECK(r.bytes == tensor + 2 * tensor + 4096 * 2 + tensor);  // x, residual (r+w), weight, y
}

TEST_CASE("GEMM: tensor-core roof key, 2MNK flops") {
  auto gemm = bind_op(real_specs(), "GemmFwdOp", {{"trans_b", ParamValue(true)}});
  CHECK(gemm->spec().roof_key() == "tensor_core");
  Roofline r = roofline(*gemm, {T{bf16, {4096, 4096}}, T{bf16, {14336, 4096}}});
  CHECK(r.flops == 2.0 * 4096 * 14336 * 4096);
  CHECK(r.bytes == (4096.0 * 4096 + 14336.0 * 4096 + 4096.0 * 14336) * 2);
}

TEST_CASE("formulas that read an output's shape, lets, and declared bytes") {
  auto mean = bind_op(real_specs(), "MeanFwdOp", {{"dim", ints({2, 3})}, {"keepdim", ParamValue(true)}});
  Roofline m = roofline(*mean, {T{f16, {256, 2048, 7, 7}}});
  CHECK(m.flops == 256.0 * 2048 * 49 + 256.0 * 2048);

  auto rope = bind_op(real_specs(), "RoPEFwdOp");
  Roofline r = roofline(*rope, {T{bf16, {4096, 32, 128}}, T{dtypes::int64, {4096}}, T{f32, {8192, 128}}});
  CHECK(r.flops == 3.0 * 4096 * 32 * 128);
  CHECK(r.bytes == 4096.0 * 32 * 128 * 2 + 4096 * 8 + 4096.0 * 128 * 4 + 4096.0 * 32 * 128 * 2);

  auto gqa = bind_op(real_specs(), "GroupedQueryAttentionFwdOp", {{"is_causal", ParamValue(true)}});
  Roofline full = roofline(*gqa, {T{f16, {1, 32, 4096, 128}}, T{f16, {1, 8, 4096, 128}}, T{f16, {1, 8, 4096, 128}}});
  CHECK(full.flops == 137472507904.0);  // 4 * Bs * Hq * (4096 * 4097 / 2) * D
  CHECK(full.bytes == 83886080.0);
  Roofline short_q = roofline(*gqa, {T{f16, {1, 32, 1024, 128}}, T{f16, {1, 8, 4096, 128}}, T{f16, {1, 8, 4096, 128}}});
  CHECK(short_q.flops == 8598323200.0);
  CHECK(short_q.bytes == 20971520.0);  // a quarter of k and v seen

  auto add = bind_op(real_specs(), "AddFwdOp", {{"alpha", ParamValue(0.5)}});
  CHECK(roofline(*add, {T{f32, {8, 1}}, T{f32, {16}}}).flops == 2.0 * 8 * 16);

  auto packed = bind_op(test_specs(), "PackedFwdOp", {{"layout", "flat"}, {"cols", 3}});
  Roofline p = roofline(*packed, {T{f32, {18}}, T{f32, {6}}});
  CHECK(p.flops == 18 + 9);
  CHECK(p.bytes == (18 + 6 + 18) * 4);
}

TEST_CASE("roofline needs a CallCheck this signature filled") {
  auto rms = bind_op(real_specs(), "RMSNormFwdOp", {{"normalized_shape", ints({8})}});
  CallCheck fresh;
  CHECK_THROWS_WITH(rms->roofline(fresh), "RMSNormFwdOp: roofline() needs a CallCheck this signature checked");
  auto other = bind_op(real_specs(), "RMSNormFwdOp", {{"normalized_shape", ints({8})}});
  Call call;
  REQUIRE(call.check(*other, {T{f16, {2, 8}}, nullopt}) == "");
  CHECK_THROWS(rms->roofline(call.result));
  CHECK(other->roofline(call.result).bytes == other->derived_bytes(call.result));
}
