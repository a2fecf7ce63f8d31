#include "runtime.hpp"

#include "block_cache.hpp"
#include "devices.hpp"
#include "driver.hpp"
#include "strided_copy.hpp"
#include "value_errors.hpp"

#include <tileops/sdk/plugin.hpp>

#include <cstring>
#include <vector>

namespace tileops::cuda {
namespace {

bool is_cuda(const tileops_device* d) { return d && d->type && std::strcmp(d->type, "cuda") == 0; }

int32_t count(void*) { return device_count(); }

tileops_status alloc(void*, const tileops_device* device, size_t bytes, void* stream, void** ptr, tileops_error* err) {
  return sdk::guard(err, [&] {
    *ptr = nullptr;
    const DeviceInfo& info = device_info(*device);  // fails with the driver's absence first
    if (bytes == 0) return;
    *ptr = cache_alloc(info, bytes, static_cast<CUstream>(stream));
  });
}

void release(void*, const tileops_device* device, void* ptr, void* stream) {
  if (!ptr) return;
  try {
    cache_free(device_info(*device), ptr, static_cast<CUstream>(stream));
  } catch (...) {
    // free cannot report; the memory stays with the pool
  }
}

tileops_status copy(void*, void* dst, const tileops_device* dst_device, const void* src,
                    const tileops_device* src_device, size_t bytes, void* stream, tileops_error* err) {
  return sdk::guard(err, [&] {
    if (bytes == 0) return;
    const Driver& d = driver();
    auto s = static_cast<CUstream>(stream);
    const bool to_device = is_cuda(dst_device), from_device = is_cuda(src_device);
    const DeviceInfo& info = device_info(to_device ? *dst_device : *src_device);
    make_current(info);
    if (to_device && from_device) {
      const DeviceInfo& from = device_info(*src_device);
      if (from.index == info.index)
        check(d.cuMemcpyDtoDAsync(CUdeviceptr(dst), CUdeviceptr(src), bytes, s), "device-to-device copy");
      else
        check(d.cuMemcpyPeerAsync(CUdeviceptr(dst), info.context, CUdeviceptr(src), from.context, bytes, s),
              "copy between cuda:" + std::to_string(from.index) + " and cuda:" + std::to_string(info.index));
    } else if (to_device) {
      check(d.cuMemcpyHtoDAsync(CUdeviceptr(dst), src, bytes, s), "host-to-device copy");
    } else {
      check(d.cuMemcpyDtoHAsync(dst, CUdeviceptr(src), bytes, s), "device-to-host copy");
    }
  });
}

tileops_status synchronize(void*, const tileops_device* device, void* stream, tileops_error* err) {
  return sdk::guard(err, [&] {
    const DeviceInfo& info = device_info(*device);
    make_current(info);
    check(driver().cuStreamSynchronize(static_cast<CUstream>(stream)), "cuStreamSynchronize");
    raise_pending_value_error(info.index);
  });
}

tileops_status stream_create(void*, const tileops_device* device, void** stream, tileops_error* err) {
  return sdk::guard(err, [&] {
    make_current(device_info(*device));
    CUstream s = nullptr;
    // Non-blocking: work on it never waits for the legacy default stream.
    check(driver().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    *stream = s;
  });
}

void stream_destroy(void*, const tileops_device* device, void* stream) {
  if (!stream) return;
  try {
    const DeviceInfo& info = device_info(*device);
    make_current(info);
    cache_release_stream(info, static_cast<CUstream>(stream));
    driver().cuStreamDestroy(static_cast<CUstream>(stream));
  } catch (...) {
    // destroy cannot report
  }
}

tileops_status copy_strided(void*, void* dst, const void* src, const tileops_device* device, int32_t ndim,
                            const int64_t* shape, const int64_t* src_strides, size_t itemsize, void* stream,
                            tileops_error* err) {
  return sdk::guard(err, [&] {
    const DeviceInfo& info = device_info(*device);
    make_current(info);
    const std::span<const int64_t> dims(shape, size_t(ndim));
    copy_views(info, dst, contiguous_strides(dims), src, {src_strides, size_t(ndim)}, dims, itemsize, stream);
  });
}

tileops_status set_current(void*, const tileops_device* device, tileops_error* err) {
  return sdk::guard(err, [&] { make_current(device_info(*device)); });
}

}  // namespace

const tileops_device_runtime& device_runtime() {
  static const tileops_device_runtime runtime{sizeof(tileops_device_runtime),
                                              nullptr,
                                              count,
                                              alloc,
                                              release,
                                              copy,
                                              synchronize,
                                              stream_create,
                                              stream_destroy,
                                              copy_strided,
                                              set_current};
  return runtime;
}

tileops_status read_device_facts(void*, const tileops_device* device, tileops_device_facts* out, tileops_error* err) {
  return sdk::guard(err, [&] {
    const DeviceInfo& info = device_info(*device);
    out->arch = info.arch;
    out->calibration = info.name.c_str();  // lives for the process
    out->sm_count = info.sm_count;
    out->smem_budget = info.smem_optin;
  });
}

}  // namespace tileops::cuda
