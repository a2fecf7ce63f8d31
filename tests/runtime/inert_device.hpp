#pragma once
// A device runtime for tests whose kernels never touch memory: every allocation is the
// same static arena; copies and synchronisation do nothing. `device_count` as in the
// ABI (nullptr: the host's default).
#include <tileops/tileops.hpp>

namespace tileops::testing {

alignas(64) inline char inert_arena[1 << 20];

inline tileops_device_runtime inert_runtime(int32_t (*device_count)(void*) = nullptr) {
  tileops_device_runtime rt{};
  rt.struct_size = sizeof rt;
  rt.device_count = device_count;
  rt.alloc = [](void*, const tileops_device*, size_t, void*, void** p, tileops_error*) -> tileops_status {
    *p = inert_arena;
    return TILEOPS_OK;
  };
  rt.free = [](void*, const tileops_device*, void*, void*) {};
  rt.copy = [](void*, void*, const tileops_device*, const void*, const tileops_device*, size_t, void*,
               tileops_error*) -> tileops_status { return TILEOPS_OK; };
  rt.synchronize = [](void*, const tileops_device*, void*, tileops_error*) -> tileops_status { return TILEOPS_OK; };
  return rt;
}

}  // namespace tileops::testing
