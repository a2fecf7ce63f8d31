#pragma once
// What the registry holds, copied out of the plugins' registrations (a plugin's
// strings and arrays are only valid during its entry).
#include <tileops/abi.h>
#include <tileops/backend.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tileops::detail {

// One loaded plugin (or in-process entry). Filled while its entry runs, frozen at
// commit.
struct PluginRecord {
  PluginInfo info;
};
using PluginRef = std::shared_ptr<const PluginRecord>;

struct DetectorRecord {
  std::string target;
  tileops_detect_fn detect;
  void* user;
  PluginRef plugin;
};

struct BuilderRecord {
  std::string op;
  std::string target;
  tileops_build_kernel_fn build;
  void* user;
  PluginRef plugin;
};

struct DeviceRuntimeRecord {
  std::string device_type;
  tileops_device_runtime runtime;  // zero-extended to this host's struct size
  PluginRef plugin;                // null for the host's own CPU runtime
};

struct FactsReaderRecord {
  std::string device_type;
  tileops_read_device_facts_fn read;
  void* user;
  PluginRef plugin;
};

struct KernelTypeRecord {
  std::string op;
  std::string key;
  std::string interface;
  std::vector<std::string> devices;
  std::vector<int32_t> supported_archs;
  bool general;
  std::vector<std::string> preferred_over;
  void* user;
  tileops_status (*refusal)(void*, const tileops_call*, tileops_error*);
  int32_t (*identity)(void*, const tileops_call*, char*, size_t);
  tileops_status (*build)(void*, const tileops_call*, tileops_kernel*, tileops_error*);
  PluginRef plugin;
};

// "<path>" of the plugin that registered something, for messages.
inline std::string origin(const PluginRef& plugin) {
  return plugin ? plugin->info.path : std::string("the tileops host");
}

}  // namespace tileops::detail
