#pragma once
// The in-tree path: the implementations registered as kernel types for an op, and
// the selection among them for one call spec.
//
// Availability (device types, supported_archs) filters first; each available
// implementation's refusal says whether it serves the call; precedence (general
// below everything, preferred_over transitively) picks one. The chosen entry is
// built once per (implementation, device, build identity) and shared.
#include "op/kernel_handle.hpp"
#include "op/signature_map.hpp"
#include "registry/records.hpp"

#include <map>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace tileops::detail {

class InTreeKernels {
 public:
  // Installs the op's kernel types (those registered so far). Throws BackendError
  // when their preferred_over relation has a cycle.
  InTreeKernels(std::string op, std::vector<const KernelTypeRecord*> types);

  // Memo hit: one lookup. nullptr on a miss.
  KernelRef find(const Device& device, DescList inputs) {
    auto* hit = memo_.find(device, inputs);
    return hit ? *hit : nullptr;
  }
  // Selects the implementation serving this call spec and builds its entry, or reuses
  // one of the same build identity. `built` tells whether a kernel was built now.
  KernelRef resolve(const Device& device, DescList inputs, std::span<const tileops_param> params,
                    bool& built);
  // Memoises the call spec's entry (after any tuning succeeded).
  void remember(const Device& device, DescList inputs, const KernelRef& kernel) {
    memo_.insert(device, inputs, kernel);
  }
  // Drops an entry so the next call builds it again (its tuning failed).
  void discard(const KernelRef& kernel);
  void clear();

  template <class F>
  void for_each_entry(F&& f) const {
    for (const auto& [key, kernel] : entries_) f(kernel, std::get<1>(key));
  }
  const std::vector<const KernelTypeRecord*>& types() const { return types_; }

 private:
  const KernelTypeRecord* select(const tileops_call& call, const Device& device, int32_t arch) const;
  std::string identity(const KernelTypeRecord& type, const tileops_call& call,
                       DescList inputs) const;
  bool beats(const KernelTypeRecord& a, const KernelTypeRecord& b) const;

  std::string op_;
  std::vector<const KernelTypeRecord*> types_;
  std::vector<std::vector<bool>> preferred_;  // transitive closure of preferred_over
  SignatureMap<KernelRef> memo_;
  std::map<std::tuple<std::string, Device, std::string>, KernelRef> entries_;  // key, device, identity
};

}  // namespace tileops::detail
