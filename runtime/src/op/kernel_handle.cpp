#include "op/kernel_handle.hpp"

#include "device/device_runtime.hpp"
#include "registry/registrar.hpp"
#include "registry/registry.hpp"
#include "support/status.hpp"

#include <tileops/errors.hpp>


namespace tileops::detail {

KernelHandle::KernelHandle(const tileops_kernel& kernel, std::string origin,
                           std::string plugin_path)
    : kernel_(kernel), origin_(std::move(origin)), plugin_path_(std::move(plugin_path)) {}

KernelHandle::~KernelHandle() {
  if (kernel_.release) {
    try {
      kernel_.release(kernel_.self);
    } catch (...) {
      Registry::get().record_failure({plugin_path_, "release", origin_ + ": release threw" + thrown_detail()});
    }
  }
}

void KernelHandle::launch(const tileops_tensor* const* inputs, size_t n_inputs,
                          const tileops_tensor* const* outputs, size_t n_outputs, void* stream,
                          const std::string& op) const {
  tileops_error err;
  tileops_status status;
  try {
    status = kernel_.launch(kernel_.self, inputs, n_inputs, outputs, n_outputs, stream, &err);
  } catch (...) {
    const std::string detail = thrown_detail();
    Registry::get().record_failure({plugin_path_, "launch", origin_ + " threw" + detail});
    throw BackendError(origin_ + ": the kernel for " + op + " threw" + detail);
  }
  if (status == TILEOPS_OK) return;
  if (status == TILEOPS_ERR_INVALID_ARGUMENT) throw ValueError(describe(err, status));
  throw_status(status, origin_ + ": the kernel for " + op + " failed (" + status_name(status) +
                           "): " + describe(err, status));
}

void KernelHandle::tune(const Device& device, const std::string& op) const {
  DeviceRuntime::of(device).set_current(device);
  tileops_error err;
  auto d = device.to_c();
  tileops_status status;
  try {
    status = kernel_.request_tune(kernel_.self, &d, &err);
  } catch (...) {
    const std::string detail = thrown_detail();
    Registry::get().record_failure({plugin_path_, "tune", origin_ + ": request_tune threw" + detail});
    throw BackendError(origin_ + ": request_tune of the kernel for " + op + " threw" + detail);
  }
  if (status != TILEOPS_OK)
    throw_status(status, origin_ + ": tuning the kernel for " + op + " on " + device.str() +
                             " failed: " + describe(err, status));
}

std::string KernelHandle::config_json() const {
  if (!kernel_.config_json) return {};
  try {
    const char* text = kernel_.config_json(kernel_.self);
    return text ? text : "";
  } catch (...) {
    return {};
  }
}

KernelRef adopt_kernel(const tileops_kernel& built, std::string origin, std::string plugin_path,
                       const std::string& op) {
  if (!built.launch) {
    if (built.release) built.release(built.self);
    throw BackendError(origin + " returned a kernel for " + op +
                       " that cannot be called: its launch is NULL");
  }
  // The host zeroed the whole struct before the build, so fields a plugin of an
  // older minor version does not know are NULL.
  return std::make_shared<KernelHandle>(built, std::move(origin), std::move(plugin_path));
}

}  // namespace tileops::detail
