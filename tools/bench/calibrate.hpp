#pragma once
// `tileops bench --calibrate`: the ceilings a device reaches in practice, measured the
// way cases are timed: a large device-to-device copy (bandwidth) and a large cuBLASLt
// bf16 GEMM (tensor-core throughput).
#include "profile.hpp"
#include "run_device.hpp"
#include "stats.hpp"

#include <string>

namespace tileops::bench {

struct CalibrationReport {
  Calibration values;
  double copy_bytes = 0;   // read + written per copy
  int64_t gemm_size = 0;   // the GEMM is size x size x size
  Spread copy_time, gemm_time;
};

// Needs a device with a vendor GEMM (CUDA); throws BackendError otherwise.
CalibrationReport calibrate(RunDevice& device, int warmup, int reps);

}  // namespace tileops::bench
