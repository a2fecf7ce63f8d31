#pragma once
// A device runtime for test device types that hands out host memory, for tests that
// register device types of their own through in-process plugin entries.
#include <tileops/abi.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace tileops::test {

// `allocations` (optional) counts the allocations it serves.
inline tileops_device_runtime host_memory_runtime(std::atomic<int>* allocations = nullptr) {
  tileops_device_runtime rt{};
  rt.struct_size = sizeof rt;
  rt.user = allocations;
  rt.device_count = [](void*) -> int32_t { return 1; };
  rt.alloc = [](void* user, const tileops_device*, size_t bytes, void*, void** p, tileops_error*) -> tileops_status {
    if (user) ++*static_cast<std::atomic<int>*>(user);
    *p = std::malloc(bytes ? bytes : 1);
    return TILEOPS_OK;
  };
  rt.free = [](void*, const tileops_device*, void* p, void*) { std::free(p); };
  rt.copy = [](void*, void* dst, const tileops_device*, const void* src, const tileops_device*, size_t n, void*,
               tileops_error*) -> tileops_status {
    std::memmove(dst, src, n);
    return TILEOPS_OK;
  };
  rt.synchronize = [](void*, const tileops_device*, void*, tileops_error*) -> tileops_status { return TILEOPS_OK; };
  return rt;
}

}  // namespace tileops::test
