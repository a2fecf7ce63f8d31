#pragma once
// The "cuda" device runtime (memory, copies, streams) and device facts reader the
// plugin registers. Nothing here touches the driver until the host calls it.
#include <tileops/abi.h>

namespace tileops::cuda {

const tileops_device_runtime& device_runtime();
tileops_status read_device_facts(void* user, const tileops_device* device, tileops_device_facts* out,
                                 tileops_error* err);

}  // namespace tileops::cuda
