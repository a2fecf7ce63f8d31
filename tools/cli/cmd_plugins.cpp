// tileops plugins [--json]: every plugin found, loaded or failed.
#include "commands.hpp"
#include "output.hpp"

#include <tileops/backend.hpp>

#include <iostream>

namespace tileops::cli {

void add_plugins_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("plugins", "List the plugins found and what they registered");
  static bool json = false;
  cmd->add_flag("--json", json, "JSON output (schema tileops.plugins/1)");
  cmd->callback([] {
    auto list = plugins();
    if (json) {
      nlohmann::json out = {{"schema", "tileops.plugins/1"}, {"plugins", nlohmann::json::array()}};
      for (const auto& p : list)
        out["plugins"].push_back({{"path", p.path},
                                  {"name", p.name},
                                  {"version", p.version},
                                  {"build_id", p.build_id},
                                  {"abi_version", abi_text(p.abi_version)},
                                  {"builtin", p.builtin},
                                  {"state", p.state},
                                  {"targets", p.targets},
                                  {"ops", p.ops},
                                  {"kernel_types", p.kernel_types},
                                  {"device_types", p.device_types}});
      std::cout << out.dump(2) << "\n";
      return;
    }
    if (list.empty()) std::cout << "no plugins found (searched: " << join(plugin_search_path()) << ")\n";
    for (const auto& p : list) {
      std::cout << (p.name.empty() ? "?" : p.name) << " " << p.version << "  [" << p.state
                << (p.builtin ? ", built-in" : "") << "]\n"
                << "  path:     " << p.path << "\n";
      if (p.state != "loaded") continue;
      std::cout << "  abi:      " << abi_text(p.abi_version) << "\n";
      if (!p.targets.empty()) std::cout << "  targets:  " << join(p.targets) << "\n";
      if (!p.ops.empty()) std::cout << "  ops:      " << join(p.ops) << "\n";
      if (!p.kernel_types.empty()) std::cout << "  in-tree:  " << join(p.kernel_types) << "\n";
      if (!p.device_types.empty()) std::cout << "  devices:  " << join(p.device_types) << "\n";
    }
  });
}

}  // namespace tileops::cli
