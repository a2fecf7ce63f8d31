#include "device/device_runtime.hpp"

#include "loader/plugin_loader.hpp"
#include "registry/registrar.hpp"
#include "registry/registry.hpp"
#include "support/status.hpp"

#include <tileops/errors.hpp>

#include <vector>

namespace tileops::detail {
namespace {

// `what` is only called to build the message of a failure.
template <class What>
void check(tileops_status status, const tileops_error& err, What what, const Device& device) {
  if (status == TILEOPS_OK) return;
  throw_status(status, std::string(what()) + " on " + device.str() + " failed: " +
                           describe(err, status));
}

// Runs `call`, a function of a plugin's device runtime. A C++ exception that crosses the
// ABI becomes a BackendError naming what was being done and where (`what` and `device`
// are only read then: this is on the path of every allocation).
template <class What, class Call>
auto guarded(What what, const Device* device, Call call) -> decltype(call()) {
  try {
    return call();
  } catch (...) {
    throw BackendError(std::string(what()) + (device ? " on " + device->str() : "") + " threw" + thrown_detail());
  }
}

// Runs `call(err)`, a fallible function of a plugin's device runtime, through guarded
// and check: a status other than OK, or an exception, is an error naming `what`.
template <class What, class Call>
void call_checked(What what, const Device& device, Call call) {
  tileops_error err;
  check(guarded(what, &device, [&] { return call(err); }), err, what, device);
}

// The same for functions that run where nothing may throw (a tensor's release, a
// stream's destruction): the exception is recorded as a failure of the plugin.
template <class Call>
void recorded(const DeviceRuntimeRecord& record, const char* stage, const Device& device, Call call) noexcept {
  try {
    call();
  } catch (...) {
    Registry::get().record_failure({origin(record.plugin), stage,
                                    "the device runtime of '" + record.device_type + "' threw in " + stage + " on " +
                                        device.str() + thrown_detail()});
  }
}

// Copies the innermost contiguous runs one by one: the fallback for runtimes
// without copy_strided.
void gather_runs(const DeviceRuntime& rt, char* dst, const char* src, const Device& device,
                 ShapeView shape, ShapeView strides, size_t itemsize, void* stream) {
  const size_t ndim = shape.size();
  size_t inner = ndim;  // axes [inner, ndim) form one contiguous run
  int64_t run = 1;
  while (inner > 0 && strides[inner - 1] == run) run *= shape[--inner];
  std::vector<int64_t> index(inner, 0);
  const size_t run_bytes = size_t(run) * itemsize;
  int64_t runs = 1;
  for (size_t d = 0; d < inner; ++d) runs *= shape[d];
  for (int64_t r = 0; r < runs; ++r) {
    int64_t offset = 0;
    for (size_t d = 0; d < inner; ++d) offset += index[d] * strides[d];
    rt.copy(dst + size_t(r) * run_bytes, device, src + offset * int64_t(itemsize), device,
            run_bytes, stream);
    for (size_t d = inner; d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

DeviceRuntime DeviceRuntime::of(const Device& device) {
  load_all_plugins();
  const auto* record = Registry::get().snapshot().runtime(device);
  if (!record)
    throw BackendError("no device runtime for device type '" + std::string(device.type()) +
                       "': no loaded plugin registers one (see `tileops plugins` and "
                       "`tileops failures`)");
  return DeviceRuntime(*record);
}

void* DeviceRuntime::alloc(const Device& device, size_t bytes, void* stream) const {
  void* ptr = nullptr;
  auto d = device.to_c();
  call_checked([&] { return "allocating " + std::to_string(bytes) + " bytes"; }, device, [&](tileops_error& err) {
    return record_->runtime.alloc(record_->runtime.user, &d, bytes, stream, &ptr, &err);
  });
  if (!ptr && bytes)
    throw BackendError("allocating " + std::to_string(bytes) + " bytes on " + device.str() +
                       " returned NULL without an error (a defect of the device runtime of '" + record_->device_type +
                       "')");
  return ptr;
}

void DeviceRuntime::free(const Device& device, void* ptr, void* stream) const noexcept {
  auto d = device.to_c();
  recorded(*record_, "free", device, [&] { record_->runtime.free(record_->runtime.user, &d, ptr, stream); });
}

void DeviceRuntime::copy(void* dst, const Device& dst_device, const void* src,
                         const Device& src_device, size_t bytes, void* stream) const {
  auto dd = dst_device.to_c();
  auto sd = src_device.to_c();
  call_checked([&] { return "copying " + std::to_string(bytes) + " bytes from " + src_device.str(); }, dst_device,
               [&](tileops_error& err) {
                 return record_->runtime.copy(record_->runtime.user, dst, &dd, src, &sd, bytes, stream, &err);
               });
}

void DeviceRuntime::copy_strided(void* dst, const void* src, const Device& device,
                                 ShapeView shape, ShapeView strides, size_t itemsize,
                                 void* stream) const {
  if (!record_->runtime.copy_strided) {
    gather_runs(*this, static_cast<char*>(dst), static_cast<const char*>(src), device, shape,
                strides, itemsize, stream);
    return;
  }
  auto d = device.to_c();
  call_checked([] { return "gathering a strided tensor"; }, device, [&](tileops_error& err) {
    return record_->runtime.copy_strided(record_->runtime.user, dst, src, &d, int32_t(shape.size()), shape.data(),
                                         strides.data(), itemsize, stream, &err);
  });
}

void DeviceRuntime::synchronize(const Device& device, void* stream) const {
  auto d = device.to_c();
  call_checked([] { return "synchronizing"; }, device,
               [&](tileops_error& err) { return record_->runtime.synchronize(record_->runtime.user, &d, stream, &err); });
}

void* DeviceRuntime::stream_create(const Device& device) const {
  if (!record_->runtime.stream_create)
    throw BackendError("device type '" + std::string(device.type()) +
                       "' has no streams to create");
  void* stream = nullptr;
  auto d = device.to_c();
  call_checked([] { return "creating a stream"; }, device, [&](tileops_error& err) {
    return record_->runtime.stream_create(record_->runtime.user, &d, &stream, &err);
  });
  return stream;
}

void DeviceRuntime::stream_destroy(const Device& device, void* stream) const noexcept {
  if (!record_->runtime.stream_destroy) return;
  auto d = device.to_c();
  recorded(*record_, "stream_destroy", device,
           [&] { record_->runtime.stream_destroy(record_->runtime.user, &d, stream); });
}

void DeviceRuntime::set_current(const Device& device) const {
  if (!record_->runtime.set_current) return;
  auto d = device.to_c();
  call_checked([] { return "making the device current"; }, device,
               [&](tileops_error& err) { return record_->runtime.set_current(record_->runtime.user, &d, &err); });
}

int32_t DeviceRuntime::device_count() const {
  if (!record_->runtime.device_count) return 1;
  return guarded([&] { return "counting the devices of type '" + record_->device_type + "'"; }, nullptr,
                 [&] { return record_->runtime.device_count(record_->runtime.user); });
}

}  // namespace tileops::detail
