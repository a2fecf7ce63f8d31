// The public backend queries of tileops/backend.hpp.
#include "loader/plugin_loader.hpp"
#include "registry/registry.hpp"

#include <tileops/backend.hpp>

#include <algorithm>
#include <mutex>

namespace tileops {
namespace {
std::mutex default_mutex;
Target default_choice;
}  // namespace

void load_plugins() { detail::load_all_plugins(); }

std::vector<LoadFailure> load_failures() {
  load_plugins();
  return detail::Registry::get().failures();
}

std::vector<PluginInfo> plugins() {
  load_plugins();
  std::vector<PluginInfo> out;
  for (const auto& p : detail::Registry::get().snapshot().plugins) out.push_back(p->info);
  for (const auto& f : detail::Registry::get().failures()) {
    if (std::any_of(out.begin(), out.end(), [&](auto& p) { return p.path == f.path; })) continue;
    PluginInfo failed;
    failed.path = f.path;
    failed.state = "failed";
    out.push_back(std::move(failed));
  }
  return out;
}

std::vector<std::string> registered_targets() {
  load_plugins();
  return detail::Registry::get().snapshot().targets();
}

std::vector<std::string> registered_targets(std::string_view op) {
  load_plugins();
  std::vector<std::string> out;
  for (const auto& [key, b] : detail::Registry::get().snapshot().builders)
    if (b.op == op) out.push_back(b.target);
  return out;  // the map is ordered by (op, target): already sorted
}

void set_default_target(const Target& target) {
  if (target && *target != BUILTIN) {
    load_plugins();
    detail::Registry::get().snapshot().require_target(*target);
  }
  std::lock_guard lock(default_mutex);
  default_choice = target;
}

Target default_target() {
  std::lock_guard lock(default_mutex);
  return default_choice;
}

bool load_plugin_entry(std::string_view name, tileops_plugin_entry_fn entry) {
  load_plugins();
  return detail::run_entry("<" + std::string(name) + ">", entry, TILEOPS_ABI_VERSION, false);
}

std::vector<std::string> plugin_search_path() {
  std::vector<std::string> out;
  for (const auto& d : detail::plugin_dirs()) out.push_back(d.path);
  return out;
}

}  // namespace tileops
