#pragma once
// Plugins, targets and load failures: what a caller can ask of the backend registry.
#include <tileops/abi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tileops {

// The name that forces the in-tree implementation (and turns substitution off when
// set as the process default). No plugin may register a target of this name.
inline constexpr std::string_view BUILTIN = "builtin";

// A target choice: unset (decide from the device), BUILTIN, or a registered name.
using Target = std::optional<std::string>;

// Discovers and loads every plugin once (later calls return at once, as does a call
// from within the load on its thread: a log sink, a plugin entry). Constructing the
// first op does this too.
void load_plugins();

struct LoadFailure {
  std::string path;   // the plugin file, or "<name>" for an in-process entry
  std::string stage;  // open, symbol, abi_version, entry, register
  std::string reason;
};
std::vector<LoadFailure> load_failures();

struct PluginInfo {
  std::string path;
  std::string name;
  std::string version;
  std::string build_id;
  uint32_t abi_version = 0;
  bool builtin = false;  // loaded from the runtime's own directory
  std::vector<std::string> targets;
  std::vector<std::string> ops;          // ops it registered kernel builders for
  std::vector<std::string> kernel_types;  // "<op>/<key>" it added to the in-tree path
  std::vector<std::string> device_types;  // device runtimes it provides
  std::string state;                      // "loaded" or "failed"
};
std::vector<PluginInfo> plugins();

// Registered target names, sorted; those that serve `op` when given.
std::vector<std::string> registered_targets();
std::vector<std::string> registered_targets(std::string_view op);

// Process-wide default target, ahead of device detection. BUILTIN turns substitution
// off; nullopt restores detection. An unregistered name raises UnknownTargetError.
void set_default_target(const Target& target);
Target default_target();

// Runs a plugin entry linked into the process, with the same transaction and failure
// recording as a plugin file. `name` identifies it in plugins() and load_failures().
// Returns true when it registered.
bool load_plugin_entry(std::string_view name, tileops_plugin_entry_fn entry);

// The plugin directories searched, in order.
std::vector<std::string> plugin_search_path();

}  // namespace tileops
