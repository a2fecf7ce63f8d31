// tileops cache [list|clear]: the on-disk cache of CUDA kernels the built-in plugin
// compiled ($TILEOPS_CACHE_DIR, else $XDG_CACHE_HOME/tileops, else ~/.cache/tileops).
#include "commands.hpp"

#include <tileops/cuda/cubin_cache.hpp>

#include <iostream>
#include <stdexcept>

namespace tileops::cli {
namespace {

void list_entries(const std::string& dir) {
  auto entries = cuda::cache::list(dir);
  uint64_t total = 0;
  for (const auto& e : entries) {
    total += e.bytes;
    std::cout << e.path << "  " << e.bytes << " bytes";
    if (e.valid)
      std::cout << "  sm_" << e.entry.arch << "  nvrtc " << e.entry.nvrtc_version / 1000 << "."
                << e.entry.nvrtc_version % 1000 / 10 << "  " << e.entry.description << "\n";
    else
      std::cout << "  damaged: " << e.problem << "\n";
  }
  std::cout << entries.size() << " entries, " << total << " bytes in " << dir << "\n";
}

}  // namespace

void add_cache_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("cache", "List or clear the cache of compiled CUDA kernels");
  static std::string action = "list";
  cmd->add_option("action", action, "list (default) or clear")->check(CLI::IsMember({"list", "clear"}));
  cmd->callback([] {
    const std::string root = cuda::cache::default_root();
    // Not CLI::RuntimeError: CLI11 exits with its status but prints no message.
    if (root.empty()) throw std::runtime_error("no cache directory: set TILEOPS_CACHE_DIR or HOME");
    const std::string dir = cuda::cache::cuda_dir(root);
    if (action == "clear")
      std::cout << "removed " << cuda::cache::clear(dir) << " entries from " << dir << "\n";
    else
      list_entries(dir);
  });
}

}  // namespace tileops::cli
