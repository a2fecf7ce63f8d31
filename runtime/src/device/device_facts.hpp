#pragma once
// What kernel selection knows of a device, from the reader its type registered.
// An unregistered type reports arch -1, no calibration, sm_count 0, smem_budget 0.
#include <tileops/abi.h>
#include <tileops/device.hpp>

#include <optional>
#include <string>

namespace tileops::detail {

struct DeviceFacts {
  int32_t arch = -1;
  std::optional<std::string> calibration;
  int32_t sm_count = 0;
  int64_t smem_budget = 0;

  // Valid while this object lives.
  tileops_device_facts view() const {
    return {sizeof(tileops_device_facts), arch, calibration ? calibration->c_str() : nullptr,
            sm_count, smem_budget};
  }
};

// Runs the registered reader; a reader that fails, throws or returns an invalid
// value raises a BackendError naming it.
DeviceFacts read_device_facts(const Device& device);

}  // namespace tileops::detail
