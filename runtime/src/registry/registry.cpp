#include "registry/registry.hpp"

#include "device/cpu_runtime.hpp"
#include "support/format.hpp"
#include "support/log.hpp"

#include <tileops/backend.hpp>
#include <tileops/errors.hpp>

#include <algorithm>

namespace tileops::detail {

const DetectorRecord* Snapshot::detector(std::string_view target) const {
  for (const auto& d : detectors)
    if (d.target == target) return &d;
  return nullptr;
}

const BuilderRecord* Snapshot::builder(std::string_view op, std::string_view target) const {
  auto it = builders.find(std::make_pair(std::string(op), std::string(target)));
  return it == builders.end() ? nullptr : &it->second;
}

const DeviceRuntimeRecord* Snapshot::runtime(const Device& device) const {
  auto it = runtimes.find(device.type_id());
  return it == runtimes.end() ? nullptr : &it->second;
}

const FactsReaderRecord* Snapshot::facts_reader(const Device& device) const {
  auto it = facts_readers.find(device.type_id());
  return it == facts_readers.end() ? nullptr : &it->second;
}

std::vector<std::string> Snapshot::targets() const {
  std::vector<std::string> names;
  for (const auto& d : detectors) names.push_back(d.target);
  for (const auto& [key, b] : builders) names.push_back(b.target);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

void Snapshot::require_target(std::string_view target) const {
  if (target == BUILTIN || detector(target)) return;
  for (const auto& [key, b] : builders)
    if (b.target == target) return;
  throw UnknownTargetError("no backend registered target '" + std::string(target) +
                           "'; known targets: " + quoted_list(targets()));
}

Registry& Registry::get() {
  static Registry registry;
  return registry;
}

Registry::Registry() {
  auto first = std::make_unique<Snapshot>();
  DeviceRuntimeRecord cpu{"cpu", cpu_device_runtime(), nullptr};
  first->runtimes.emplace(Device::cpu().type_id(), std::move(cpu));
  current_.store(first.get(), std::memory_order_release);
  history_.push_back(std::move(first));
}

void Registry::commit(PluginRef plugin, Staged staged) {
  auto next = std::make_unique<Snapshot>(snapshot());
  next->plugins.push_back(std::move(plugin));
  for (auto& d : staged.detectors) next->detectors.push_back(std::move(d));
  for (auto& b : staged.builders) {
    auto key = std::make_pair(b.op, b.target);
    next->builders.emplace(std::move(key), std::move(b));
  }
  for (auto& r : staged.runtimes) {
    const void* id = Device(r.device_type).type_id();
    next->runtimes.emplace(id, std::move(r));
  }
  for (auto& f : staged.facts_readers) {
    const void* id = Device(f.device_type).type_id();
    next->facts_readers.emplace(id, std::move(f));
  }
  for (auto& k : staged.kernel_types) next->kernel_types[k.op].push_back(std::move(k));
  current_.store(next.get(), std::memory_order_release);
  history_.push_back(std::move(next));
}

void Registry::record_failure(LoadFailure failure) {
  {
    std::lock_guard lock(failures_mutex_);
    // The same failure again (a kernel that throws at every launch) is no news: recorded
    // and logged once, so the list does not grow with the calls.
    for (const auto& f : failures_)
      if (f.path == failure.path && f.stage == failure.stage && f.reason == failure.reason) return;
    failures_.push_back(failure);
  }
  // Logged outside the lock: a log sink may ask for the failures, this one among them.
  logger().warn("plugin {} failed at stage '{}': {}", failure.path, failure.stage, failure.reason);
}

std::vector<LoadFailure> Registry::failures() const {
  std::lock_guard lock(failures_mutex_);
  return failures_;
}

}  // namespace tileops::detail
