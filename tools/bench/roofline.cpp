#include "roofline.hpp"

#include <tileops/manifest/bound_signature.hpp>

#include <algorithm>
#include <vector>

namespace tileops::bench {

CaseCost case_cost(const manifest::OpSpec& spec, const manifest::WorkloadCase& c) {
  std::vector<TensorDesc> descs(c.inputs.size());
  std::vector<const TensorDesc*> pointers(c.inputs.size(), nullptr);
  CaseCost cost;
  for (size_t i = c.inputs.size(); i-- > 0;) {  // backwards: the first input's dtype is kept
    if (!c.inputs[i]) continue;
    descs[i] = {Device::cpu(), c.inputs[i]->dtype, view(c.inputs[i]->shape)};
    pointers[i] = &descs[i];
    cost.dtype = c.inputs[i]->dtype;
  }
  auto bound = spec.bind(c.params);
  manifest::CallCheck check;
  bound->check(pointers, {}, check);
  const manifest::Roofline roof = bound->roofline(check);
  cost.flops = roof.flops;
  cost.bytes = roof.bytes;
  cost.roof_key = spec.roof_key();
  return cost;
}

Roofs roofs_of(const DeviceProfile& profile) {
  Roofs r{profile.id, profile.bandwidth_tbps, profile.peaks_tflops, profile.calibration.has_value()};
  if (profile.calibration) {
    r.bandwidth_tbps = profile.calibration->copy_tbps;
    // One tensor-core datapath serves bf16 and fp16 at the same rate on the GPUs profiled.
    r.peaks_tflops["tensor_core_bf16_tflops"] = profile.calibration->gemm_bf16_tflops;
    r.peaks_tflops["tensor_core_fp16_tflops"] = profile.calibration->gemm_bf16_tflops;
  }
  return r;
}

std::string peak_key(std::string_view roof_key, DType dtype) {
  if (roof_key == "tensor_core") {
    if (dtype == dtypes::bfloat16) return "tensor_core_bf16_tflops";
    if (dtype == dtypes::float16) return "tensor_core_fp16_tflops";
    if (dtype == dtypes::float8_e4m3fn || dtype == dtypes::float8_e5m2) return "tensor_core_fp8_tflops";
  }
  return "cuda_core_fp32_tflops";
}

std::optional<Floor> roofline_floor(const CaseCost& cost, const Roofs& roofs) {
  Floor f;
  f.peak = peak_key(cost.roof_key, cost.dtype);
  auto peak = roofs.peaks_tflops.find(f.peak);
  if (peak == roofs.peaks_tflops.end() || roofs.bandwidth_tbps <= 0) return std::nullopt;
  const double memory_us = cost.bytes / (roofs.bandwidth_tbps * 1e12) * 1e6;
  const double compute_us = cost.flops / (peak->second * 1e12) * 1e6;
  f.us = std::max(memory_us, compute_us);
  f.compute_bound = compute_us > memory_us;
  return f;
}

std::string_view verdict(double efficiency) {
  if (efficiency > 1.05) return "anomaly";
  if (efficiency >= 0.8) return "at ceiling";
  return "below ceiling";
}

}  // namespace tileops::bench
