// tileops validate [DIR]: the manifest validator over the shipped specs (or DIR).
// For `status: implemented` ops it also checks that a loaded plugin or the in-tree
// path serves the op.
#include "commands.hpp"

#include <tileops/backend.hpp>
#include <tileops/manifest.hpp>

#include <algorithm>
#include <iostream>
#include <set>

namespace tileops::cli {
namespace {

// Ops some loaded plugin serves: a kernel builder of any target, or an in-tree
// kernel type.
std::set<std::string> served_ops() {
  std::set<std::string> ops;
  for (const auto& p : plugins()) {
    ops.insert(p.ops.begin(), p.ops.end());
    for (const auto& k : p.kernel_types) ops.insert(k.substr(0, k.find('/')));
  }
  return ops;
}

int validate_dir(const std::string& dir) {
  const manifest::Manifest loaded =
      dir.empty() ? manifest::Manifest::load_embedded() : manifest::Manifest::load_dir(dir);
  const auto served = served_ops();
  manifest::ValidateOptions options;
  options.is_served = [&](const manifest::OpSpec& op) {
    return op.is_composite() || served.count(op.name()) > 0;
  };
  auto diagnostics = manifest::validate(loaded, options);
  for (const auto& d : diagnostics) std::cout << d.str() << "\n";
  std::cout << loaded.ops().size() << " specs, " << diagnostics.size() << " problem(s)\n";
  return diagnostics.empty() ? 0 : 1;
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("validate", "Validate the manifest (the shipped specs, or DIR)");
  static std::string dir;
  cmd->add_option("dir", dir, "a directory of spec files (default: the specs compiled in)");
  cmd->callback([] {
    if (int status = validate_dir(dir)) throw CLI::RuntimeError(status);
  });
}

}  // namespace tileops::cli
