#pragma once
// Value errors that only a kernel can see (a RoPE position outside the cache), reported
// without a host synchronisation at launch and safely inside captured CUDA graphs.
//
// Each device has one record in page-locked host memory mapped into the device, plus a
// claim word in device memory. A kernel that finds a bad value claims the record's
// current epoch with atomicMax on the claim word (first finder wins), writes what it
// found, fences, and sets `raised` to epoch + 1 (kernels/common.cuh, raise_value_error).
// The host checks the record, a plain read of host memory, at every synchronize of the
// device's runtime and at every launch of this plugin's kernels on the device; a report
// there is consumed (epoch + 1) and turned into TILEOPS_ERR_INVALID_ARGUMENT naming the
// bad value. The record's addresses never change, so graphs captured once keep
// reporting on every replay.
#include "../kernels/params.cuh"
#include "devices.hpp"

namespace tileops::cuda {

// The device's slot, created on first use (the device must be current).
tileops_cuda::ValueErrorSlot value_error_slot(const DeviceInfo& device);

// Throws sdk::Failure (TILEOPS_ERR_INVALID_ARGUMENT) when a kernel on device `index`
// reported a value error since the last check, consuming the report. One atomic load
// when the device has no record yet, two reads of host memory otherwise.
void raise_pending_value_error(int index);

}  // namespace tileops::cuda
