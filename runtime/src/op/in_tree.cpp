#include "op/in_tree.hpp"

#include "device/device_facts.hpp"
#include "device/device_runtime.hpp"
#include "op/abi_views.hpp"
#include "registry/registrar.hpp"
#include "support/format.hpp"
#include "support/status.hpp"

#include <tileops/errors.hpp>

#include <algorithm>

namespace tileops::detail {
namespace {

bool runs_on(const KernelTypeRecord& type, const Device& device) {
  return std::find(type.devices.begin(), type.devices.end(), device.type()) != type.devices.end();
}

bool supports_arch(const KernelTypeRecord& type, int32_t arch) {
  return type.supported_archs.empty() ||
         std::find(type.supported_archs.begin(), type.supported_archs.end(), arch) !=
             type.supported_archs.end();
}

std::string describe_call(DescList inputs) {
  std::string out;
  for (const TensorDesc* d : inputs)
    out += (out.empty() ? "" : ";") +
           (d ? std::string(d->dtype.name()) + format_shape(d->shape) : std::string("none"));
  return out;
}

}  // namespace

InTreeKernels::InTreeKernels(std::string op, std::vector<const KernelTypeRecord*> types)
    : op_(std::move(op)), types_(std::move(types)) {
  const size_t n = types_.size();
  preferred_.assign(n, std::vector<bool>(n, false));
  for (size_t a = 0; a < n; ++a)
    for (const auto& key : types_[a]->preferred_over)
      for (size_t b = 0; b < n; ++b)
        if (types_[b]->key == key) preferred_[a][b] = true;
  // Warshall: preferred_over holds transitively (registration refuses cycles).
  for (size_t k = 0; k < n; ++k)
    for (size_t a = 0; a < n; ++a)
      if (preferred_[a][k])
        for (size_t b = 0; b < n; ++b)
          if (preferred_[k][b]) preferred_[a][b] = true;
}

bool InTreeKernels::beats(const KernelTypeRecord& a, const KernelTypeRecord& b) const {
  auto index = [&](const KernelTypeRecord& t) {
    return size_t(std::find(types_.begin(), types_.end(), &t) - types_.begin());
  };
  if (preferred_[index(a)][index(b)]) return true;
  return b.general && !a.general;
}

const KernelTypeRecord* InTreeKernels::select(const tileops_call& call, const Device& device,
                                              int32_t arch) const {
  std::vector<const KernelTypeRecord*> available;
  std::vector<std::string> arch_limited;
  for (const auto* type : types_) {
    if (!runs_on(*type, device)) continue;
    if (supports_arch(*type, arch)) {
      available.push_back(type);
      continue;
    }
    std::string archs;
    for (int32_t a : type->supported_archs) archs += (archs.empty() ? "" : ", ") + std::to_string(a);
    arch_limited.push_back("'" + type->key + "' supports archs " + archs);
  }
  if (available.empty()) {
    if (!arch_limited.empty())
      throw OpNotAvailableError("no in-tree implementation of " + op_ + " runs on " + device.str() +
                                (arch < 0 ? std::string(" (no arch: its device facts give none)")
                                          : " (arch " + std::to_string(arch) + ")") +
                                ": " + join(arch_limited, "; "));
    std::vector<std::string> targets;
    for (const auto& [key, b] : Registry::get().snapshot().builders)
      if (b.op == op_) targets.push_back(b.target);
    throw OpNotAvailableError(op_ + "'s in-tree kernels do not run on " +
                              std::string(device.type()) + "; known targets for this op: " +
                              quoted_list(targets));
  }
  std::vector<const KernelTypeRecord*> serving;
  std::vector<std::string> refusals;
  for (const auto* type : available) {
    if (!type->refusal) {
      serving.push_back(type);
      continue;
    }
    tileops_error err;
    tileops_status status;
    try {
      status = type->refusal(type->user, &call, &err);
    } catch (...) {
      throw BackendError("the refusal of kernel type '" + type->key + "' of " + op_ + " threw" + thrown_detail());
    }
    if (status == TILEOPS_OK)
      serving.push_back(type);
    else
      refusals.push_back("'" + type->key + "': " + describe(err, status));
  }
  if (serving.empty())
    throw OpNotAvailableError("no in-tree implementation of " + op_ + " serves this call: " +
                              join(refusals, "; "));
  std::vector<const KernelTypeRecord*> winners;
  for (const auto* a : serving) {
    bool beaten = std::any_of(serving.begin(), serving.end(),
                              [&](const auto* b) { return b != a && beats(*b, *a); });
    if (!beaten) winners.push_back(a);
  }
  if (winners.size() != 1) {
    std::vector<std::string> keys;
    for (const auto* w : winners) keys.push_back(w->key);
    throw OpNotAvailableError("in-tree implementations of " + op_ + " are ambiguous for this call: " +
                              quoted_list(keys) +
                              " all serve it and none is preferred over the others "
                              "(declare preferred_over, or general on the fallback)");
  }
  return winners.front();
}

std::string InTreeKernels::identity(const KernelTypeRecord& type, const tileops_call& call,
                                    DescList inputs) const {
  if (!type.identity) return describe_call(inputs);
  std::string buf(256, '\0');
  for (int attempt = 0; attempt < 2; ++attempt) {
    int32_t n;
    try {
      n = type.identity(type.user, &call, buf.data(), buf.size());
    } catch (...) {
      throw BackendError("the identity of kernel type '" + type.key + "' of " + op_ + " threw" + thrown_detail());
    }
    if (n >= 0 && size_t(n) < buf.size()) return buf.substr(0, size_t(n));
    buf.assign(65536, '\0');
  }
  throw BackendError("kernel type '" + type.key + "' of " + op_ +
                     " returned a build identity longer than 64 KiB");
}

KernelRef InTreeKernels::resolve(const Device& device, DescList inputs,
                                 std::span<const tileops_param> params, bool& built) {
  built = false;
  const DeviceFacts facts = read_device_facts(device);
  const tileops_device_facts facts_view = facts.view();
  tileops_tensor_spec specs[16];
  const tileops_tensor_spec* spec_ptrs[16];
  for (size_t i = 0; i < inputs.size(); ++i) {
    spec_ptrs[i] = nullptr;
    if (inputs[i]) spec_ptrs[i] = &(specs[i] = spec_view(*inputs[i]));
  }
  const tileops_call call{sizeof(tileops_call), op_.c_str(),  op_.c_str(),
                          device.to_c(),        &facts_view,  spec_ptrs,
                          inputs.size(),        params.data(), params.size()};
  const KernelTypeRecord* type = select(call, device, facts.arch);
  auto entry_key = std::make_tuple(type->key, device, identity(*type, call, inputs));
  KernelRef& entry = entries_[entry_key];
  if (!entry) {
    DeviceRuntime::of(device).set_current(device);
    tileops_kernel out{};
    out.struct_size = sizeof out;
    tileops_error err;
    tileops_status status;
    const std::string who = "kernel type '" + type->key + "' of " + op_;
    try {
      status = type->build(type->user, &call, &out, &err);
    } catch (...) {
      const std::string detail = thrown_detail();
      entries_.erase(entry_key);
      throw BackendError(who + ": build threw" + detail);
    }
    if (status != TILEOPS_OK) {
      entries_.erase(entry_key);
      throw_status(status, who + " could not build a kernel: " + describe(err, status));
    }
    try {
      entry = adopt_kernel(out, who, origin(type->plugin), op_);
    } catch (...) {
      entries_.erase(entry_key);
      throw;
    }
    built = true;
  }
  return entry;
}

void InTreeKernels::discard(const KernelRef& kernel) {
  for (auto it = entries_.begin(); it != entries_.end();)
    it = it->second == kernel ? entries_.erase(it) : std::next(it);
}

void InTreeKernels::clear() {
  memo_.clear();
  entries_.clear();
}

}  // namespace tileops::detail
