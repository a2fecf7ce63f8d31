#pragma once
// Scratch device memory for the length of one launch, taken from and returned to the
// device's stream-ordered pool on the launch's stream: no synchronisation, and legal
// inside CUDA graph capture (it becomes allocation nodes).
#include "driver.hpp"

#include <cstddef>

namespace tileops::cuda {

class StreamBuffer {
 public:
  StreamBuffer(size_t bytes, void* stream) : stream_(static_cast<CUstream>(stream)) {
    if (bytes) check(driver().cuMemAllocAsync(&ptr_, bytes, stream_), "allocating scratch memory");
  }
  ~StreamBuffer() {
    if (ptr_) driver().cuMemFreeAsync(ptr_, stream_);
  }
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  void* get() const { return reinterpret_cast<void*>(ptr_); }

 private:
  CUdeviceptr ptr_ = 0;
  CUstream stream_;
};

}  // namespace tileops::cuda
