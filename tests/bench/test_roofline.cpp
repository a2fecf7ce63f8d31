// Roofline numbers of several specs' workload cases against hand computation, and the
// floor, efficiency and verdict arithmetic.
#include "roofline.hpp"

#include <tileops/manifest/manifest.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace tileops;
using namespace tileops::bench;

namespace {

CaseCost cost_of(const std::string& op, const std::string& case_id) {
  const manifest::OpSpec& spec = *manifest::Manifest::builtin().find(op);
  for (const auto& c : spec.workload_cases())
    if (c.id == case_id) return case_cost(spec, c);
  throw std::runtime_error("no case " + case_id + " of " + op);
}

Roofs test_roofs() {
  Roofs r;
  r.profile = "test";
  r.bandwidth_tbps = 4.0;
  r.peaks_tflops = {{"cuda_core_fp32_tflops", 60}, {"tensor_core_bf16_tflops", 800}};
  return r;
}

}  // namespace

TEST_CASE("RMSNorm with a weight: 4 FLOPs per element; x and y once, the weight once") {
  const CaseCost c = cost_of("RMSNormFwdOp", "llama3-8b-decode-bfloat16");  // x [64, 4096] bf16
  CHECK(c.flops == 4.0 * 64 * 4096);
  CHECK(c.bytes == 64 * 4096 * 2 + 4096 * 2 + 64 * 4096 * 2);
  CHECK(c.roof_key == "cuda_core");
  CHECK(c.dtype == dtypes::bfloat16);
}

TEST_CASE("fused add + RMSNorm: the residual is read and written") {
  const CaseCost c = cost_of("FusedAddRMSNormFwdOp", "llama3-8b-decode-bfloat16");
  CHECK(c.flops == 5.0 * 64 * 4096);
  const double tensor = 64 * 4096 * 2;
  CHECK(c.bytes == tensor /* x */ + 2 * tensor /* residual */ + 4096 * 2 /* weight */ + tensor /* y */);
}

TEST_CASE("RoPE reads only the cache rows its positions select") {
  // B [64], H 8, D 128, P 8192, R 128, bf16 x, int32 positions.
  const CaseCost c = cost_of("RoPEFwdOp", "llama3-8b-k-decode-b64-bfloat16-int32");
  CHECK(c.flops == 3.0 * 64 * 8 * 128);
  CHECK(c.bytes == 64 * 8 * 128 * 2 + 64 * 4 + 64 * 128 * 4 + 64 * 8 * 128 * 2);
}

TEST_CASE("GEMM: 2MNK FLOPs on the tensor-core roof; three matrices moved") {
  const CaseCost bf16 = cost_of("GemmFwdOp", "llama3-70b-o-prefill-b4-bfloat16");  // 8192^3
  CHECK(bf16.flops == 2.0 * 8192 * 8192 * 8192);
  CHECK(bf16.bytes == 3.0 * 8192 * 8192 * 2);
  CHECK(bf16.roof_key == "tensor_core");
  const CaseCost f32 = cost_of("GemmFwdOp", "square-4096-float32");
  CHECK(f32.flops == 2.0 * 4096 * 4096 * 4096);
  CHECK(f32.bytes == 3.0 * 4096 * 4096 * 4);
}

TEST_CASE("the peak a case runs at follows its roof and dtype") {
  CHECK(peak_key("tensor_core", dtypes::bfloat16) == "tensor_core_bf16_tflops");
  CHECK(peak_key("tensor_core", dtypes::float16) == "tensor_core_fp16_tflops");
  CHECK(peak_key("tensor_core", dtypes::float8_e4m3fn) == "tensor_core_fp8_tflops");
  CHECK(peak_key("tensor_core", dtypes::float32) == "cuda_core_fp32_tflops");
  CHECK(peak_key("cuda_core", dtypes::bfloat16) == "cuda_core_fp32_tflops");
}

TEST_CASE("the floor is the larger of the memory and compute times") {
  const Roofs roofs = test_roofs();
  const auto norm = roofline_floor(cost_of("RMSNormFwdOp", "llama3-8b-decode-bfloat16"), roofs);
  REQUIRE(norm);
  CHECK(norm->us == doctest::Approx(1056768 / 4e12 * 1e6));  // 0.264192 us
  CHECK_FALSE(norm->compute_bound);
  CHECK(norm->peak == "cuda_core_fp32_tflops");

  const auto gemm = roofline_floor(cost_of("GemmFwdOp", "llama3-70b-o-prefill-b4-bfloat16"), roofs);
  REQUIRE(gemm);
  CHECK(gemm->us == doctest::Approx(2.0 * 8192 * 8192 * 8192 / 800e12 * 1e6));  // 1374.39 us
  CHECK(gemm->compute_bound);

  // No fp16 tensor-core peak in this profile: no floor rather than a wrong one.
  CHECK_FALSE(roofline_floor(cost_of("GemmFwdOp", "square-4096-float16"), roofs));
}

TEST_CASE("efficiency and verdict") {
  CHECK(efficiency(0.264192, 0.330240) == doctest::Approx(0.8));
  CHECK(verdict(0.8) == "at ceiling");
  CHECK(verdict(1.05) == "at ceiling");
  CHECK(verdict(1.0501) == "anomaly");
  CHECK(verdict(0.7999) == "below ceiling");
}

TEST_CASE("calibrated ceilings replace the nominal bandwidth and bf16/fp16 tensor peaks") {
  DeviceProfile p;
  p.id = "gpu";
  p.name = "Some GPU";
  p.bandwidth_tbps = 4.8;
  p.peaks_tflops = {{"cuda_core_fp32_tflops", 67}, {"tensor_core_bf16_tflops", 989}, {"tensor_core_fp16_tflops", 989}};
  const Roofs nominal = roofs_of(p);
  CHECK(nominal.bandwidth_tbps == 4.8);
  CHECK_FALSE(nominal.calibrated);
  p.calibration = Calibration{"2030-01-01", 4.22, 718};
  const Roofs measured = roofs_of(p);
  CHECK(measured.calibrated);
  CHECK(measured.bandwidth_tbps == 4.22);
  CHECK(measured.peaks_tflops.at("tensor_core_bf16_tflops") == 718);
  CHECK(measured.peaks_tflops.at("tensor_core_fp16_tflops") == 718);
  CHECK(measured.peaks_tflops.at("cuda_core_fp32_tflops") == 67);
}
