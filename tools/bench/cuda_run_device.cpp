#include "cuda_run_device.hpp"

#include "cublaslt_baseline.hpp"
#include "cuda_driver.hpp"
#include "cuda_event_timer.hpp"
#include "cupti_timer.hpp"

#include <tileops/backend.hpp>
#include <tileops/errors.hpp>
#include <tileops/stream.hpp>
#include <tileops/tensor.hpp>

#include <algorithm>
#include <fstream>
#include <regex>

namespace tileops::bench {
namespace {

// "580.65.06 (CUDA 13.0)": the kernel module's version when Linux shows it, and the
// driver API version.
std::string driver_text(const CudaDriver& d) {
  int api = 0;
  d.check(d.cuDriverGetVersion(&api), "cuDriverGetVersion");
  const std::string cuda = "CUDA " + std::to_string(api / 1000) + "." + std::to_string(api % 1000 / 10);
  std::ifstream module("/proc/driver/nvidia/version");
  std::string line;
  std::smatch m;
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..."
  if (std::getline(module, line) && std::regex_search(line, m, std::regex(R"(Kernel Module.*?\s(\d+\.\d+(?:\.\d+)*)\s)")))
    return m[1].str() + " (" + cuda + ")";
  return cuda;
}

class CudaRunDevice final : public RunDevice {
 public:
  CudaRunDevice(const Device& device, const TimingChoice& choice) : device_(device) {
    const CudaDriver& d = cuda_driver();
    CUdevice dev = 0;
    d.check(d.cuDeviceGet(&dev, std::max(device.index(), 0)), "cuDeviceGet");
    // The plugin works in the primary context; events and memsets must be made there.
    CUcontext context = nullptr;
    d.check(d.cuDevicePrimaryCtxRetain(&context, dev), "cuDevicePrimaryCtxRetain");
    d.check(d.cuCtxSetCurrent(context), "cuCtxSetCurrent");
    char name[256] = {};
    d.check(d.cuDeviceGetName(name, sizeof name, dev), "cuDeviceGetName");
    description_ = {name, driver_text(d)};
    int l2 = 0;
    d.check(d.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev), "reading the L2 size");
    // At least twice the L2 (PERFORMANCE.md: >= 120 MB on an H200), so no line survives.
    flush_bytes_ = std::max(size_t(2) * size_t(l2), size_t(128) << 20);

    load_plugins();
    stream_ = std::make_unique<Stream>(device_);
    guard_ = std::make_unique<StreamGuard>(device_, stream_->handle());
    flush_ = Tensor::empty({int64_t(flush_bytes_)}, dtypes::uint8, device_);
    timer_ = open_timer(choice);
  }

  const Device& device() const override { return device_; }
  const DeviceDescription& description() const override { return description_; }
  Timer& timer() override { return *timer_; }
  const std::string& timing_note() const override { return timing_note_; }
  size_t flush_bytes() const override { return flush_bytes_; }

  void flush_caches() override {
    const CudaDriver& d = cuda_driver();
    // A new byte each time, so that no flush is a no-op the memory system could elide.
    d.check(d.cuMemsetD8Async(CUdeviceptr(flush_.data()), ++flush_value_, flush_bytes_, stream()), "L2 flush");
  }

  std::unique_ptr<Baseline> matmul_baseline(const MatmulCall& call, std::string& why) override {
    try {
      return cublaslt_matmul(call);
    } catch (const Error& e) {
      why = e.what();
      return nullptr;
    }
  }

 private:
  CUstream stream() const { return static_cast<CUstream>(stream_->handle()); }

  // CUPTI, checked on one flush that it sees device work; CUDA events when it fails and
  // the caller allowed them.
  std::unique_ptr<Timer> open_timer(const TimingChoice& choice) {
    try {
      auto cupti = std::make_unique<CuptiTimer>(stream());
      cupti->begin();
      flush_caches();
      cupti->end();
      cupti->collect();
      return cupti;
    } catch (const BackendError& e) {
      if (!choice.allow_events_fallback)
        throw BackendError(std::string(e.what()) + "; pass --allow-events-fallback to time with CUDA events");
      timing_note_ = std::string(e.what()) + "; timed with CUDA events instead";
      return std::make_unique<CudaEventTimer>(stream());
    }
  }

  Device device_;
  DeviceDescription description_;
  size_t flush_bytes_ = 0;
  unsigned char flush_value_ = 0;
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<StreamGuard> guard_;  // ops, copies and allocations go to stream_
  Tensor flush_;
  std::string timing_note_;
  std::unique_ptr<Timer> timer_;
};

}  // namespace

std::unique_ptr<RunDevice> open_cuda_run_device(const Device& device, const TimingChoice& choice) {
  return std::make_unique<CudaRunDevice>(device, choice);
}

}  // namespace tileops::bench
