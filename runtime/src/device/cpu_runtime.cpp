#include "device/cpu_runtime.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace tileops::detail {
namespace {

constexpr size_t kAlignment = 64;  // a cache line: vector loads never split lines

int32_t device_count(void*) { return 1; }

tileops_status alloc(void*, const tileops_device*, size_t bytes, void*, void** ptr,
                     tileops_error*) {
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  *ptr = std::aligned_alloc(kAlignment, rounded ? rounded : kAlignment);
  return *ptr ? TILEOPS_OK : TILEOPS_ERR_OUT_OF_MEMORY;
}

void release(void*, const tileops_device*, void* ptr, void*) { std::free(ptr); }

tileops_status copy(void*, void* dst, const tileops_device*, const void* src,
                    const tileops_device*, size_t bytes, void*, tileops_error*) {
  if (bytes) std::memmove(dst, src, bytes);
  return TILEOPS_OK;
}

tileops_status synchronize(void*, const tileops_device*, void*, tileops_error*) {
  return TILEOPS_OK;
}

tileops_status stream_create(void*, const tileops_device*, void** stream, tileops_error*) {
  *stream = new (std::nothrow) char;
  return *stream ? TILEOPS_OK : TILEOPS_ERR_OUT_OF_MEMORY;
}

void stream_destroy(void*, const tileops_device*, void* stream) { delete static_cast<char*>(stream); }

template <class Word>
void gather(Word* dst, const Word* src, int32_t ndim, const int64_t* shape,
            const int64_t* strides) {
  int64_t index[16] = {};
  int64_t total = 1;
  for (int32_t d = 0; d < ndim; ++d) total *= shape[d];
  int64_t offset = 0;
  for (int64_t i = 0; i < total; ++i) {
    dst[i] = src[offset];
    for (int32_t d = ndim; d-- > 0;) {
      offset += strides[d];
      if (++index[d] < shape[d]) break;
      offset -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
}

tileops_status copy_strided(void*, void* dst, const void* src, const tileops_device*,
                            int32_t ndim, const int64_t* shape, const int64_t* strides,
                            size_t itemsize, void*, tileops_error*) {
  if (ndim > 16) return TILEOPS_ERR_UNSUPPORTED;
  switch (itemsize) {
    case 1: gather(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), ndim, shape, strides); break;
    case 2: gather(static_cast<uint16_t*>(dst), static_cast<const uint16_t*>(src), ndim, shape, strides); break;
    case 4: gather(static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(src), ndim, shape, strides); break;
    case 8: gather(static_cast<uint64_t*>(dst), static_cast<const uint64_t*>(src), ndim, shape, strides); break;
    default: return TILEOPS_ERR_UNSUPPORTED;
  }
  return TILEOPS_OK;
}

}  // namespace

tileops_device_runtime cpu_device_runtime() {
  tileops_device_runtime rt{};
  rt.struct_size = sizeof rt;
  rt.device_count = device_count;
  rt.alloc = alloc;
  rt.free = release;
  rt.copy = copy;
  rt.synchronize = synchronize;
  rt.stream_create = stream_create;
  rt.stream_destroy = stream_destroy;
  rt.copy_strided = copy_strided;
  return rt;
}

}  // namespace tileops::detail
