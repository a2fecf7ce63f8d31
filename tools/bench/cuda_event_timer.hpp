#pragma once
// The `cuda-events` timing: an event recorded on the stream before and after each call.
// The fallback when CUPTI is unavailable: events also count the gaps between a call's
// kernels and the launch latency of the first, so they read a little high.
#include "cuda_driver.hpp"
#include "timer.hpp"

#include <utility>
#include <vector>

namespace tileops::bench {

class CudaEventTimer final : public Timer {
 public:
  explicit CudaEventTimer(CUstream stream) : stream_(stream) {}
  ~CudaEventTimer() override;
  std::string_view name() const override { return "cuda-events"; }
  void begin() override;
  void end() override;
  std::vector<double> collect() override;

 private:
  CUstream stream_;
  // One pair per call bracketed since the last collect, kept for the next round.
  std::vector<std::pair<CUevent, CUevent>> events_;
  size_t used_ = 0;
};

}  // namespace tileops::bench
