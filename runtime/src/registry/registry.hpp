#pragma once
// The backend registry: targets, kernel builders, device runtimes, device facts
// readers, in-tree kernel types, plugins and load failures.
//
// Readers see an immutable snapshot through one atomic load, so lookups never lock.
// A plugin's registrations are staged in a transaction and published as a new
// snapshot only when its entry succeeds. Snapshots are never freed: like plugin
// libraries, they live for the process, so pointers into them stay valid.
#include "registry/records.hpp"

#include <tileops/device.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tileops::detail {

struct Snapshot {
  std::vector<PluginRef> plugins;
  std::vector<DetectorRecord> detectors;  // registration order
  std::map<std::pair<std::string, std::string>, BuilderRecord> builders;  // (op, target)
  std::unordered_map<const void*, DeviceRuntimeRecord> runtimes;  // by Device::type_id
  std::unordered_map<const void*, FactsReaderRecord> facts_readers;
  std::map<std::string, std::vector<KernelTypeRecord>, std::less<>> kernel_types;  // by op

  const DetectorRecord* detector(std::string_view target) const;
  const BuilderRecord* builder(std::string_view op, std::string_view target) const;
  const DeviceRuntimeRecord* runtime(const Device& device) const;
  const FactsReaderRecord* facts_reader(const Device& device) const;
  std::vector<std::string> targets() const;  // sorted, unique
  // Raises UnknownTargetError, listing the known targets, unless `target` is BUILTIN or
  // has a detector or a builder.
  void require_target(std::string_view target) const;
};

// What one plugin's entry registers, before commit.
struct Staged {
  std::vector<DetectorRecord> detectors;
  std::vector<BuilderRecord> builders;
  std::vector<DeviceRuntimeRecord> runtimes;
  std::vector<FactsReaderRecord> facts_readers;
  std::vector<KernelTypeRecord> kernel_types;
};

class Registry {
 public:
  static Registry& get();

  const Snapshot& snapshot() const { return *current_.load(std::memory_order_acquire); }

  // Publishes `plugin` and what it staged. Callers hold commit_mutex().
  void commit(PluginRef plugin, Staged staged);
  // Records a plugin that failed; it joins plugins() as "failed" only when it got far
  // enough to have a record.
  void record_failure(LoadFailure failure);
  std::vector<LoadFailure> failures() const;

  // Serialises loading and commits (registration happens with it held).
  std::recursive_mutex& commit_mutex() { return commit_mutex_; }

 private:
  Registry();
  std::atomic<const Snapshot*> current_;
  std::vector<std::unique_ptr<const Snapshot>> history_;  // keeps every snapshot alive
  std::recursive_mutex commit_mutex_;
  mutable std::mutex failures_mutex_;
  std::vector<LoadFailure> failures_;
};

}  // namespace tileops::detail
