#include "device/cpu_runtime.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

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

// Copies element i of the strided source to dst[i], in row-major order. `Copy` moves one
// element: a typed assignment for the common sizes, memcpy otherwise.
template <class Copy>
void gather(int32_t ndim, const int64_t* shape, const int64_t* strides, Copy copy_element) {
  std::vector<int64_t> index(size_t(ndim), 0);
  int64_t total = 1;
  for (int32_t d = 0; d < ndim; ++d) total *= shape[d];
  int64_t offset = 0;
  for (int64_t i = 0; i < total; ++i) {
    copy_element(i, offset);
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
  auto typed = [&](auto word) {
    using Word = decltype(word);
    auto* d = static_cast<Word*>(dst);
    const auto* s = static_cast<const Word*>(src);
    gather(ndim, shape, strides, [&](int64_t i, int64_t at) { d[i] = s[at]; });
  };
  switch (itemsize) {
    case 1: typed(uint8_t{}); break;
    case 2: typed(uint16_t{}); break;
    case 4: typed(uint32_t{}); break;
    case 8: typed(uint64_t{}); break;
    default: {
      auto* d = static_cast<char*>(dst);
      const auto* s = static_cast<const char*>(src);
      gather(ndim, shape, strides, [&](int64_t i, int64_t at) {
        std::memcpy(d + size_t(i) * itemsize, s + size_t(at) * itemsize, itemsize);
      });
    }
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
