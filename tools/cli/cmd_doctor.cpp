// tileops doctor: where plugins are searched, what loaded, whether the CUDA driver
// and NVRTC can be opened (and why not), the runtime's version and plugin ABI.
#include "commands.hpp"
#include "output.hpp"

#include <tileops/backend.hpp>
#include <tileops/cuda/driver_probe.hpp>

#include <filesystem>
#include <iostream>

namespace tileops::cli {

void add_doctor_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("doctor", "Check the installation: plugin directories, CUDA, ABI");
  cmd->callback([] {
    std::cout << version_text() << "\n\nplugin directories, in search order:\n";
    for (const auto& dir : plugin_search_path())
      std::cout << "  " << dir << (std::filesystem::is_directory(dir) ? "" : "  (missing)") << "\n";
    auto list = plugins();
    size_t loaded = 0;
    for (const auto& p : list) loaded += p.state == "loaded";
    std::cout << "\nplugins: " << loaded << " loaded, " << load_failures().size()
              << " load failure(s) (see `tileops failures`)\n";
    for (const auto& p : list)
      if (p.state == "loaded")
        std::cout << "  " << p.name << " " << p.version << (p.builtin ? " (built-in)" : "") << "\n";
    std::cout << "\ntargets: " << join(registered_targets()) << "\n";
    std::cout << "\nCUDA driver: " << cuda::describe_driver() << "\n";
    std::cout << "NVRTC:       " << cuda::describe_nvrtc() << "\n";
  });
}

}  // namespace tileops::cli
