#pragma once
// Copies between strided views of one shape on one device: what the device runtime's
// copy_strided does, and how a kernel writes back an in-place input that arrived
// strided. Dims are coalesced first; what is left as one contiguous run or a pitched
// 2-D copy goes through cuMemcpy*Async, the rest through the strided_copy kernel.
#include "devices.hpp"

#include <tileops/sdk/shape.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace tileops::cuda {

// Strides in elements; everything is queued on `stream`. The device must be current.
void copy_views(const DeviceInfo& device, void* dst, std::span<const int64_t> dst_strides, const void* src,
                std::span<const int64_t> src_strides, std::span<const int64_t> shape, size_t itemsize,
                void* stream);
// Loads the strided_copy kernel for `itemsize` so a later copy_views compiles nothing.
void preload_copy_kernel(const DeviceInfo& device, size_t itemsize);
// True when `strides` are the contiguous strides of `shape` (size-1 dims ignored).
bool is_contiguous(std::span<const int64_t> shape, std::span<const int64_t> strides);
using sdk::contiguous_strides;

}  // namespace tileops::cuda
