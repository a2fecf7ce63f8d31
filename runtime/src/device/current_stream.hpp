#pragma once
// Setting the calling thread's current stream without a guard: the C API's
// tileops_set_current_stream, whose callers restore the previous stream themselves.
#include <tileops/device.hpp>

namespace tileops::detail {

void set_current_stream(const Device& device, void* stream);

}  // namespace tileops::detail
