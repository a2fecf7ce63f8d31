// This tileops was configured without the CUDA headers: it has no CUDA timing.
#include "cuda_run_device.hpp"

#include <tileops/errors.hpp>

namespace tileops::bench {

std::unique_ptr<RunDevice> open_cuda_run_device(const Device& device, const TimingChoice&) {
  throw BackendError("cannot benchmark on " + device.str() +
                     ": this tileops was built without the CUDA headers, so it has no CUDA timing");
}

}  // namespace tileops::bench
