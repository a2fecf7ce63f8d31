#pragma once
// Roofline arithmetic: a case's FLOPs and bytes (the manifest's formulas), the floor
// they put on its time on a device profile, efficiency = floor / measured, a verdict.
#include "profile.hpp"

#include <tileops/dtype.hpp>
#include <tileops/manifest/op_spec.hpp>
#include <tileops/manifest/workload.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace tileops::bench {

struct CaseCost {
  double flops = 0;
  double bytes = 0;
  std::string roof_key;  // "cuda_core" or "tensor_core"
  DType dtype;           // the first input's: what a tensor-core peak is chosen by
};

// From the spec's roofline formulas (bytes derived from the signature when it has none).
CaseCost case_cost(const manifest::OpSpec& spec, const manifest::WorkloadCase& c);

// The ceilings a run is measured against: calibrated values where the profile has them
// (copy bandwidth; bf16 and fp16 tensor-core GEMM), the nominal ones otherwise.
struct Roofs {
  std::string profile;  // the profile's id
  double bandwidth_tbps = 0;
  std::map<std::string, double> peaks_tflops;
  bool calibrated = false;
};
Roofs roofs_of(const DeviceProfile& profile);

// The profile peak a case's FLOPs run at: tensor_core_{bf16,fp16,fp8}_tflops for
// tensor_core ops of those dtypes, cuda_core_fp32_tflops for everything else (fp32
// GEMMs too: they run on CUDA cores unless TF32 is allowed, which cuBLAS does not by
// default).
std::string peak_key(std::string_view roof_key, DType dtype);

struct Floor {
  double us = 0;              // max(bytes / bandwidth, flops / peak)
  bool compute_bound = false;
  std::string peak;           // the peak key used
};
// nullopt when the profile lacks the peak the case needs.
std::optional<Floor> roofline_floor(const CaseCost& cost, const Roofs& roofs);

inline double efficiency(double floor_us, double measured_us) { return floor_us / measured_us; }
// "anomaly" above 1.05 (faster than the roof: a formula or a timing is wrong), "at
// ceiling" from 0.8, else "below ceiling".
std::string_view verdict(double efficiency);

}  // namespace tileops::bench
