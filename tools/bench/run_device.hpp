#pragma once
// The device a benchmark runs on, as the case loop needs it: what it is, how calls
// are timed, how caches are emptied between calls, and the library baseline it offers.
#include "baseline.hpp"
#include "timer.hpp"

#include <tileops/device.hpp>

#include <cstddef>
#include <memory>
#include <string>

namespace tileops::bench {

struct DeviceDescription {
  std::string name;    // "NVIDIA H200" (the CUDA device facts' calibration string), "cpu"
  std::string driver;  // "580.65.06 (CUDA 13.0)"; empty on the CPU
};

struct TimingChoice {
  bool allow_events_fallback = false;  // CUDA: time with events when CUPTI fails
};

class RunDevice {
 public:
  virtual ~RunDevice() = default;
  virtual const Device& device() const = 0;
  virtual const DeviceDescription& description() const = 0;
  virtual Timer& timer() = 0;
  // Why the timer is not the preferred one ("CUPTI: ..."), or empty.
  virtual const std::string& timing_note() const = 0;
  // Leaves nothing of earlier calls in the device's caches (L2 on CUDA); called before
  // every timed call, outside its bracket.
  virtual void flush_caches() = 0;
  // Bytes each flush writes (0: none).
  virtual size_t flush_bytes() const = 0;
  // A vendor GEMM of `call`'s shapes on its tensors, or nullptr with `why` set.
  virtual std::unique_ptr<Baseline> matmul_baseline(const MatmulCall& call, std::string& why) = 0;
};

// CUDA devices get CUPTI (or CUDA events), an L2 flush and cuBLASLt; every other
// device the host timer. Throws BackendError when a CUDA device cannot be opened.
std::unique_ptr<RunDevice> open_run_device(const Device& device, const TimingChoice& choice);

}  // namespace tileops::bench
