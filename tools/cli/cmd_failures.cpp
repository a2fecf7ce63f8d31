// tileops failures [--json]: why plugins failed to load. Exit status 0 either way.
#include "commands.hpp"
#include "output.hpp"

#include <tileops/backend.hpp>

#include <iostream>

namespace tileops::cli {

void add_failures_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("failures", "List plugin load failures (path, stage, reason)");
  static bool json = false;
  cmd->add_flag("--json", json, "JSON output (schema tileops.failures/1)");
  cmd->callback([] {
    auto failures = load_failures();
    if (json) {
      nlohmann::json out = {{"schema", "tileops.failures/1"}, {"failures", nlohmann::json::array()}};
      for (const auto& f : failures)
        out["failures"].push_back({{"path", f.path}, {"stage", f.stage}, {"reason", f.reason}});
      std::cout << out.dump(2) << "\n";
      return;
    }
    if (failures.empty()) {
      std::cout << "no load failures\n";
      return;
    }
    for (const auto& f : failures)
      std::cout << f.path << "\n  stage:  " << f.stage << "\n  reason: " << f.reason << "\n";
  });
}

}  // namespace tileops::cli
