#include "cuda_event_timer.hpp"

namespace tileops::bench {

CudaEventTimer::~CudaEventTimer() {
  for (auto [start, stop] : events_) {
    cuda_driver().cuEventDestroy(start);
    cuda_driver().cuEventDestroy(stop);
  }
}

void CudaEventTimer::begin() {
  const CudaDriver& d = cuda_driver();
  if (used_ == events_.size()) {
    CUevent start = nullptr, stop = nullptr;
    d.check(d.cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
    d.check(d.cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
    events_.emplace_back(start, stop);
  }
  d.check(d.cuEventRecord(events_[used_].first, stream_), "cuEventRecord");
}

void CudaEventTimer::end() {
  const CudaDriver& d = cuda_driver();
  d.check(d.cuEventRecord(events_[used_].second, stream_), "cuEventRecord");
  ++used_;
}

std::vector<double> CudaEventTimer::collect() {
  const CudaDriver& d = cuda_driver();
  std::vector<double> out;
  for (size_t i = 0; i < used_; ++i) {
    d.check(d.cuEventSynchronize(events_[i].second), "cuEventSynchronize");
    float ms = 0;
    d.check(d.cuEventElapsedTime(&ms, events_[i].first, events_[i].second), "cuEventElapsedTime");
    out.push_back(double(ms) * 1e3);
  }
  used_ = 0;
  return out;
}

}  // namespace tileops::bench
