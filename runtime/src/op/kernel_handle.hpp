#pragma once
// A kernel a builder returned, owned by the host: released exactly once, when the
// last memo entry holding it goes.
#include <tileops/abi.h>
#include <tileops/device.hpp>

#include <memory>
#include <string>

namespace tileops::detail {

class KernelHandle {
 public:
  // `origin` names who built it, for messages ("target 'acme'", "kernel type 'k'").
  KernelHandle(const tileops_kernel& kernel, std::string origin, std::string plugin_path);
  ~KernelHandle();
  KernelHandle(const KernelHandle&) = delete;
  KernelHandle& operator=(const KernelHandle&) = delete;

  // Launches on `stream`; throws what the kernel reported (a kernel's value error
  // reaches the caller unchanged).
  void launch(const tileops_tensor* const* inputs, size_t n_inputs,
              const tileops_tensor* const* outputs, size_t n_outputs, void* stream,
              const std::string& op) const;
  bool tunable() const { return kernel_.request_tune != nullptr; }
  // With `device` current.
  void tune(const Device& device, const std::string& op) const;
  // "" when the kernel has no configuration to report.
  std::string config_json() const;
  const std::string& origin() const { return origin_; }

 private:
  tileops_kernel kernel_;
  std::string origin_;
  std::string plugin_path_;
};

using KernelRef = std::shared_ptr<KernelHandle>;

// Takes ownership of what a builder filled in; a kernel without launch is refused
// (and released) with a BackendError naming `origin` and `op`.
KernelRef adopt_kernel(const tileops_kernel& built, std::string origin, std::string plugin_path,
                       const std::string& op);

}  // namespace tileops::detail
