#pragma once
// A CUDA device for the benchmark (see run_device.hpp). Built from cuda_run_device.cpp
// when the CUDA headers are there, else from no_cuda_run_device.cpp, which refuses.
#include "run_device.hpp"

namespace tileops::bench {

std::unique_ptr<RunDevice> open_cuda_run_device(const Device& device, const TimingChoice& choice);

}  // namespace tileops::bench
