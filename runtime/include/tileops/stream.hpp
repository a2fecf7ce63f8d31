#pragma once
// The current stream: one per device per thread, passed to every kernel launch.
#include <tileops/device.hpp>

namespace tileops {

// The calling thread's current stream for `device` (nullptr: the device's default).
void* current_stream(const Device& device);

// Makes `stream` current for `device` on this thread for the guard's lifetime.
class StreamGuard {
 public:
  StreamGuard(const Device& device, void* stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Device device_;
  void* previous_;
};

// A stream created through the device type's runtime, destroyed with the object. Memory
// allocated on a stream is released on it, so every tensor allocated while it was current
// must be released before it is destroyed (as with cudaFreeAsync; the runtime does not
// track them, and a CUDA stream's handle is dead once destroyed).
class Stream {
 public:
  explicit Stream(const Device& device);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  void* handle() const { return handle_; }
  void synchronize() const;

 private:
  Device device_;
  void* handle_ = nullptr;
};

// Waits for all work queued on `device`'s current stream.
void synchronize(const Device& device);

}  // namespace tileops
