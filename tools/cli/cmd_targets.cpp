// tileops targets [OP] [--json]: registered targets, or those serving one op.
#include "commands.hpp"
#include "output.hpp"

#include <tileops/backend.hpp>
#include <tileops/errors.hpp>
#include <tileops/manifest/manifest.hpp>

#include <iostream>

namespace tileops::cli {
namespace {

// An op the manifest does not name has no targets for a reason the user should see.
void require_known_op(const std::string& name) {
  const auto& manifest = manifest::Manifest::builtin();
  if (manifest.find(name)) return;
  std::string hint;
  for (const auto& near : manifest.nearest(name)) hint += (hint.empty() ? "; did you mean " : ", ") + near;
  throw ValueError("unknown op '" + name + "'" + (hint.empty() ? "" : hint + "?"));
}

}  // namespace

void add_targets_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("targets", "List registered targets (those serving OP if given)");
  static std::string op;
  static bool json = false;
  cmd->add_option("op", op, "an op name of the manifest, e.g. RMSNormFwdOp");
  cmd->add_flag("--json", json, "JSON output (schema tileops.targets/1)");
  cmd->callback([] {
    if (!op.empty()) require_known_op(op);
    auto targets = op.empty() ? registered_targets() : registered_targets(op);
    if (json) {
      nlohmann::json out = {{"schema", "tileops.targets/1"},
                            {"op", op.empty() ? nlohmann::json() : nlohmann::json(op)},
                            {"targets", targets},
                            {"default", default_target() ? nlohmann::json(*default_target()) : nlohmann::json()}};
      std::cout << out.dump(2) << "\n";
      return;
    }
    if (targets.empty()) std::cout << "no targets" << (op.empty() ? "" : " serve " + op) << "\n";
    for (const auto& t : targets) std::cout << t << "\n";
  });
}

}  // namespace tileops::cli
