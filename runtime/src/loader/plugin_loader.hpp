#pragma once
// Plugin discovery and loading: files found in the plugin directories are opened
// with Boost.DLL (RTLD_NOW | RTLD_LOCAL), checked, and their entry run as one
// registration transaction. Every failure is recorded; none stops the host.
#include <tileops/abi.h>

#include <string>
#include <vector>

namespace tileops::detail {

struct PluginDir {
  std::string path;
  bool builtin;  // the runtime's own directory: only libtileops_builtin_*.so there
};

// The runtime's own directory, then TILEOPS_PLUGIN_PATH, then <libdir>/tileops/plugins.
std::vector<PluginDir> plugin_dirs();

// Loads every plugin, once per process; later calls return at once.
void load_all_plugins();

// Runs `entry` as one transaction for a plugin known as `path`. True when committed.
bool run_entry(const std::string& path, tileops_plugin_entry_fn entry, uint32_t abi_version,
               bool builtin);

}  // namespace tileops::detail
