#include "run_device.hpp"

#include "cuda_run_device.hpp"
#include "host_timer.hpp"

#include <tileops/backend.hpp>

#include <fstream>

namespace tileops::bench {
namespace {

// The processor's model ("AMD EPYC 9454 48-Core Processor") from /proc/cpuinfo for the
// CPU; the device itself otherwise.
std::string host_name(const Device& device) {
  if (!device.is_cpu()) return device.str();
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.starts_with("model name")) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return device.str();
}

// Any device but CUDA: no cache flush, no vendor library, the host clock.
class HostRunDevice final : public RunDevice {
 public:
  explicit HostRunDevice(const Device& device) : device_(device), description_{host_name(device), ""}, timer_(device) {}
  const Device& device() const override { return device_; }
  const DeviceDescription& description() const override { return description_; }
  Timer& timer() override { return timer_; }
  const std::string& timing_note() const override { return note_; }
  void flush_caches() override {}
  size_t flush_bytes() const override { return 0; }
  std::unique_ptr<Baseline> matmul_baseline(const MatmulCall&, std::string& why) override {
    why = "no vendor GEMM on " + std::string(device_.type());
    return nullptr;
  }

 private:
  Device device_;
  DeviceDescription description_;
  HostTimer timer_;
  std::string note_;
};

}  // namespace

std::unique_ptr<RunDevice> open_run_device(const Device& device, const TimingChoice& choice) {
  if (device.type() == "cuda") return open_cuda_run_device(device, choice);
  load_plugins();  // a plugin provides the device's runtime
  return std::make_unique<HostRunDevice>(device);
}

}  // namespace tileops::bench
