#pragma once
// Which baseline a case is compared with: cuBLASLt for GemmFwdOp and BmmFwdOp, a copy
// of the same bytes for the other memory-bound (cuda_core roof) ops, none otherwise.
#include "run_device.hpp"

#include <tileops/op.hpp>

#include <memory>
#include <span>
#include <string>

namespace tileops::bench {

// nullptr with `why` set when the case has no baseline on this device.
std::unique_ptr<Baseline> baseline_for(const Op& op, std::string_view roof_key, std::span<const Tensor> inputs,
                                       double bytes, RunDevice& device, std::string& why);

}  // namespace tileops::bench
