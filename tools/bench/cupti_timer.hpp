#pragma once
// The `cupti` timing: GPU start and end timestamps of every kernel, memset and memcpy a
// call launched, from CUPTI activity records (libcupti opened with dlopen). A call's
// time runs from its first device activity's start to its last one's end.
//
// Attribution: begin() pushes an external correlation id and end() pops it; CUPTI then
// emits, for each driver or runtime API call made in between, a record tying the API
// call's correlation id to ours, and each device activity carries the correlation id of
// the API call that launched it. So all kernels of one call are found, however many
// the op launches, and the L2 flush between calls (outside the bracket) is not.
#include "timer.hpp"

#include <cuda.h>

#include <cstdint>
#include <vector>

namespace tileops::bench {

class CuptiTimer final : public Timer {
 public:
  // Opens libcupti and enables the activity kinds it needs; throws BackendError with the
  // reason when it cannot (no library, a CUPTI too old for the driver, ...).
  explicit CuptiTimer(CUstream stream);
  ~CuptiTimer() override;
  CuptiTimer(const CuptiTimer&) = delete;
  CuptiTimer& operator=(const CuptiTimer&) = delete;

  std::string_view name() const override { return "cupti"; }
  void begin() override;
  void end() override;
  // Synchronizes the stream and flushes CUPTI's buffers; throws BackendError when a
  // bracketed call left no device activity (nothing launched, or records were lost).
  std::vector<double> collect() override;

 private:
  CUstream stream_;
  std::vector<uint64_t> ids_;  // the external ids of the calls bracketed since the last collect
};

}  // namespace tileops::bench
