#pragma once
// Calls into the device runtime registered for a device's type, turning statuses
// into exceptions.
#include "registry/records.hpp"

#include <tileops/device.hpp>
#include <tileops/shape.hpp>

#include <cstddef>

namespace tileops::detail {

class DeviceRuntime {
 public:
  // The runtime of `device`'s type; BackendError when no plugin registered one.
  static DeviceRuntime of(const Device& device);
  // The runtime of a record kept from earlier (a tensor's storage keeps its allocator's).
  explicit DeviceRuntime(const DeviceRuntimeRecord& record) : record_(&record) {}

  // Calls into the plugin's runtime. A C++ exception that crosses the ABI becomes a
  // BackendError; from free and stream_destroy, which run where nothing may throw, a
  // recorded failure of the plugin.
  void* alloc(const Device& device, size_t bytes, void* stream) const;
  void free(const Device& device, void* ptr, void* stream) const noexcept;
  void copy(void* dst, const Device& dst_device, const void* src, const Device& src_device,
            size_t bytes, void* stream) const;
  // Gathers a strided tensor into contiguous `dst` on the same device.
  void copy_strided(void* dst, const void* src, const Device& device, ShapeView shape,
                    ShapeView strides, size_t itemsize, void* stream) const;
  void synchronize(const Device& device, void* stream) const;
  void* stream_create(const Device& device) const;
  void stream_destroy(const Device& device, void* stream) const noexcept;
  void set_current(const Device& device) const;
  int32_t device_count() const;
  const DeviceRuntimeRecord& record() const { return *record_; }

 private:
  const DeviceRuntimeRecord* record_;
};

}  // namespace tileops::detail
