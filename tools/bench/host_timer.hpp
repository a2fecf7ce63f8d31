#pragma once
// The `host` timing: the device runtime's synchronize around each call and a host
// clock. What the CPU (and any device without a timer of its own) is timed with.
#include "timer.hpp"

#include <tileops/device.hpp>

#include <chrono>

namespace tileops::bench {

class HostTimer final : public Timer {
 public:
  explicit HostTimer(Device device) : device_(device) {}
  std::string_view name() const override { return "host"; }
  void begin() override;
  void end() override;
  std::vector<double> collect() override;

 private:
  Device device_;
  std::chrono::steady_clock::time_point start_;
  std::vector<double> durations_us_;
};

}  // namespace tileops::bench
