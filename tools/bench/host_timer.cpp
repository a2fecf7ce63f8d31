#include "host_timer.hpp"

#include <tileops/stream.hpp>

#include <utility>

namespace tileops::bench {

void HostTimer::begin() {
  synchronize(device_);  // earlier work must not be counted
  start_ = std::chrono::steady_clock::now();
}

void HostTimer::end() {
  synchronize(device_);
  durations_us_.push_back(
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start_).count());
}

std::vector<double> HostTimer::collect() { return std::exchange(durations_us_, {}); }

}  // namespace tileops::bench
